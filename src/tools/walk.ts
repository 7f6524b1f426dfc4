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

/** Files and symlinks under `root`, depth first, each directory's entries in code-point order. */
export async function* walkFiles(root: string, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  // a stack of directories still to visit; pushed in reverse so they pop in sorted order
  const stack: { path: string; rel: string }[] = [{ path: root, rel: "" }];
  while (stack.length > 0) {
    if (signal?.aborted) throw abortedError();
    const dir = stack.pop()!;
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
    const subdirs: { path: string; rel: string }[] = [];
    for (const e of entries) {
      const path = join(dir.path, e.name);
      const rel = dir.rel === "" ? e.name : `${dir.rel}/${e.name}`;
      if (e.kind === "dir") subdirs.push({ path, rel });
      else yield { path, rel, kind: e.kind };
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}
