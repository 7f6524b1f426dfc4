// Process and memory limits through cgroup v2, for machines where the `pids` and `memory`
// controllers live in the unified hierarchy (cgroup-v2-only systems: current Debian, Fedora,
// Ubuntu). Without it a root daemon there has no process limit at all (the kernel exempts uid 0
// from RLIMIT_NPROC).
//
// v2's "no internal processes" rule: a cgroup (other than the root) that hands controllers to its
// children (cgroup.subtree_control) may hold no processes itself. The daemon sits in its own
// cgroup, so, like a delegated systemd service or a container runtime would, it first moves
// itself into a leaf of that cgroup (pith-<pid>-daemon), then enables pids and memory for the
// children, then makes one child per command beside its leaf:
//
//   <own cgroup>/                    subtree_control: +pids +memory, no processes
//     pith-<pid>-daemon/             the daemon (and what it starts outside the sandbox)
//     pith-<pid>-<n>/                one command: pids.max, memory.max, memory.swap.max = 0
//
// This is only done where it moves nobody else: the daemon's cgroup must be writable, offer both
// controllers (cgroup.controllers), and hold no process but the daemon's own (a service with
// Delegate=yes, `systemd-run --user --scope -p Delegate=yes pith ...`, a container whose main
// process is pith). A cgroup shared with an editor or a shell is left alone, and so is the
// host's root cgroup's subtree_control; then the rlimits are the only limits (sandbox-cgroup.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { counter, removeWhenEmpty, tryRmdir, type CommandCgroup } from "./cgroup-fs.js";
import type { SandboxLimits } from "./sandbox.js";

/** The controllers a command's cgroup needs. */
export const NEEDED = ["pids", "memory"] as const;

/** Undoes the octal escapes of /proc/self/mountinfo (a space is \040). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/**
 * The daemon's own cgroup directory in the v2 hierarchy: the `0::<path>` line of
 * /proc/self/cgroup, found under a cgroup2 mount listed in /proc/self/mountinfo. A mount's root
 * may be a subtree (a container that sees only its own part): the path is then relative to it.
 */
export function ownV2Dir(selfCgroup: string, mountinfo: string): string | undefined {
  const path = /^0::(\/.*)$/m.exec(selfCgroup)?.[1];
  if (path === undefined) return undefined;
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!right?.startsWith("cgroup2 ")) continue;
    const f = left.split(" ");
    const root = unescape(f[3] ?? "");
    const mountPoint = unescape(f[4] ?? "");
    if (root === "/") return join(mountPoint, path);
    if (path === root || path.startsWith(root + "/")) return join(mountPoint, path.slice(root.length));
  }
  return undefined;
}

/** What the daemon's cgroup looks like (read from its files). */
export interface V2State {
  dir: string;
  /** cgroup.controllers: what this cgroup may hand to its children */
  controllers: readonly string[];
  /** cgroup.subtree_control: what it hands to them now */
  subtree: readonly string[];
  /** cgroup.procs */
  procs: readonly number[];
  /** the host's root cgroup (it has no cgroup.type): exempt from the rule, and not pith's to change */
  isRoot: boolean;
}

export type V2Plan =
  /** children can be made right here */
  | { kind: "ready"; parent: string }
  /** move the daemon into `leaf`, enable the controllers in `parent`, make children there */
  | { kind: "leaf"; parent: string; leaf: string }
  | { kind: "none"; reason: string };

/** How (or why not) command cgroups can be made under the daemon's own cgroup. Pure. */
export function planV2(state: V2State, pid: number, needed: readonly string[] = NEEDED): V2Plan {
  const missing = needed.filter((c) => !state.controllers.includes(c));
  if (missing.length > 0) return { kind: "none", reason: `the ${missing.join(" and ")} controller${missing.length > 1 ? "s are" : " is"} not available in ${state.dir}` };
  if (needed.every((c) => state.subtree.includes(c))) {
    // with controllers handed down, only the root cgroup may hold the daemon as well
    return state.isRoot || !state.procs.includes(pid) ? { kind: "ready", parent: state.dir } : { kind: "none", reason: `${state.dir} holds processes and hands out controllers` };
  }
  if (state.isRoot) return { kind: "none", reason: "the daemon runs in the root cgroup, whose controllers pith does not change" };
  const others = state.procs.filter((p) => p !== pid);
  if (others.length > 0) return { kind: "none", reason: `${state.dir} is shared with other processes (${others.slice(0, 5).join(", ")}${others.length > 5 ? ", ..." : ""}), which pith does not move` };
  return { kind: "leaf", parent: state.dir, leaf: join(state.dir, `pith-${pid}-daemon`) };
}

function words(file: string): string[] {
  return readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
}

export function readV2State(dir: string): V2State {
  let isRoot = false;
  try {
    readFileSync(join(dir, "cgroup.type"));
  } catch {
    isRoot = true;
  }
  return {
    dir,
    controllers: words(join(dir, "cgroup.controllers")),
    subtree: words(join(dir, "cgroup.subtree_control")),
    procs: words(join(dir, "cgroup.procs")).map(Number),
    isRoot,
  };
}

/**
 * Carries out a plan: for "leaf", moves process `pid` into the leaf and enables the controllers
 * for the children; on any failure moves it back and removes the leaf. Returns the directory the
 * command cgroups go in, or why there is none.
 */
export function prepareV2(plan: V2Plan, pid: number, needed: readonly string[] = NEEDED): { parent: string } | { reason: string } {
  if (plan.kind === "none") return { reason: plan.reason };
  if (plan.kind === "ready") return { parent: plan.parent };
  let moved = false;
  try {
    // (left by a dead daemon whose pid this one now has: empty, so as good as new)
    mkdirSync(plan.leaf, { recursive: true });
    writeFileSync(join(plan.leaf, "cgroup.procs"), String(pid));
    moved = true;
    // EBUSY here if a process entered the parent meanwhile: then nothing is changed
    writeFileSync(join(plan.parent, "cgroup.subtree_control"), needed.map((c) => `+${c}`).join(" "));
    return { parent: plan.parent };
  } catch (err) {
    try {
      if (moved) writeFileSync(join(plan.parent, "cgroup.procs"), String(pid));
    } catch {
      // still in the leaf, which then stays: it limits nothing
    }
    tryRmdir(plan.leaf);
    return { reason: `could not set up ${plan.parent}: ${(err as Error).message}` };
  }
}

/** Makes the cgroup `name` for one command under `parent`, with its limits (throws if it cannot). */
export function v2CommandCgroup(parent: string, name: string, limits: SandboxLimits): CommandCgroup {
  const dir = join(parent, name);
  mkdirSync(dir);
  try {
    writeFileSync(join(dir, "pids.max"), String(limits.processes));
    writeFileSync(join(dir, "memory.max"), String(limits.memoryMB * 1024 * 1024));
    try {
      // memory means memory: no swapping past the limit (v1's memsw limit, the same as memory's)
      writeFileSync(join(dir, "memory.swap.max"), "0");
    } catch {
      // no swap accounting
    }
  } catch (err) {
    tryRmdir(dir);
    throw err;
  }
  return {
    join(pid) {
      writeFileSync(join(dir, "cgroup.procs"), String(pid));
    },
    procsFiles: [join(dir, "cgroup.procs")],
    hit() {
      if (counter(join(dir, "memory.events"), "oom_kill") > 0) return "memory";
      if (counter(join(dir, "pids.events"), "max") > 0) return "processes";
      return undefined;
    },
    remove: () => removeWhenEmpty([dir]),
  };
}
