// Limits on what one sandboxed command may use at once, where the daemon can make cgroups.
//
// What works, measured on Linux 6.x:
//   - cgroup v1 `pids` and `memory` hierarchies, writable by root: a per-command cgroup under the
//     daemon's own, joined by the command's gate before the command starts (so every process it
//     makes is counted). pids.max makes fork fail past the limit (pids.events counts the
//     refusals); memory.limit_in_bytes (+ memsw where swap accounting exists) makes the kernel
//     kill a process of the group past the limit (memory.oom_control counts the kills). Files in
//     the private /tmp are memory too, and are charged here.
//   - cgroup v2, where the daemon's own cgroup can hand out pids and memory: the same per command
//     (pids.max, memory.max; pids.events and memory.events count) — see sandbox-cgroup-v2.ts for
//     when pith may do that.
//   - RLIMIT_NPROC is no limit for root (the kernel exempts uid 0, even mapped into a user
//     namespace), and RLIMIT_AS breaks V8 and the JVM (they reserve huge ranges up front).
// So: cgroups where they can be made (root on cgroup v1, the CI and server case; a delegated v2
// cgroup, for root or a user); elsewhere rlimits set inside the sandbox — see rlimitPrefix —
// whose failures the command only sees as its own errors.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { counter, removeWhenEmpty, sweepStale, tryRmdir, type CommandCgroup, type LimitHit } from "./cgroup-fs.js";
import { ownV2Dir, planV2, prepareV2, readV2State, v2CommandCgroup } from "./sandbox-cgroup-v2.js";
import type { SandboxLimits } from "./sandbox.js";

const V1_ROOT = "/sys/fs/cgroup";

export type { CommandCgroup, LimitHit } from "./cgroup-fs.js";

/** The daemon's own cgroup in a v1 hierarchy (from /proc/self/cgroup), or undefined. */
function ownV1Path(selfCgroup: string, controller: string): string | undefined {
  for (const line of selfCgroup.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers?.split(",").includes(controller)) return join(V1_ROOT, controller, path ?? "/");
  }
  return undefined;
}

/** Where command cgroups go: the v1 pids and memory hierarchies, or one v2 directory. */
type Parents = { v1: { pids: string; mem: string } } | { v2: string };


let parents: Parents | undefined;
let seq = 0;
let unusable = false;

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** v1 where the daemon has its pids and memory hierarchies (a hybrid system); else v2 if it can be set up. */
function choose(): Parents | undefined {
  const self = read("/proc/self/cgroup");
  const pids = ownV1Path(self, "pids");
  const mem = ownV1Path(self, "memory");
  if (pids && mem) {
    return { v1: { pids, mem } };
  }
  const dir = ownV2Dir(self, read("/proc/self/mountinfo"));
  if (!dir) {
    return undefined;
  }
  let ready: { parent: string } | { reason: string };
  try {
    ready = prepareV2(planV2(readV2State(dir), process.pid), process.pid);
  } catch (err) {
    ready = { reason: `cannot read ${dir}: ${(err as Error).message}` };
  }
  if ("reason" in ready) {
    return undefined;
  }
  return { v2: ready.parent };
}

/**
 * A fresh cgroup for one command with the processes and memory limits, or undefined where the
 * daemon cannot make one (then the rlimits are the only limits). Tried once: after a failure
 * every later command uses the rlimits.
 */
export function commandCgroup(limits: SandboxLimits): CommandCgroup | undefined {
  if (unusable) return undefined;
  if (!parents) {
    parents = choose();
    if (!parents) {
      unusable = true;
      return undefined;
    }
    sweepStale("v1" in parents ? [parents.v1.pids, parents.v1.mem] : [parents.v2]);
  }
  const name = `pith-${process.pid}-${++seq}`;
  try {
    return "v1" in parents ? v1CommandCgroup(parents.v1, name, limits) : v2CommandCgroup(parents.v2, name, limits);
  } catch (err) {
    unusable = true;
    return undefined;
  }
}

function v1CommandCgroup(parent: { pids: string; mem: string }, name: string, limits: SandboxLimits): CommandCgroup {
  const pids = join(parent.pids, name);
  const mem = join(parent.mem, name);
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
  } catch (err) {
    for (const dir of made.reverse()) tryRmdir(dir);
    throw err;
  }
  return {
    join(pid) {
      writeFileSync(join(pids, "cgroup.procs"), String(pid));
      writeFileSync(join(mem, "cgroup.procs"), String(pid));
    },
    procsFiles: [join(pids, "cgroup.procs"), join(mem, "cgroup.procs")],
    hit() {
      if (counter(join(mem, "memory.oom_control"), "oom_kill") > 0) return "memory";
      if (counter(join(pids, "pids.events"), "max") > 0) return "processes";
      return undefined;
    },
    remove: () => removeWhenEmpty([pids, mem]),
  };
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

/** How often a running command's cgroup is checked for a limit it hit. */
const WATCH_MS = 100;

/**
 * Checks a command's cgroup until the first limit it hits, then calls `onHit` once and stops.
 * The timer does not keep the process alive; clear it when the command ends.
 */
export function watchCgroup(cgroup: CommandCgroup, onHit: (hit: LimitHit) => void): NodeJS.Timeout {
  const timer: NodeJS.Timeout = setInterval(() => {
    const hit = cgroup.hit();
    if (!hit) return;
    clearInterval(timer);
    onHit(hit);
  }, WATCH_MS);
  timer.unref();
  return timer;
}
