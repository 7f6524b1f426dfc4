// What the cgroup v1 and v2 limits (sandbox-cgroup.ts, sandbox-cgroup-v2.ts) share: a command's
// cgroup as the sandbox uses it, and small file system helpers (removing a cgroup directory,
// reading an event counter, removing the cgroups of daemons that are gone).
import { readFileSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "../os/pid-alive.js";

export type LimitHit = "processes" | "memory";

export interface CommandCgroup {
  /** puts a process (the command's gate, before it starts the command) in the cgroup */
  join(pid: number): void;
  /** the cgroup.procs files a process writes its own pid to, to join (a launcher the editor starts) */
  procsFiles: readonly string[];
  /** the limit the command went past so far, if any */
  hit(): LimitHit | undefined;
  /** removes the cgroup once its processes are gone (retried briefly: the kernel frees it late) */
  remove(): Promise<void>;
}

/** A command's cgroup is named pith-<daemon pid>-<n>; a daemon's own leaf (v2) pith-<daemon pid>-daemon. */
const OWN_NAME = /^pith-(\d+)-(?:\d+|daemon)$/;

/** rmdir; true once the directory is gone (a cgroup can only be removed once it is empty). */
export function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Removes the directories once their processes are gone (retried briefly: the kernel frees a cgroup late). */
export async function removeWhenEmpty(dirs: readonly string[]): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if (dirs.map(tryRmdir).every(Boolean)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The number on line `<key> N` of a flat-keyed cgroup file (pids.events, memory.events), 0 if absent. */
export function counter(file: string, key: string): number {
  try {
    const m = new RegExp(`^${key} (\\d+)$`, "m").exec(readFileSync(file, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Removes the empty cgroups of daemons that are gone (killed before they could remove them;
 * their processes were ended by the reaper). rmdir only ever removes an empty cgroup, so a live
 * one is never touched.
 */
export function sweepStale(parents: readonly string[]): void {
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = OWN_NAME.exec(name);
      if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) tryRmdir(join(parent, name));
    }
  }
}
