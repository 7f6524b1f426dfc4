import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";

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

/** Replaces `path` with `content` via temp file + fsync + rename: readers see the old or the new file, never a mix. */
export function writeFileAtomic(path: string, content: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fd = openSync(tmp, "wx", 0o644);
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
