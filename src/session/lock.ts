// One writer per session file: `<file>.lock` holds the owner's pid. A lock whose owner is no
// longer alive (crash, kill -9) is stale and taken over. Readers never lock.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { SessionError } from "./errors.js";

interface LockOwner {
  pid: number;
  host: string;
  acquiredAt: string;
  nonce: string;
}

const heldHere = new Map<string, string>(); // lock path -> nonce, for locks this process holds

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(lockPath: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(lockPath, "utf8")) as LockOwner;
    return typeof owner.pid === "number" ? owner : null;
  } catch {
    return null; // unreadable or half-written: treated as stale
  }
}

let exitHookInstalled = false;
function releaseAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [lockPath, nonce] of heldHere) removeIfOurs(lockPath, nonce);
  });
}

function removeIfOurs(lockPath: string, nonce: string): void {
  const owner = readOwner(lockPath);
  if (owner && owner.nonce === nonce) {
    try {
      unlinkSync(lockPath);
    } catch {
      // already gone
    }
  }
}

export class FileLock {
  private constructor(
    readonly lockPath: string,
    private readonly nonce: string,
  ) {}

  static acquire(filePath: string): FileLock {
    const lockPath = `${filePath}.lock`;
    if (heldHere.has(lockPath)) {
      throw new SessionError("SessionLocked", `session file is already open for writing in this process: ${filePath}`, {
        file: filePath,
        pid: process.pid,
      });
    }
    const nonce = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    for (let attempt = 0; attempt < 5; attempt++) {
      let fd: number;
      try {
        fd = openSync(lockPath, "wx", 0o644);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        const owner = readOwner(lockPath);
        const sameHost = owner?.host === hostname();
        if (owner && (!sameHost || (owner.pid !== process.pid && isAlive(owner.pid)))) {
          throw new SessionError(
            "SessionLocked",
            `session file is open for writing by process ${owner.pid}${sameHost ? "" : ` on ${owner.host}`}: ${filePath}`,
            { file: filePath, pid: owner.pid, host: owner.host },
          );
        }
        // stale: the owner died (or it is our own pid from a lock this process no longer holds)
        try {
          unlinkSync(lockPath);
        } catch {
          // somebody else removed it first; try again
        }
        continue;
      }
      const owner: LockOwner = { pid: process.pid, host: hostname(), acquiredAt: new Date().toISOString(), nonce };
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      heldHere.set(lockPath, nonce);
      releaseAllOnExit();
      return new FileLock(lockPath, nonce);
    }
    throw new SessionError("SessionLocked", `could not take the lock for ${filePath}`, { file: filePath });
  }

  release(): void {
    if (heldHere.get(this.lockPath) !== this.nonce) return;
    heldHere.delete(this.lockPath);
    removeIfOurs(this.lockPath, this.nonce);
  }
}
