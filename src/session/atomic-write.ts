import { closeSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Files pith creates are readable by their owner only (transcripts, settings, locks), as ssh's are. */
export const PRIVATE_FILE = 0o600;
/** And so are the folders it creates. */
export const PRIVATE_DIR = 0o700;

/** fsync a directory so a rename or create in it survives a power loss (best effort on odd filesystems). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on directories; the data itself was already synced
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Replaces `path` with `content` via temp file + fsync + rename: readers see the old or the new
 * file, never a mix. The file keeps the mode it had; a new one is private.
 */
export function writeFileAtomic(path: string, content: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  let mode = PRIVATE_FILE;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // a new file
  }
  const fd = openSync(tmp, "wx", mode);
  try {
    writeAll(fd, typeof content === "string" ? Buffer.from(content) : content);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** writeSync until every byte is written (a single call may write less). */
export function writeAll(fd: number, data: Buffer, position?: number): void {
  let done = 0;
  while (done < data.length) {
    done += writeSync(fd, data, done, data.length - done, position === undefined ? null : position + done);
  }
}
