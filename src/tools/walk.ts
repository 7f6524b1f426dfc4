// Walking a directory tree for find and grep. Version-control and dependency folders are skipped
// (searching them is slow and never what the model wants); hidden files are included. Symlinks are
// reported but never followed, as ripgrep and fd do by default: following them could loop, or
// leave the working directory behind the confinement check's back.
//
// Each directory is opened without following a link (O_NOFOLLOW), checked by descriptor against
// the session's rules (confined-fs.ts) and listed through that descriptor, so a directory swapped
// for a link mid-walk is never entered. A tree of 300,000 files is walked in slices that hand
// the event loop back (time-slice.ts).
import { opendir } from "node:fs/promises";
import { join } from "node:path";
import { openDirectory, type Opened } from "./confined-fs.js";
import { abortedError } from "./fs-error-messages.js";
import { policyRoots, type PathPolicy } from "./paths.js";
import { sortInSlices, TimeSlicer } from "./time-slice.js";

/** Directory names never descended into. */
const SKIPPED_DIRS = new Set([".git", "node_modules"]);

export interface WalkEntry {
  /** absolute path */
  path: string;
  /** path relative to the walk's root, "/"-separated */
  rel: string;
  /** regular file, or a symlink (to anything; not followed) */
  kind: "file" | "symlink";
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** directories (relative to root, "/"-separated) never entered */
  skip?: ReadonlySet<string>;
  /** the session's rules every directory opened is checked against */
  policy: PathPolicy;
  /** how the root is named in errors */
  shown?: string;
}

type Pending = { path: string; rel: string; kind: "file" | "symlink" | "dir" };

/**
 * Files and symlinks under `root`, depth first, each directory's entries in code-point order
 * with subdirectories entered where they sort (ripgrep's --sort path order). The root must open
 * and pass the check (its failure is thrown); a subdirectory that does not is skipped quietly.
 */
export async function* walkFiles(root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const { signal, skip, policy } = options;
  const roots = await policyRoots(policy);
  const slicer = new TimeSlicer();
  // a stack of entries still to visit; pushed in reverse so they pop in sorted order
  const stack: Pending[] = [{ path: root, rel: "", kind: "dir" }];
  while (stack.length > 0) {
    if (signal?.aborted) throw abortedError();
    if (slicer.due()) await slicer.pause();
    const dir = stack.pop()!;
    if (dir.kind !== "dir") {
      yield { path: dir.path, rel: dir.rel, kind: dir.kind };
      continue;
    }
    if (skip?.has(dir.rel)) continue;
    let opened: Opened;
    try {
      opened = await openDirectory(dir.path, { ctx: policy, shown: dir.rel === "" ? (options.shown ?? dir.path) : dir.rel, roots }, { noFollow: dir.rel !== "" });
    } catch (err) {
      if (dir.rel === "") throw err;
      // unreadable, vanished, swapped for a link, or refused: skip it like `find` would, quietly
      continue;
    }
    const entries: { name: string; kind: Pending["kind"] }[] = [];
    try {
      for await (const d of await opendir(opened.path, { bufferSize: 256 })) {
        if (d.isDirectory()) {
          if (!SKIPPED_DIRS.has(d.name)) entries.push({ name: d.name, kind: "dir" });
        } else if (d.isFile()) entries.push({ name: d.name, kind: "file" });
        else if (d.isSymbolicLink()) entries.push({ name: d.name, kind: "symlink" });
        // sockets, FIFOs and devices are left out: opening a FIFO would block forever
      }
    } catch {
      continue;
    } finally {
      await opened.handle.close().catch(() => {});
    }
    // one directory can hold 300,000 names: sorted in slices too
    const sorted = await sortInSlices(entries, (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0), slicer);
    for (let i = sorted.length - 1; i >= 0; i--) {
      if (slicer.due()) await slicer.pause();
      const e = sorted[i];
      stack.push({ path: join(dir.path, e.name), rel: dir.rel === "" ? e.name : `${dir.rel}/${e.name}`, kind: e.kind });
    }
  }
}
