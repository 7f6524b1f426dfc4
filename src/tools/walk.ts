// Walking a directory tree for find and grep. Version-control and dependency folders are skipped
// (searching them is slow and never what the model wants); hidden files are included. Symlinks are
// reported but never followed, as ripgrep and fd do by default: following them could loop, or
// leave the working directory behind the confinement check's back.
import { opendir } from "node:fs/promises";
import { join } from "node:path";
import { abortedError } from "./errors.js";

/** Directory names never descended into. */
export const SKIPPED_DIRS = new Set([".git", "node_modules"]);

export interface WalkEntry {
  /** absolute path */
  path: string;
  /** path relative to the walk's root, "/"-separated */
  rel: string;
  /** regular file, or a symlink (to anything; not followed) */
  kind: "file" | "symlink";
}

/**
 * Files and symlinks under `root`, depth first, each directory's entries in code-point order
 * with subdirectories entered where they sort (ripgrep's --sort path order). `skip` holds
 * directories (relative to root, "/"-separated) never entered.
 */
export async function* walkFiles(root: string, signal?: AbortSignal, skip?: ReadonlySet<string>): AsyncGenerator<WalkEntry> {
  // a stack of entries still to visit; pushed in reverse so they pop in sorted order
  const stack: { path: string; rel: string; kind: "file" | "symlink" | "dir" }[] = [{ path: root, rel: "", kind: "dir" }];
  while (stack.length > 0) {
    if (signal?.aborted) throw abortedError();
    const dir = stack.pop()!;
    if (dir.kind !== "dir") {
      yield { path: dir.path, rel: dir.rel, kind: dir.kind };
      continue;
    }
    if (skip?.has(dir.rel)) continue;
    const entries: { name: string; kind: "file" | "symlink" | "dir" }[] = [];
    try {
      for await (const d of await opendir(dir.path)) {
        if (d.isDirectory()) {
          if (!SKIPPED_DIRS.has(d.name)) entries.push({ name: d.name, kind: "dir" });
        } else if (d.isFile()) entries.push({ name: d.name, kind: "file" });
        else if (d.isSymbolicLink()) entries.push({ name: d.name, kind: "symlink" });
        // sockets, FIFOs and devices are left out: opening a FIFO would block forever
      }
    } catch {
      // unreadable (permissions) or vanished while walking: skip it like `find` would, quietly
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      stack.push({ path: join(dir.path, e.name), rel: dir.rel === "" ? e.name : `${dir.rel}/${e.name}`, kind: e.kind });
    }
  }
}
