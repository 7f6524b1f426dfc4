// Where a tool's path argument points, and whether the tool may touch it. Every path is resolved
// against the session's cwd; unless the session allows it, the path's real location (symlinks
// resolved) must lie inside the real cwd. Checking real paths matters: `link -> /etc` inside the
// cwd would otherwise let `link/passwd` through, and a dangling `link -> /outside/new` would let a
// write create a file outside.
//
// Whatever the session allows, pith's own files are off limits: nothing under pith's home (the
// token, settings, every session's transcript) may be read or written, and the project's `.pith`
// folder (its settings) may be read but not written. A session whose cwd lies inside pith's home
// (the offline demo's project) keeps its own tree.
//
// `~` and `~/...` mean the user's home directory (models write them expecting a shell's meaning);
// the result is then confined like any other path, so without allowOutsideCwd they are refused
// with a clear message instead of silently creating a directory named "~" in the cwd.
//
// This check runs on paths, before anything is opened, so its answer can be stale by the time a
// tool opens the file (another session's bash can swap a symlink in between). It is the first
// line, for clear messages; confined-fs.ts checks what was actually opened against the same rules.
import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError, type ToolContext } from "./types.js";

export interface ResolvedPath {
  /** the argument resolved against cwd (symlinks kept): what messages show and tools open */
  absolute: string;
  /** the same location with every symlink resolved (as far as the path exists) */
  real: string;
}

export type PathAccess = "read" | "write";

export type PathPolicy = Pick<ToolContext, "cwd" | "realCwd" | "allowOutsideCwd" | "deniedPaths" | "readOnlyPaths" | "tempDir">;

/** Resolves `input` against ctx.cwd and enforces confinement; throws ToolError on an escape. */
export async function resolvePath(input: string, ctx: PathPolicy, access: PathAccess = "read"): Promise<ResolvedPath> {
  if (input.includes("\0")) throw new ToolError(`Invalid path ${JSON.stringify(input)}: contains a NUL character`);
  const absolute = resolve(ctx.cwd, expandHome(input));
  const real = await realpathLoose(absolute);
  const refused = refusal(real, await policyRoots(ctx), ctx, access, { shown: input, absolute });
  if (refused !== undefined) throw new ToolError(refused);
  return { absolute, real };
}

/** The real locations the rules compare against, resolved once per check. */
export interface PolicyRoots {
  realCwd: string;
  /** the real spill directory (ctx.tempDir), when set and present: readable, never writable */
  realTemp?: string;
}

export async function policyRoots(ctx: PathPolicy): Promise<PolicyRoots> {
  // the session's, fixed when it went live: a link put on the cwd's path since leads nowhere new
  const realCwd = ctx.realCwd ?? (await realpathLoose(resolve(ctx.cwd)));
  const realTemp = ctx.tempDir === undefined ? undefined : await realpath(ctx.tempDir).catch(() => undefined);
  return { realCwd, realTemp };
}

/**
 * Why a tool may not touch the real path `real`, as a message for the model; undefined when it
 * may. The one statement of the rules, for the path check before opening (resolvePath) and for
 * the check of what was actually opened (confined-fs.ts).
 */
export function refusal(real: string, roots: PolicyRoots, ctx: PathPolicy, access: PathAccess, name: { shown: string; absolute?: string }): string | undefined {
  const quoted = JSON.stringify(name.shown);
  // full outputs of truncated results are kept here for the model to read back
  if (access === "read" && roots.realTemp !== undefined && isInside(roots.realTemp, real)) return undefined;
  const denied = deniedRoot(real, roots.realCwd, ctx.deniedPaths);
  if (denied !== undefined) return `Path ${quoted} is inside pith's own folder (${denied}); tools may not touch it.`;
  if (access === "write") {
    const readOnly = ctx.readOnlyPaths?.find((p) => isInside(p, real));
    if (readOnly !== undefined) return `Path ${quoted} is inside ${readOnly}, which holds pith's settings for this project; tools may not write there.`;
  }
  if (!ctx.allowOutsideCwd && !isInside(roots.realCwd, real)) {
    return (
      `Path ${quoted} is outside the working directory (${ctx.cwd})` +
      (real !== name.absolute ? ` (it resolves to ${real})` : "") +
      `; only paths inside it are allowed.`
    );
  }
  return undefined;
}

/**
 * The denied root `real` lies in, if any. A cwd inside a denied root keeps its own subtree (the
 * demo project inside pith's home), its `.pith` being read-only like any project's.
 */
export function deniedRoot(real: string, realCwd: string, denied: readonly string[] | undefined): string | undefined {
  return denied?.find((d) => isInside(d, real) && !(isInside(d, realCwd) && isInside(realCwd, real)));
}

/** Denied folders (pith's home) under a walk's root, relative to it and "/"-separated: a walk never enters them. */
export function deniedInside(realRoot: string, denied: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const d of denied ?? []) if (d !== realRoot && isInside(realRoot, d)) out.push(relative(realRoot, d).split(sep).join("/"));
  return out;
}

/** `~` -> home, `~/x` -> home/x; anything else (including `~user`) unchanged. */
export function expandHome(p: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/")) return join(homedir(), p.slice(2));
  return p;
}

/** True when `child` is `parent` or lies below it (both absolute, normalized). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * realpath that also works for paths that do not exist yet: the nearest existing ancestor is
 * resolved and the missing tail appended. A dangling symlink on the way is followed by hand
 * (its target is where a write through it would land).
 */
async function realpathLoose(p: string, hops = 0): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ToolError(`Too many levels of symbolic links: ${p}`);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  const info = await lstat(p).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    if (hops > 40) throw new ToolError(`Too many levels of symbolic links: ${p}`);
    // the link replaced or removed since lstat (another process swapping it): say so, not EINVAL
    const target = await readlink(p).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "EINVAL" || err.code === "ENOENT") throw new ToolError(`${p} changed while it was being looked up (a link replaced or removed meanwhile); try again`);
      throw err;
    });
    return realpathLoose(resolve(dirname(p), target), hops + 1);
  }
  const parent = dirname(p);
  if (parent === p) return p;
  return join(await realpathLoose(parent, hops), basename(p));
}
