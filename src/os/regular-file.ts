// The one read pith makes of a file it reads by itself (project settings, context files, lock
// files): a file a repository ships or the model's bash makes can be anything, and a read of it
// runs on the daemon's event loop. A FIFO opened for reading waits for a writer for ever (every
// session and client stalls), a link to /dev/zero never ends (the daemon dies of memory), a 1 GB
// file takes seconds. So:
//   - opened with O_NONBLOCK (a FIFO's open returns at once) and O_NOCTTY, and O_NOFOLLOW when a
//     link at that name must not be followed;
//   - what was opened is checked through its descriptor (fstat): a regular file only, never a
//     FIFO, a device, a socket or a directory (checked after opening, so a swap between a check
//     and the open changes nothing);
//   - read up to a cap: a file larger than it is skipped (or cut, where a prefix is useful), and
//     nothing past the cap is ever read, even from a file that grows while it is read.
// A skip says why in words, for the warning that names the file.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from "node:fs";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY, O_DIRECTORY } = constants;

export interface RegularReadOptions {
  /** the most bytes read */
  maxBytes: number;
  /** a larger file: skipped (the default), or its first maxBytes kept */
  oversize?: "skip" | "cut";
  /** refuse a link at the last component (the open fails with ELOOP) */
  noFollow?: boolean;
  /** more checks of the open file before a byte is read: a reason to skip it, or undefined */
  check?: (fd: number, stats: Stats) => string | undefined;
}

export type RegularRead =
  | { kind: "read"; bytes: Buffer; stats: Stats; /** the file was larger than maxBytes (oversize "cut") */ cut: boolean }
  | { kind: "missing" }
  | { kind: "skipped"; why: string };

/** What a non-regular file is, in words ("is a FIFO"). */
function notRegular(stats: Stats): string {
  if (stats.isFIFO()) return "is a FIFO";
  if (stats.isCharacterDevice()) return "is a character device";
  if (stats.isBlockDevice()) return "is a block device";
  if (stats.isSocket()) return "is a socket";
  if (stats.isDirectory()) return "is a directory";
  if (stats.isSymbolicLink()) return "is a symbolic link";
  return "is not a regular file";
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** Why an open failed, in words, or undefined for "not there" (ENOENT, ENOTDIR on a missing parent). */
function openFailure(err: NodeJS.ErrnoException, noFollow: boolean): string | undefined {
  if (err.code === "ENOENT") return undefined;
  if (err.code === "ELOOP" && noFollow) return "is a symbolic link";
  if (err.code === "ENOTDIR") return "has a parent that is not a directory";
  return `cannot be opened (${err.code ?? err.message})`;
}

/** A regular file's bytes, read as described at the top; never blocks, never reads past maxBytes. */
export function readRegularFileSync(path: string, options: RegularReadOptions): RegularRead {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (options.noFollow ? O_NOFOLLOW : 0));
  } catch (err) {
    const why = openFailure(err as NodeJS.ErrnoException, options.noFollow === true);
    return why === undefined ? { kind: "missing" } : { kind: "skipped", why };
  }
  try {
    return readOpen(fd, options);
  } finally {
    closeSync(fd);
  }
}

function readOpen(fd: number, options: RegularReadOptions): RegularRead {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (err) {
    return { kind: "skipped", why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (!stats.isFile()) return { kind: "skipped", why: notRegular(stats) };
  let refused: string | undefined;
  try {
    refused = options.check?.(fd, stats);
  } catch (err) {
    refused = `cannot be checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (refused !== undefined) return { kind: "skipped", why: refused };
  const cutting = options.oversize === "cut";
  if (stats.size > options.maxBytes && !cutting) return { kind: "skipped", why: `is larger than ${sizeText(options.maxBytes)} (${stats.size} bytes)` };
  // one byte more than the cap tells a file that grew past it since fstat
  const buf = Buffer.alloc(Math.min(options.maxBytes, stats.size) + 1);
  let n = 0;
  try {
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
  } catch (err) {
    return { kind: "skipped", why: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (n > options.maxBytes) {
    if (!cutting) return { kind: "skipped", why: `is larger than ${sizeText(options.maxBytes)}` };
    return { kind: "read", bytes: buf.subarray(0, options.maxBytes), stats, cut: true };
  }
  return { kind: "read", bytes: buf.subarray(0, n), stats, cut: false };
}

/**
 * A directory opened without following a link at its name (O_NOFOLLOW|O_DIRECTORY), for reading
 * a file inside it through `/proc/self/fd/<fd>/<name>` (as openat would: a later swap of the
 * directory's name for a link changes nothing). The caller closes `fd`.
 */
export function openDirectoryNoFollowSync(path: string): { kind: "open"; fd: number } | { kind: "missing" } | { kind: "skipped"; why: string } {
  try {
    return { kind: "open", fd: openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOCTTY) };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // O_DIRECTORY|O_NOFOLLOW on a link fails with ENOTDIR too: lstat only names which (nothing is read)
    if (e.code === "ENOTDIR") return { kind: "skipped", why: isLink(path) ? "is a symbolic link" : "is not a directory" };
    const why = openFailure(e, true);
    return why === undefined ? { kind: "missing" } : { kind: "skipped", why };
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
