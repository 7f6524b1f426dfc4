// A host's side of where sessions work: the rule (workspace.ts) applied with this host's pith
// paths and user home, which session files are its store's own (their cwd was checked when they
// were made or imported) and which came from elsewhere, and the offline scratch project.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { DEMO_FILES } from "../../llm/demo-script.js";
import { pithHome } from "../../session/paths.js";
import type { SessionRef } from "../../session/store.js";
import { callerCwd } from "./caller-paths.js";
import { ErrorCode, HostError } from "../host-error.js";
import { checkWorkspace, realAsFarAsItGoes, type CwdOrigin } from "./workspace.js";

/** A private scratch project with the demo's files, in the OS temp dir (mkdtemp: no other user made it first). */
export function makeDemoProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "pith-demo-"));
  for (const [name, content] of Object.entries(DEMO_FILES)) writeFileSync(join(dir, name), content);
  return dir;
}

export class SessionWorkspaces {
  private demoDir: string | undefined;

  constructor(
    private readonly env: () => NodeJS.ProcessEnv,
    private readonly sessionsDir: string,
    /** whether the store keeps files in sessionsDir (a shared store's sessions are all its own) */
    private readonly fileStore: boolean,
  ) {}

  /** The one rule for where a session works: -32602 with a reason, before anything runs. */
  check(cwd: unknown, origin: CwdOrigin): void {
    const env = this.env();
    checkWorkspace(cwd, origin, { pithPaths: [pithHome(env), this.sessionsDir], userHome: env.HOME });
  }

  /** Whether a session file lies in the store (its header was written by pith, or checked when imported). */
  isStoreFile(sessionFile: string): boolean {
    if (!this.fileStore) return true;
    const dir = realAsFarAsItGoes(resolve(this.sessionsDir));
    return realAsFarAsItGoes(resolve(sessionFile)).startsWith(dir.endsWith(sep) ? dir : dir + sep);
  }

  /** A cwd a client asked for (createSession's, openSession's), resolved: an existing directory, not pith's own. */
  requested(cwd: string): string {
    const dir = callerCwd(cwd);
    this.check(dir, "request");
    return dir;
  }

  /** A session file from elsewhere (a colleague's, a download) says where it worked: "file"; the store's own: "store". */
  originOf(ref: SessionRef): CwdOrigin {
    return "sessionFile" in ref && !this.isStoreFile(ref.sessionFile) ? "file" : "store";
  }

  /** The session, if it works in `cwd` (when one was asked for): one already live elsewhere is not moved. */
  workingIn<S extends { id: string; file: { cwd: string } }>(session: S, cwd: string | undefined): S {
    if (cwd === undefined || session.file.cwd === cwd) return session;
    throw new HostError(ErrorCode.InvalidParams, `session ${session.id} is already open here, working in ${session.file.cwd}; close it first to open it in ${cwd}`, {
      reason: "CwdDiffers",
      cwd: session.file.cwd,
      requested: cwd,
    });
  }

  /**
   * Offline, a session created without a cwd works in a scratch project: one per daemon, never
   * in pith's home (where no session may work). The one cwd pith picks by itself, as `pith demo` does.
   */
  demoProject(): string {
    this.demoDir ??= makeDemoProject();
    return this.demoDir;
  }
}
