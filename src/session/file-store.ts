// The file store: one JSONL file per session under a sessions folder ($PITH_HOME/sessions),
// Pi's format, one writer per file through a pid lock (lock.ts). The lock sees only this host's
// processes: several daemons sharing sessions across machines need the PostgreSQL store.
import { unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { SessionError } from "./session-error.js";
import { checkSessionId } from "./ids.js";
import { findSessionFileAsync, listSessionsAsync, type SessionSummary } from "./list.js";
import { FileLock } from "./lock.js";
import { writeNewFileAsync } from "./new-file.js";
import { SessionFile } from "./session-file.js";
import type { SessionRef, SessionStore } from "./store.js";
import type { SessionHeader } from "./types.js";

export class FileSessionStore implements SessionStore {
  readonly kind = "file" as const;
  /** files being opened: a second request for one waits for the first instead of racing it for the lock */
  private readonly opening = new Map<string, Promise<SessionFile>>();

  constructor(readonly sessionsDir: string) {}

  get location(): string {
    return this.sessionsDir;
  }

  async create(options: { cwd: string }): Promise<SessionFile> {
    return SessionFile.create({ cwd: options.cwd, sessionsDir: this.sessionsDir });
  }

  async open(ref: SessionRef, options: { checkHeader?: (header: SessionHeader) => void } = {}): Promise<SessionFile> {
    let path: string;
    if ("sessionId" in ref) {
      const found = await findSessionFileAsync(this.sessionsDir, checkSessionId(ref.sessionId, "openSession"));
      if (!found) throw new SessionError("SessionNotFound", `no session ${ref.sessionId} in ${this.sessionsDir}`, { sessionId: ref.sessionId });
      path = found;
    } else path = ref.sessionFile;
    const file = resolve(path);
    let pending = this.opening.get(file);
    if (!pending) {
      pending = SessionFile.openAsync(file, { checkHeader: options.checkHeader }).finally(() => this.opening.delete(file));
      this.opening.set(file, pending);
    }
    return pending;
  }

  list(options: { cwd?: string } = {}): Promise<SessionSummary[]> {
    return listSessionsAsync(this.sessionsDir, options);
  }

  /** Taken for writing while it is removed: a file another live process holds is refused (SessionLocked, naming the pid). */
  async delete(sessionId: string): Promise<{ deleted: string }> {
    const file = await findSessionFileAsync(this.sessionsDir, checkSessionId(sessionId, "deleteSession"));
    if (!file) throw new SessionError("SessionNotFound", `no session ${sessionId}`, { sessionId });
    const lock = FileLock.acquire(file);
    try {
      unlinkSync(file);
    } finally {
      lock.release();
    }
    return { deleted: file };
  }

  async fork(from: SessionFile, entryId: string): Promise<SessionFile> {
    const fork = await from.forkContentsAsync(entryId, { sessionsDir: this.sessionsDir });
    await writeNewFileAsync(fork.file, fork.lines);
    return SessionFile.openAsync(fork.file);
  }

  async close(): Promise<void> {}
}
