// One writer per session file: `<file>.lock` holds the owner's pid. A lock whose owner is no
// longer alive (crash, kill -9) is stale and taken over. Readers never lock.
//
// A session file may live in a directory the model's bash can write (a `--session FILE` in the
// project), so what sits at `<file>.lock` may be a FIFO (whose read would wait for ever, on the
// event loop) or a link to /dev/zero (read until memory runs out). Locks are read through the
// checked read (regular-file.ts): a regular file, no link followed, a few KiB at most. Anything
// else is no owner, so it is treated as stale and removed (the entry, never what a link names).
import { closeSync, linkSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { hostname } from "node:os";
import { PRIVATE_FILE } from "./atomic-write.js";
import { SessionError } from "./session-error.js";
import { pidAlive } from "../os/pid-alive.js";
import { readRegularFileSync } from "../os/regular-file.js";

interface LockOwner {
  pid: number;
  host: string;
  acquiredAt: string;
  nonce: string;
}

const heldHere = new Map<string, string>(); // lock path -> nonce, for locks this process holds

/** A lock's owner is about 150 bytes of JSON. */
const MAX_LOCK_BYTES = 4096;

function readOwner(lockPath: string): LockOwner | null {
  const read = readRegularFileSync(lockPath, { maxBytes: MAX_LOCK_BYTES, noFollow: true });
  if (read.kind !== "read") return null; // missing, or not a lock pith wrote: stale
  try {
    const owner = JSON.parse(read.bytes.toString("utf8")) as LockOwner;
    return owner !== null && typeof owner === "object" && typeof owner.pid === "number" ? owner : null;
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
  if (owner && owner.nonce === nonce) tryUnlink(lockPath);
}

function ownerIsLive(owner: LockOwner | null): owner is LockOwner {
  if (!owner) return false;
  if (owner.host !== hostname()) return true; // cannot check another machine's processes: assume alive
  if (owner.pid === process.pid) return [...heldHere.values()].includes(owner.nonce);
  return pidAlive(owner.pid);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * A process killed while taking a lock can leave its private `<lock>.<pid>-…` or
 * `<lock>.stale-<pid>-…` file behind; remove those of dead processes.
 */
function removeLeftovers(lockPath: string): void {
  const dir = dirname(lockPath);
  const prefix = `${basename(lockPath)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(?:stale-)?(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !pidAlive(pid)) tryUnlink(join(dir, name));
  }
}

/** Blocks this thread for `ms` (a takeover in progress elsewhere takes microseconds). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes a stale lock under `<lock>.takeover`, an exclusive file holding the remover's pid:
 * with it held, the lock is read again and removed only if it is still the stale one seen. A
 * takeover file whose owner died is itself removed. Returns when the caller should try again.
 */
function removeStale(lockPath: string, stale: LockOwner | null, mine: string): void {
  const takeover = `${lockPath}.takeover`;
  try {
    // created complete, like the lock itself: a racing process never sees an empty one
    linkSync(mine, takeover);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const holder = readOwner(takeover);
    if (holder && holder.pid !== process.pid && pidAlive(holder.pid)) sleepSync(5);
    else tryUnlink(takeover); // its holder died mid-takeover (held for microseconds: rare)
    return;
  }
  try {
    const now = readOwner(lockPath);
    const same = now === null ? stale === null : stale !== null && now.nonce === stale.nonce && now.pid === stale.pid;
    if (same && !ownerIsLive(now)) tryUnlink(lockPath);
  } finally {
    tryUnlink(takeover);
  }
}

/**
 * The lock file is created complete: the owner is written to a private file first and then
 * hard-linked to the lock path, which fails if it exists. A racing process never sees an empty
 * lock. A stale lock is removed only under the takeover mutex (see removeStale).
 */
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
    const mine = `${lockPath}.${nonce}`;
    const owner: LockOwner = { pid: process.pid, host: hostname(), acquiredAt: new Date().toISOString(), nonce };
    const fd = openSync(mine, "wx", PRIVATE_FILE);
    writeSync(fd, JSON.stringify(owner));
    closeSync(fd);
    try {
      for (let attempt = 0; attempt < 200; attempt++) {
        try {
          linkSync(mine, lockPath);
          heldHere.set(lockPath, nonce);
          releaseAllOnExit();
          if (attempt > 0) removeLeftovers(lockPath); // a stale lock was met: its owner may have left more
          return new FileLock(lockPath, nonce);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        }
        const current = readOwner(lockPath);
        if (ownerIsLive(current)) {
          const sameHost = current.host === hostname();
          throw new SessionError(
            "SessionLocked",
            `session file is open for writing by process ${current.pid}${sameHost ? "" : ` on ${current.host}`}: ${filePath}`,
            { file: filePath, pid: current.pid, host: current.host },
          );
        }
        // stale (its owner died): only the holder of the takeover mutex may remove it, and only
        // if it is still that same stale lock, so a fresh lock is never removed by mistake
        removeStale(lockPath, current, mine);
      }
      throw new SessionError("SessionLocked", `could not take the lock for ${filePath}`, { file: filePath });
    } finally {
      tryUnlink(mine);
    }
  }

  release(): void {
    if (heldHere.get(this.lockPath) !== this.nonce) return;
    heldHere.delete(this.lockPath);
    removeIfOurs(this.lockPath, this.nonce);
  }
}
