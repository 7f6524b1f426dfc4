// Directories bwrap binds by descriptor (--bind-fd, --ro-bind-fd) instead of by path. A path
// checked with lstat (sandbox-mounts.ts pathKind) can still be swapped for a link before bwrap
// mounts it, by any process that can write its parent: another session's command whose cwd is
// the parent, or the user's own tools. Bound by path, bwrap then follows the link and binds where
// it leads, writable if the bind is (a writable root swapped for a link to a stand-in for
// `~/.ssh` every 12 ms: 4 and 8 of 60 commands wrote there, test/security/sandbox-mount-race.test.ts).
// Bound by a descriptor opened at the check, bwrap binds exactly the directory that was checked,
// whatever the path has become since.
//
// The descriptor is opened with O_NOFOLLOW (the last component may not be a link), then named
// by the kernel (/proc/self/fd/N): a link swapped in on the way leads to a directory whose name
// is not the path that was checked, and that directory is refused rather than bound.
//
// An editor's terminal is started by the editor, not by pith: its launcher opens the daemon's
// descriptors again through /proc/<daemon pid>/fd/N, which names the open directory itself, not
// a path (sandbox-terminal.ts).
import { closeSync, constants, openSync, readlinkSync } from "node:fs";
import { resolve } from "node:path";

/**
 * O_PATH (Node has no constant for it; the same on every Linux Node runs on): a descriptor that
 * names the directory without reading it, so a cwd the user may enter but not list is bound too.
 * With O_DIRECTORY, O_NOFOLLOW refuses a link instead of opening the link itself.
 */
const O_PATH = 0o10000000;
const OPEN_DIRECTORY = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export class PinnedDirs {
  private readonly opened: number[] = [];

  /**
   * `firstFd`: the number the child gets the first descriptor as (past its stdio and pipes);
   * `lastFd`: the highest it can be given (a launcher shell that is dash stops at 9).
   */
  constructor(
    private readonly firstFd: number,
    private readonly lastFd = Infinity,
  ) {}

  /** The open descriptors, for the spawn's stdio after `firstFd - 1`: the child gets them in this order. */
  get fds(): readonly number[] {
    return this.opened;
  }

  /**
   * bwrap's options binding `dir` onto itself by a descriptor of the directory that is at that
   * path now, with no link on the way; undefined where there is none (it was swapped for a link,
   * removed, or cannot be opened).
   */
  bind(dir: string, writable: boolean): string[] | undefined {
    const path = resolve(dir); // no trailing separator: the kernel names a directory without one
    if (this.firstFd + this.opened.length > this.lastFd) {
      throw new Error(`more directories to bind than can be handed to the sandbox here (${this.lastFd - this.firstFd + 1}): name fewer sandbox.writableRoots`);
    }
    let fd: number;
    try {
      fd = openSync(path, OPEN_DIRECTORY);
    } catch {
      return undefined;
    }
    let name: string | undefined;
    try {
      name = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // no /proc: the directory cannot be named, so it is not bound
    }
    if (name !== path) {
      closeSync(fd);
      return undefined;
    }
    this.opened.push(fd);
    return [writable ? "--bind-fd" : "--ro-bind-fd", String(this.firstFd + this.opened.length - 1), path];
  }

  /** Closes the daemon's copies (once the child has its own, or when it never starts). */
  close(): void {
    for (const fd of this.opened.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }
}
