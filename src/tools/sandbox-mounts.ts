// What a sandboxed command sees of the file system: bwrap's mount options, decided here from
// paths pith checks itself right before the command starts. bwrap follows symbolic links in a
// bind's source and destination, so a path the model or a repository can change must never reach
// it unchecked: `.pith -> ../../.pith` in the cwd made `--ro-bind <cwd>/.pith <cwd>/.pith` mount
// pith's real home (token, transcripts) over the tmpfs that hid it, and `.pith -> /proc` put the
// host's /proc in the sandbox. So:
//   - every bind is of a directory whose every component pith has just lstat'ed (no link on the
//     way); one that is a link, missing or not a directory is never bound through;
//   - a protected folder (the project's .pith) that is missing, in a writable cwd, is covered by
//     an empty read-only tmpfs, so the command cannot create it (the mount point bwrap makes for
//     it is removed once no command covers it any more); one that is a link or not a
//     directory is left as it is: followed inside the sandbox it leads only to what the sandbox
//     shows anyway (a mount cannot be placed on a link, so the command can still replace it);
//   - pith's home, its sessions and the runtime dirs are hidden after every other mount, so no
//     bind, however it resolved, can uncover them; a host file that must stay visible in a
//     hidden folder (resolv.conf under /run) is shown again after them, and a session whose cwd
//     lies inside a hidden folder (the offline demo's project) gets its own tree back, nothing
//     else of that folder.
// Between the check and bwrap's mount a concurrent process (another session's command in the
// parent directory) could still swap a checked directory for a link. Every bind bash and grep
// make is therefore of a descriptor opened at the check (sandbox-pins.ts, also in an editor's
// terminal), so bwrap binds the directory that was checked or stops; and the hidden folders stay
// hidden whatever happens, since they are mounted last (docs/security.md).
import { lstatSync, realpathSync, rmdirSync } from "node:fs";
import { dirname, isAbsolute, normalize, relative, resolve, sep } from "node:path";
import type { PinnedDirs } from "./sandbox-pins.js";
import { tmpfsSizes } from "./sandbox-tmpfs.js";

/**
 * What a sandboxed command sees of the file system besides the read-only root: paths pith
 * resolved itself, each checked again right before the command starts (mountArgs).
 */
export interface SandboxMounts {
  cwd: string;
  /**
   * The cwd's real path when the session went live. A link put on its path since (a sibling
   * session's `mv sub x; ln -s ~/.ssh sub`) would otherwise make the sandbox bind where it now
   * leads, writable: the command is refused instead.
   */
  realCwd?: string;
  /** where the command starts (default: cwd) */
  chdir?: string;
  /** hidden behind an empty tmpfs after every other mount (pith's home and sessions, runtime dirs) */
  hidden: readonly string[];
  /**
   * read-only even inside a writable cwd (the project's .pith): bound where it is a directory
   * with no link on the way; covered by an empty read-only folder where it is missing
   */
  readOnly: readonly string[];
  /** more directories to show read-only, opened and checked by the caller (grep's root) */
  shown?: readonly string[];
  /** host files shown again inside a hidden runtime dir (runtimeMounts' readOnly) */
  exposed?: readonly string[];
}

/** What the mounts depend on of the sandbox's policy (sandbox.ts SandboxPolicy). */
export interface MountPolicy {
  mode: "workspace-write" | "readonly";
  writableRoots: readonly string[];
  limits: { tmpMB: number };
}

/** What a path is right now, component by component, without following any link. */
export type PathKind = "directory" | "file" | "missing" | "link" | "other";

/**
 * Checks `path` (absolute) one component at a time with lstat, following nothing: "directory"
 * (or "file", a regular one) when no component is a link, so the path is its own real path;
 * "missing" when a component is absent (those before it checked); "link" when a component is a
 * symbolic link; "other" for anything else (a FIFO, a device, a file on the way).
 */
export function pathKind(path: string): PathKind {
  const target = normalize(path);
  if (!isAbsolute(target)) return "other";
  const parts = target.split(sep).filter(Boolean);
  let at: string = sep;
  for (let i = 0; i < parts.length; i++) {
    at = at === sep ? sep + parts[i] : at + sep + parts[i];
    let info;
    try {
      info = lstatSync(at);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "other";
    }
    if (info.isSymbolicLink()) return "link";
    if (info.isFile() && i === parts.length - 1) return "file";
    if (!info.isDirectory()) return "other";
  }
  return "directory";
}

// paths.ts's isInside, not imported: paths.ts reaches this file through types.ts and sandbox.ts
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function strictlyInside(parent: string, child: string): boolean {
  return parent !== child && isInside(parent, child);
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}

/** One mount: where it applies and bwrap's options for it. */
export interface MountOp {
  path: string;
  args: string[];
}

/** Only placeholders are remounted read-only: what marks them in bwrap's arguments. */
const PLACEHOLDER = "--remount-ro";

/** Placeholder mount points (a missing .pith) and how many commands about to run or running cover them. */
const placeholders = new Map<string, number>();

/**
 * Once a command whose arguments these are has ended (or never started): the mount points bwrap
 * made for its placeholders are removed where no other command of this daemon still covers them,
 * so a project is left as it was. Only an empty directory goes (rmdir); one that is no longer
 * that (a folder the user made and filled meanwhile, a link) stays.
 */
export function releasePlaceholders(args: readonly string[]): void {
  for (let i = 0; i < args.length - 1; i++) {
    const p = args[i + 1];
    // only what mountArgs counted: the fixed `--remount-ro /dev` is the same option, not a placeholder
    if (args[i] !== PLACEHOLDER || !placeholders.has(p)) continue;
    const left = (placeholders.get(p) ?? 1) - 1;
    if (left > 0) {
      placeholders.set(p, left);
      continue;
    }
    placeholders.delete(p);
    if (pathKind(p) !== "directory") continue;
    try {
      rmdirSync(p);
    } catch {
      // not empty, or already gone: left as it is
    }
  }
}

/** Deepest last, equal depths in the order given (a stable sort): what is mounted later wins. */
function byDepth(ops: MountOp[]): MountOp[] {
  return [...ops].sort((a, b) => depth(a.path) - depth(b.path));
}

/** The working directory to bind: its real path now, which must be a directory. */
function realCwd(cwd: string): string {
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch (err) {
    throw new Error(`the working directory ${cwd} cannot be reached: ${(err as Error).message}`);
  }
  if (pathKind(real) !== "directory") throw new Error(`the working directory ${cwd} is not a directory`);
  return real;
}

/** bwrap's options binding a checked directory onto itself: by descriptor where `pins` is given. */
function binder(pins: PinnedDirs | undefined): (dir: string, writable: boolean) => string[] | undefined {
  return pins ? (dir, writable) => pins.bind(dir, writable) : (dir, writable) => [writable ? "--bind" : "--ro-bind", dir, dir];
}

/** The same, for a directory that must be bound: one that changed under the check stops the command. */
function requiredBinder(bind: ReturnType<typeof binder>): (dir: string, writable: boolean) => string[] {
  return (dir, writable) => {
    const args = bind(dir, writable);
    if (!args) throw new Error(`${dir} changed while the sandbox was being set up (it is no longer the directory that was checked)`);
    return args;
  };
}

/**
 * The mounts after the read-only root, in the order bwrap must apply them. With `pins`, each
 * bind is of a descriptor opened now (the caller passes `pins.fds` to bwrap and closes them once
 * it has started). Throws when the cwd is not a directory, lies inside a hidden folder other
 * than as itself unchanged, or it or a read-only folder changes under the check.
 */
export function mountArgs(policy: MountPolicy, mounts: SandboxMounts, pins?: PinnedDirs): MountOp[] {
  const bind = binder(pins);
  const mustBind = requiredBinder(bind);
  const writable = policy.mode === "workspace-write";
  const cwd = realCwd(mounts.cwd);
  if (mounts.realCwd !== undefined && cwd !== mounts.realCwd) {
    throw new Error(`the working directory ${mounts.cwd} now leads to ${cwd}, not to ${mounts.realCwd} as when the session started (a link was put on its path); start a new session to work there`);
  }
  const hidden = hiddenDirs(mounts.hidden);
  const hiddenOps = hidden.map((p) => ({ path: p, args: ["--tmpfs", p] }));
  const around = hidden.filter((h) => isInside(h, cwd));
  // the cwd itself hidden: never shown; a cwd inside a hidden folder keeps its own tree, bound
  // after the folder is hidden, only as the session named it, with no link on the way (not a
  // path a command redirected since)
  if (around.some((h) => h === cwd) || (around.length > 0 && cwd !== resolve(mounts.cwd))) {
    throw new Error(`the working directory ${mounts.cwd} lies inside ${around[0]}, which the sandbox hides`);
  }
  const tmpBytes = String(tmpfsSizes(policy.limits.tmpMB).tmp);
  // the private /tmp first: a cwd or a shown directory under the host's /tmp is bound after it
  const ops: MountOp[] = [{ path: "/tmp", args: ["--size", tmpBytes, "--tmpfs", "/tmp"] }];
  if (writable) {
    // checked when the session started (tool-policy.ts) and again now: one that became a link or
    // went away is left out rather than bound through
    for (const root of policy.writableRoots) {
      const args = pathKind(root) === "directory" ? bind(root, true) : undefined;
      if (args) ops.push({ path: root, args });
    }
  }
  ops.push({ path: cwd, args: mustBind(cwd, writable) });
  for (const p of mounts.readOnly) {
    const kind = pathKind(p);
    if (kind === "directory") ops.push({ path: p, args: mustBind(p, false) });
    // missing in a writable cwd: an empty read-only folder, so nothing can be made there (bwrap
    // makes its mount point in the project: removed again once no command needs it)
    else if (kind === "missing" && writable && strictlyInside(cwd, p) && pathKind(dirname(p)) === "directory") {
      ops.push({ path: p, args: ["--tmpfs", p, PLACEHOLDER, p] });
      placeholders.set(p, (placeholders.get(p) ?? 0) + 1);
    }
  }
  // directories the caller opened and checked (grep's root), where the cwd does not show them
  for (const p of mounts.shown ?? []) {
    const args = !isInside(cwd, p) && pathKind(p) === "directory" ? bind(p, false) : undefined;
    if (args) ops.push({ path: p, args });
  }

  const ownTree = around.length > 0 ? ops.filter((o) => isInside(cwd, o.path)) : [];
  const out = [...byDepth(ops.filter((o) => !ownTree.includes(o))), ...byDepth(hiddenOps)];
  out.push(...byDepth(ownTree), ...byDepth(hiddenOps.filter((o) => ownTree.length > 0 && strictlyInside(cwd, o.path))));
  // host files shown again inside a hidden runtime dir (resolv.conf under /run), each a regular
  // file with no link on the way (the caller names them: runtimeMounts' `readOnly`)
  for (const p of mounts.exposed ?? []) if (hidden.some((h) => strictlyInside(h, p)) && pathKind(p) === "file") out.push({ path: p, args: ["--ro-bind", p, p] });
  return out;
}

/**
 * The folders to hide, as they are now: nothing to hide where nothing exists (and bwrap cannot
 * make a mount point on a read-only root); one that has become a link is hidden where it leads
 * (bwrap's tmpfs follows it), which is where its files are.
 */
function hiddenDirs(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const kind = pathKind(p);
    if (kind === "directory") out.add(normalize(p));
    else if (kind === "link") {
      try {
        const real = realpathSync(p);
        if (pathKind(real) === "directory") out.add(real);
      } catch {
        // a dangling link: nothing there to hide
      }
    }
  }
  return [...out];
}

