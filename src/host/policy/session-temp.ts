// Each live session's own temp directory (ToolContext.tempDir), where bash keeps the full output
// of a command whose result was cut. It is private (0700, made by mkdtemp with a random name, so
// no other user can have made it first), lies under the OS temp dir and not under $PITH_HOME
// (which the file tools may never read, while the model is told to page through these files),
// and is removed when the session closes. A daemon that crashed leaves its directories behind:
// their names carry the daemon's pid, and the next daemon removes those whose daemon is gone.
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../../os/pid-alive.js";

const NAME = /^pith-(\d+)-[0-9a-f]{8,32}-/;

/** Whether a name in the OS temp dir is one of these directories' (some daemon's, live or not). */
export function isSessionTempName(name: string): boolean {
  return NAME.test(name);
}

function prefix(sessionId: string): string {
  // the whole id (as hex): a failed session's directories are found by it, never another's
  const tag = sessionId.replace(/[^0-9a-f]/gi, "").slice(0, 32).toLowerCase().padEnd(8, "0");
  return `pith-${process.pid}-${tag}-`;
}

/** Makes the directory for session `sessionId`; undefined if it cannot be made (bash then uses the OS temp dir). */
export function createSessionTempDir(sessionId: string): string | undefined {
  try {
    return mkdtempSync(join(tmpdir(), prefix(sessionId)));
  } catch {
    return undefined;
  }
}

export async function removeSessionTempDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
}

/** Removes this daemon's directories for `sessionId` (a session that failed before it could be closed). */
export async function removeSessionTempDirsOf(sessionId: string): Promise<void> {
  let names: string[] = [];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(prefix(sessionId)));
  } catch {
    // nothing to remove
  }
  for (const name of names) await removeSessionTempDir(join(tmpdir(), name));
}

/** Removes this user's session directories left by daemons that are no longer running. */
export function removeStaleSessionTempDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue;
    const dir = join(tmpdir(), name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // gone already, or not ours to remove
    }
  }
}
