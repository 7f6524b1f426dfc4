// Limits on what one sandboxed command may use at once, where the daemon can make cgroups.
//
// What works, measured on Linux 6.x:
//   - cgroup v1 `pids` and `memory` hierarchies, writable by root: a per-command cgroup under the
//     daemon's own, joined by the command's gate before the command starts (so every process it
//     makes is counted). pids.max makes fork fail past the limit (pids.events counts the
//     refusals); memory.limit_in_bytes (+ memsw where swap accounting exists) makes the kernel
//     kill a process of the group past the limit (memory.oom_control counts the kills). Files in
//     the private /tmp are memory too, and are charged here.
//   - RLIMIT_NPROC is no limit for root (the kernel exempts uid 0, even mapped into a user
//     namespace), and RLIMIT_AS breaks V8 and the JVM (they reserve huge ranges up front).
// So: cgroups where they can be made (root on cgroup v1, the CI and server case); elsewhere
// (a normal user, or cgroup v2 without a delegated subtree) rlimits set inside the sandbox —
// see rlimitPrefix — whose failures the command only sees as its own errors.
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxLimits } from "./sandbox.js";

const V1_ROOT = "/sys/fs/cgroup";

export type LimitHit = "processes" | "memory";

export interface CommandCgroup {
  /** puts a process (the command's gate, before it starts the command) in the cgroup */
  join(pid: number): void;
  /** the limit the command went past so far, if any */
  hit(): LimitHit | undefined;
  /** removes the cgroup once its processes are gone (retried briefly: the kernel frees it late) */
  remove(): Promise<void>;
}

/** The daemon's own cgroup in a v1 hierarchy (from /proc/self/cgroup), or undefined. */
function ownV1Path(controller: string): string | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers?.split(",").includes(controller)) return join(V1_ROOT, controller, path ?? "/");
  }
  return undefined;
}

let seq = 0;
let unusable = false;
let sweptStale = false;

/**
 * Removes the empty cgroups of daemons that are gone (killed before they could remove them;
 * their processes were ended by the reaper). Named pith-<daemon pid>-<n>; rmdir only ever
 * removes an empty cgroup, so a live one is never touched.
 */
function sweepStale(parents: string[]): void {
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^pith-(\d+)-\d+$/.exec(name);
      if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) tryRmdir(join(parent, name));
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A fresh cgroup for one command with the processes and memory limits, or undefined where the
 * daemon cannot make one (then the rlimits are the only limits). Tried once: after a failure
 * every later command uses the rlimits.
 */
export function commandCgroup(limits: SandboxLimits): CommandCgroup | undefined {
  if (unusable) return undefined;
  const pidsParent = ownV1Path("pids");
  const memParent = ownV1Path("memory");
  if (!pidsParent || !memParent) {
    unusable = true;
    return undefined;
  }
  if (!sweptStale) {
    sweptStale = true;
    sweepStale([pidsParent, memParent]);
  }
  const name = `pith-${process.pid}-${++seq}`;
  const pids = join(pidsParent, name);
  const mem = join(memParent, name);
  const made: string[] = [];
  try {
    mkdirSync(pids);
    made.push(pids);
    mkdirSync(mem);
    made.push(mem);
    writeFileSync(join(pids, "pids.max"), String(limits.processes));
    const bytes = String(limits.memoryMB * 1024 * 1024);
    writeFileSync(join(mem, "memory.limit_in_bytes"), bytes);
    try {
      // swap too, where swap accounting is on; must not be below memory.limit_in_bytes
      writeFileSync(join(mem, "memory.memsw.limit_in_bytes"), bytes);
    } catch {
      // no swap accounting
    }
  } catch {
    for (const dir of made.reverse()) tryRmdir(dir);
    unusable = true;
    return undefined;
  }
  const count = (file: string, key: string): number => {
    try {
      const m = new RegExp(`^${key} (\\d+)$`, "m").exec(readFileSync(file, "utf8"));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  };
  return {
    join(pid) {
      writeFileSync(join(pids, "cgroup.procs"), String(pid));
      writeFileSync(join(mem, "cgroup.procs"), String(pid));
    },
    hit() {
      if (count(join(mem, "memory.oom_control"), "oom_kill") > 0) return "memory";
      if (count(join(pids, "pids.events"), "max") > 0) return "processes";
      return undefined;
    },
    async remove() {
      for (let i = 0; i < 20; i++) {
        if ([pids, mem].map(tryRmdir).every(Boolean)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * Shell commands run first inside the sandbox where no cgroup limits the command: RLIMIT_NPROC
 * (in bwrap's user namespace the kernel counts the processes of that namespace, so this is a
 * per-command limit for a normal user) and RLIMIT_DATA (the heap and private writable memory of
 * each process; not the whole command, but unlike RLIMIT_AS it leaves V8's reservations alone).
 * Both hard and soft, so the command cannot raise them again.
 */
export function rlimitPrefix(limits: SandboxLimits): string {
  return `ulimit -u ${limits.processes} 2>/dev/null; ulimit -d ${limits.memoryMB * 1024} 2>/dev/null; `;
}
