// Pi 0.58.3 (an exact-pinned devDependency) in this process, for interop checks and benches: what
// Pi makes of a session file. Only Pi's session manager is loaded (its package index pulls in the
// whole coding agent, ~0.8 s); it is found through the package's own entry point.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PI_VERSION = "0.58.3";

interface PiSessionManager {
  buildSessionContext(): { messages: unknown[]; model?: { provider: string; modelId: string } | null; thinkingLevel?: string };
  getEntries(): unknown[];
  getLeafId(): string | null;
}

interface PiModule {
  SessionManager: { open(file: string, sessionDir: string): PiSessionManager };
}

let loaded: Promise<PiModule> | undefined;

/** Pi's session manager module (imported once). */
function piSessions(): Promise<PiModule> {
  loaded ??= (async () => {
    // the package exports only its index (for import); its files lie beside it
    const entry = fileURLToPath(import.meta.resolve("@mariozechner/pi-coding-agent"));
    const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string };
    if (version !== PI_VERSION) throw new Error(`expected Pi ${PI_VERSION}, found ${version}`);
    return (await import(pathToFileURL(join(dirname(entry), "core", "session-manager.js")).href)) as PiModule;
  })();
  return loaded;
}

export interface PiView {
  /** Pi's context messages, model and thinking level for the file's leaf */
  messages: unknown[];
  model: { provider: string; modelId: string } | null;
  thinkingLevel: string | undefined;
  entries: number;
  leafId: string | null;
}

/**
 * What Pi makes of `file`. By default it reads a copy: Pi rewrites old-format files in place
 * when it opens them. `copy: false` (for v3 files, in benches) opens the file itself.
 */
export async function openWithPi(file: string, options: { copy?: boolean } = {}): Promise<PiView> {
  const { SessionManager } = await piSessions();
  const dir = mkdtempSync(join(tmpdir(), "pith-pi-"));
  try {
    const target = options.copy === false ? file : join(dir, basename(file));
    if (options.copy !== false) copyFileSync(file, target);
    const sm = SessionManager.open(target, dir);
    const ctx = sm.buildSessionContext();
    return { messages: ctx.messages, model: ctx.model ?? null, thinkingLevel: ctx.thinkingLevel, entries: sm.getEntries().length, leafId: sm.getLeafId() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
