// A child process that talks in lines: commands on stdin, one reply line per command on stdout.
// Used by the crash and lock tests; the children are real processes running a .mjs script that
// loads the session store through session-module.mjs.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { LineReader, NO_LINE_LIMIT } from "../../protocol/ndjson-lines.js";
import { repoRoot } from "./tmp.js";

interface Esbuild {
  transformSync(code: string, options: Record<string, unknown>): { code: string };
}

/**
 * The session store for children, compiled from the current src/ (not dist/, which others may
 * have left stale) into a temp dir with esbuild (tsx's own compiler): a child then starts in
 * ~80 ms instead of ~300 ms through tsx. Falls back to src/ through tsx without esbuild.
 */
async function compileStore(): Promise<{ via: "compiled" | "tsx"; url: string }> {
  const srcDir = join(repoRoot, "src");
  const index = join(srcDir, "session", "index.ts");
  let esbuild: Esbuild;
  try {
    const specifier = "esbuild"; // a dependency of tsx, not of pith: not type-checked here
    esbuild = (await import(specifier)) as Esbuild;
  } catch {
    return { via: "tsx", url: pathToFileURL(index).href };
  }
  const out = mkdtempSync(join(tmpdir(), "pith-test-store-"));
  process.on("exit", () => rmSync(out, { recursive: true, force: true }));
  writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(join(repoRoot, "node_modules"), join(out, "node_modules")); // for bare imports
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : /(?<!\.d)\.ts$/.test(d.name) ? [join(dir, d.name)] : []));
  for (const file of walk(srcDir)) {
    const target = join(out, relative(srcDir, file).replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    const { code } = esbuild.transformSync(readFileSync(file, "utf8"), { loader: "ts", format: "esm", target: "node20", sourcefile: file });
    writeFileSync(target, code);
  }
  return { via: "compiled", url: pathToFileURL(join(out, "session", "index.js")).href };
}

/**
 * How children load the store (see compileStore). PITH_TEST_STORE=tsx: src/ through tsx;
 * PITH_TEST_STORE=dist: the built dist/ (to test what `npm run build` produced).
 */
export const store: { via: "compiled" | "tsx" | "dist"; url: string } =
  process.env.PITH_TEST_STORE === "tsx"
    ? { via: "tsx", url: pathToFileURL(join(repoRoot, "src", "session", "index.ts")).href }
    : process.env.PITH_TEST_STORE === "dist"
      ? { via: "dist", url: pathToFileURL(join(repoRoot, "dist", "src", "session", "index.js")).href }
      : await compileStore();

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class LineChild {
  readonly proc: ChildProcess;
  readonly closed: Promise<Exit>;
  /** complete stdout lines received so far */
  readonly lines: string[] = [];
  stderr = "";
  private consumed = 0;
  private wake: (() => void) | null = null;
  private exit: Exit | null = null;

  /** runs `node <script> ...args` (`node --import tsx ...` when the store is loaded through tsx) */
  constructor(script: string, args: string[]) {
    const node = store.via === "tsx" ? ["--import", "tsx", script, ...args] : [script, ...args];
    // cwd = the repository, so that `--import tsx` resolves from its node_modules
    this.proc = spawn(process.execPath, node, {
      cwd: repoRoot,
      env: { ...process.env, PITH_TEST_STORE_URL: store.url },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.proc.stderr!.setEncoding("utf8");
    const reader = new LineReader({ line: (text) => this.lines.push(text), oversize: () => {} }, NO_LINE_LIMIT);
    this.proc.stdout!.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      this.wake?.();
    });
    this.proc.stderr!.on("data", (chunk: string) => (this.stderr += chunk));
    this.proc.stdin!.on("error", () => {}); // writing to a child that is gone
    this.closed = new Promise((resolve) => {
      this.proc.on("close", (code, signal) => {
        this.exit = { code, signal };
        this.wake?.();
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  send(line: string): void {
    this.proc.stdin!.write(line + "\n");
  }

  /** The next stdout line not yet returned; rejects if the child ends first or after `timeoutMs`. */
  async next(timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.consumed >= this.lines.length) {
      if (this.exit) throw new Error(`child ${this.pid} ended (${JSON.stringify(this.exit)}) before replying; stderr:\n${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`child ${this.pid} did not reply within ${timeoutMs} ms; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.lines[this.consumed++];
  }

  /** Sends a command and returns its reply line. */
  async ask(command: string, timeoutMs?: number): Promise<string> {
    this.send(command);
    return this.next(timeoutMs);
  }

  /** The complete lines not yet returned by next(). */
  rest(): string[] {
    const out = this.lines.slice(this.consumed);
    this.consumed = this.lines.length;
    return out;
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.exit === null) this.proc.kill(signal);
  }
}
