// Where a session may work. Every session that becomes live here has its cwd checked by this
// file first, wherever the cwd came from (a createSession request, a session file's header, an
// import, a database row, an editor's session/new):
//
// - never pith's home, its sessions folder or pith's runtime files, nor anything inside them: a
//   session working there would hand the model the token, every transcript and settings.json
//   (a bash that writes `sandbox: off` there unconfines the next session). A cwd that merely
//   contains pith's home ($HOME with ~/.pith) is fine: the home stays hidden inside it;
// - a cwd taken from a file rather than from the user (a session file outside pith's store, an
//   import) is never wider than a project: the user's home directory, a directory above it, or
//   `/` is refused unless the request names that cwd itself.
//
// Paths are compared as the kernel resolves them (realpath of the string the session will use,
// `..` after a link included); a cwd that does not exist is resolved as far as it goes.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isInside } from "../../tools/paths.js";
import { ErrorCode, HostError } from "../host-error.js";
import { isSessionTempName } from "./session-temp.js";

/** Where a cwd came from: what the user asked for, or what a stored session or a file says. */
export type CwdOrigin = "request" | "store" | "file";

export interface WorkspaceRules {
  /** pith's home and the sessions folder (which may lie elsewhere) */
  pithPaths: readonly string[];
  /** the user's home directory (default: os.homedir()) */
  userHome?: string;
}

function refused(reason: string, message: string, cwd: string): HostError {
  return new HostError(ErrorCode.InvalidParams, message, { reason, cwd: String(cwd).slice(0, 300) });
}

/**
 * The real path of `p` (absolute, not normalized first: `a/link/..` is where the kernel goes),
 * or, where it does not exist, its nearest existing ancestor's real path with the missing tail
 * appended; a dangling link on the way is followed by hand, as a later mkdir through it would.
 */
export function realAsFarAsItGoes(p: string, hops = 0): string {
  try {
    // the kernel's realpath: node's own JS one removes `..` before it follows links
    return realpathSync.native(p);
  } catch {
    // resolved by hand below
  }
  let link: string | undefined;
  try {
    if (lstatSync(p).isSymbolicLink()) link = readlinkSync(p);
  } catch {
    // missing: its parent is resolved
  }
  if (link !== undefined && hops < 40) return realAsFarAsItGoes(resolve(dirname(p), link), hops + 1);
  const parent = dirname(p);
  if (parent === p) return p;
  const name = basename(p);
  const base = realAsFarAsItGoes(parent, hops);
  // `..` and `.` of a missing path: the kernel would fail there; lexically is the best guess
  return name === ".." ? dirname(base) : name === "." ? base : join(base, name);
}

/** pith's own places, as real paths: its home, its sessions folder, the OS temp dir's session directories. */
function protectedPlaces(rules: WorkspaceRules): string[] {
  return [...new Set(rules.pithPaths.map((p) => realAsFarAsItGoes(resolve(p))))];
}

/** A session's own temp directory (session-temp.ts), or a path inside one. */
function inSessionTemp(real: string): boolean {
  const tmp = realAsFarAsItGoes(tmpdir());
  if (!isInside(tmp, real) || real === tmp) return false;
  return isSessionTempName(relative(tmp, real).split(sep)[0]);
}

/**
 * Refuses (-32602, data `{reason, cwd}`) a cwd a session may not work in; returns its real path.
 * `origin` "file": the cwd is a session file's header (not pith's own store), so `/`, the home
 * directory and the directories above it are refused too.
 */
export function checkWorkspace(cwd: unknown, origin: CwdOrigin, rules: WorkspaceRules): string {
  if (typeof cwd !== "string" || cwd.length === 0 || cwd.includes("\0")) throw refused("CwdNotAbsolute", `the session's header has no usable cwd (${JSON.stringify(cwd)?.slice(0, 200)})`, String(cwd));
  if (!isAbsolute(cwd)) throw refused("CwdNotAbsolute", `the session's cwd is not an absolute path: ${cwd.slice(0, 200)}`, cwd);
  // where the kernel goes (`link/..` follows the link), and where a lexical resolve goes (what
  // node's realpath and path.resolve make of it): both must be outside pith's places
  const real = realAsFarAsItGoes(cwd);
  const lexical = realAsFarAsItGoes(resolve(cwd));
  for (const place of protectedPlaces(rules)) {
    const hit = [real, lexical].find((p) => isInside(place, p));
    if (hit !== undefined) {
      throw refused("CwdInPithHome", `a session cannot work in ${cwd}: it is ${hit === place ? "" : "inside "}pith's own folder ${place} (its token, settings and transcripts)`, cwd);
    }
  }
  if (inSessionTemp(real) || inSessionTemp(lexical)) throw refused("CwdInPithHome", `a session cannot work in ${cwd}: it is inside another session's private temp directory`, cwd);
  if (origin === "file") {
    const home = realAsFarAsItGoes(resolve(rules.userHome ?? homedir()));
    if ([real, lexical].some((p) => p === "/" || isInside(p, home))) {
      throw refused(
        "CwdTooWide",
        `the session file says it works in ${cwd}, ${real === home ? "your home directory" : real === "/" ? "the whole file system" : "a directory above your home"}: pith does not take so wide a cwd from a file; open it with cwd set to the directory it should work in`,
        cwd,
      );
    }
  }
  return real;
}
