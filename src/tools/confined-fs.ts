// Opening files for the file tools without a gap between the check and the open.
//
// paths.ts decides on a *path* whether a tool may touch it, but a path is looked up again by
// every call that uses it: between the check and the open, another session's bash can swap a
// symlink (`x -> inside/` becomes `x -> ~/.pith/`) and the open lands wherever the link points
// at that instant. Measured before this module existed: 67 of 300 writes through such a link
// landed outside the cwd, one of them over pith's settings.json. So here nothing is checked
// before it is opened. Every open is followed by a check of what was opened: on Linux
// /proc/self/fd/N names the open file by its real location (the kernel's answer, not a path
// lookup that can be raced), and the same rules (paths.ts `refusal`) are applied to that.
//   - an existing file is opened without O_TRUNC, checked, and only then truncated and written;
//   - a new file is created with O_CREAT|O_EXCL|O_NOFOLLOW inside a directory that is open and
//     checked: `/proc/self/fd/<dirfd>/<name>` is looked up from the open directory, as openat
//     would, so a parent swapped for a symlink after the check changes nothing;
//   - missing parent directories are made one at a time, each inside the checked one before it,
//     and each is opened and checked in turn (mkdir -p without following a planted link out);
//   - directories are listed through their checked descriptor (/proc/self/fd/N), never by path.
// Where /proc/self/fd is missing (not Linux) the opens fall back to plain paths: the checks in
// paths.ts still run first, but with the race described above (the sandbox is the wall there).
import { constants, existsSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { mkdir, open, readlink, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { readRegularFileSync, type RegularRead, type RegularReadOptions } from "../os/regular-file.js";
import { fsError } from "./fs-error-messages.js";
import { policyRoots, refusal, type PathAccess, type PathPolicy, type PolicyRoots } from "./paths.js";
import { ToolError } from "./types.js";

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK, O_NOCTTY } = constants;

let procFd: boolean | undefined;

/** Whether opened files can be checked by descriptor (/proc/self/fd, Linux). */
export function canVerifyDescriptors(): boolean {
  return (procFd ??= process.platform === "linux" && existsSync("/proc/self/fd"));
}

/** An open file or directory whose real location has been checked. */
export interface Opened {
  handle: FileHandle;
  /** a path naming exactly this open object (/proc/self/fd/N), for calls that take a path */
  path: string;
  /** its real location (as the kernel reports it for the descriptor) */
  real: string;
  stats: Stats;
}

/** What the rules are checked with: the tool context and who to name in errors. */
export interface OpenRequest {
  ctx: PathPolicy;
  /** the path as the model wrote it, for messages */
  shown: string;
  /** the rules' roots, when the caller already resolved them (a walk opens many files) */
  roots?: PolicyRoots;
}

/** The real location of what `fd` has open, as the kernel names it (Linux). */
function realOfFd(fd: number): Promise<string> {
  return readlink(`/proc/self/fd/${fd}`);
}

/** Checks what `handle` has open against the rules; closes it and throws ToolError if refused. */
async function checked(handle: FileHandle, opened: string, req: OpenRequest, access: PathAccess): Promise<Opened> {
  try {
    const stats = await handle.stat();
    if (!canVerifyDescriptors()) return { handle, path: opened, real: opened, stats };
    const real = await realOfFd(handle.fd);
    // anything not named by an absolute path (a pipe, a socket) was not reached through the tree
    const why = real.startsWith("/") ? refusal(real, req.roots ?? (await policyRoots(req.ctx)), req.ctx, access, { shown: req.shown }) : `${JSON.stringify(req.shown)} is not a file`;
    if (why !== undefined) throw new ToolError(why);
    return { handle, path: `/proc/self/fd/${handle.fd}`, real, stats };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/**
 * An existing file (or, with `directory`, a directory) opened and checked. `write` opens it
 * read-write for edit: nothing is changed until the caller writes through the checked handle.
 * O_NONBLOCK: opening a FIFO never waits for a writer (the caller refuses non-regular files).
 */
export async function openExisting(absolute: string, req: OpenRequest, access: PathAccess = "read", options: { noFollow?: boolean } = {}): Promise<Opened> {
  const flags = (access === "write" ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY | (options.noFollow ? O_NOFOLLOW : 0);
  return checked(await open(absolute, flags), absolute, req, access);
}

/** A directory opened and checked, for listing through `path` (its descriptor). */
export async function openDirectory(absolute: string, req: OpenRequest, options: { noFollow?: boolean } = {}): Promise<Opened> {
  return checked(await open(absolute, O_RDONLY | O_DIRECTORY | (options.noFollow ? O_NOFOLLOW : 0)), absolute, req, "read");
}

/**
 * The file at `absolute` opened for writing, created if missing (missing parent directories
 * too), checked before a byte changes. The caller truncates and writes through the handle.
 */
export async function openForReplace(absolute: string, req: OpenRequest): Promise<Opened & { created: boolean }> {
  const roots = req.roots ?? (await policyRoots(req.ctx));
  const r = { ...req, roots };
  const dir = await openDirectoryCreating(dirname(absolute), r);
  try {
    const at = `${dir.path}/${basename(absolute)}`;
    try {
      // a new file: made inside the checked directory, never through a link
      const handle = await open(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0o666);
      return { ...(await checked(handle, at, r, "write")), created: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    // it exists (a file, or a link to one that the check below must accept): no O_TRUNC until checked
    let handle: FileHandle;
    try {
      handle = await open(at, O_WRONLY | O_NONBLOCK | O_NOCTTY);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new ToolError(`${req.shown} is a symbolic link to a file that does not exist; write to the path it points to instead`);
      throw err;
    }
    return { ...(await checked(handle, at, r, "write")), created: false };
  } finally {
    await dir.handle.close().catch(() => {});
  }
}

/** mkdir -p, one checked component at a time; resolves with the last directory, open and checked for writing. */
async function openDirectoryCreating(dirAbs: string, req: OpenRequest & { roots: PolicyRoots }): Promise<Opened> {
  try {
    return await checked(await open(dirAbs, O_RDONLY | O_DIRECTORY), dirAbs, req, "write");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (!canVerifyDescriptors()) {
    // no descriptors to check by: mkdir -p by path, after paths.ts's checks (racy; see the top)
    await mkdir(dirAbs, { recursive: true });
    return checked(await open(dirAbs, O_RDONLY | O_DIRECTORY), dirAbs, req, "write");
  }
  const parentAbs = dirname(dirAbs);
  if (parentAbs === dirAbs) throw Object.assign(new Error(`no such directory: ${dirAbs}`), { code: "ENOENT" });
  const parent = await openDirectoryCreating(parentAbs, req);
  try {
    const at = `${parent.path}/${basename(dirAbs)}`;
    let made = true;
    await mkdir(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
      made = false;
    });
    let handle: FileHandle;
    try {
      // one we just made is opened without following: if it was swapped for a link since, this fails
      handle = await open(at, O_RDONLY | O_DIRECTORY | (made ? O_NOFOLLOW : 0));
    } catch (err) {
      if (!made && (err as NodeJS.ErrnoException).code === "ENOENT") {
        throw new ToolError(`${req.shown}: ${basename(dirAbs)} is a symbolic link to a directory that does not exist; create that directory first, or write to the real path`);
      }
      throw err;
    }
    return await checked(handle, at, req, "write");
  } finally {
    await parent.handle.close().catch(() => {});
  }
}

/** Replaces the whole content of a file opened for writing (checked already). */
export async function replaceContent(opened: Opened, data: Uint8Array): Promise<void> {
  await opened.handle.truncate(0);
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await opened.handle.write(data, written, data.length - written, written);
    written += bytesWritten;
  }
}

/** Runs `fn` with the file opened and checked, closing it after; file-system failures become the model's messages. */
export async function withOpened<O extends Opened, T>(open: () => Promise<O>, shown: string, fn: (o: O) => Promise<T>): Promise<T> {
  let opened: O;
  try {
    opened = await open();
  } catch (err) {
    throw fsError(err, shown);
  }
  try {
    return await fn(opened);
  } catch (err) {
    throw (err as NodeJS.ErrnoException).code !== undefined ? fsError(err, shown) : err;
  } finally {
    await opened.handle.close().catch(() => {});
  }
}

// ---- synchronous read, for what pith itself reads into a prompt (context files) ----------------

/**
 * A regular file read as regular-file.ts reads (never blocking, capped), once its real location,
 * as the kernel names it for the open descriptor, passed `isAllowed`; `refused` says why it did
 * not. For files pith reads on its own (AGENTS.md): the caller decides what to say of a skip.
 */
export function readVerifiedSync(path: string, options: RegularReadOptions & { isAllowed: (real: string) => boolean; refused: string }): RegularRead {
  if (!canVerifyDescriptors()) {
    // no descriptor to check: the path's real location, checked before opening (racy; see the top)
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return readRegularFileSync(path, options); // missing (or a dangling link): says so
    }
    if (!options.isAllowed(real)) return { kind: "skipped", why: options.refused };
    return readRegularFileSync(path, options);
  }
  return readRegularFileSync(path, {
    ...options,
    check: (fd, stats) => {
      const real = readlinkSync(`/proc/self/fd/${fd}`);
      if (!real.startsWith("/") || !options.isAllowed(real)) return options.refused;
      return options.check?.(fd, stats);
    },
  });
}
