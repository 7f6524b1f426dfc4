// cgroup v2 limits (sandbox-cgroup-v2.ts): where the daemon's own cgroup is found, when pith may
// make command cgroups under it (never moving another process, never changing the host's root
// cgroup), and what it writes. The files are plain files in a temp dir here; the kernel's side
// (the daemon moved into its leaf, the controllers enabled, a refused enable undone) is checked
// by sandbox-cgroup-v2-kernel.test.ts where a cgroup2 mount can be used.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ownV2Dir, planV2, prepareV2, readV2State, v2CommandCgroup, type V2State } from "../../src/tools/sandbox-cgroup-v2.js";
import { tempDir } from "../support/tmp.js";

const V2_ONLY = "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
const HYBRID = [
  "30 24 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755",
  "31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate",
  "32 30 0:28 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,pids",
].join("\n");

test("the daemon's own v2 cgroup: v2-only, hybrid, a container's subtree mount, an escaped mount point; none without 0:: or a cgroup2 mount", () => {
  assert.equal(ownV2Dir("0::/system.slice/pith.service\n", V2_ONLY), "/sys/fs/cgroup/system.slice/pith.service");
  assert.equal(ownV2Dir("8:pids:/\n4:memory:/x\n0::/user.slice/u.scope\n", HYBRID), "/sys/fs/cgroup/unified/user.slice/u.scope");
  const container = "40 39 0:30 /system.slice/docker-ab.scope /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n";
  assert.equal(ownV2Dir("0::/system.slice/docker-ab.scope/app\n", container), "/sys/fs/cgroup/app");
  assert.equal(ownV2Dir("0::/elsewhere\n", container), undefined, "not under the mount's root");
  assert.equal(ownV2Dir("0::/a\n", "41 1 0:30 / /mnt/cg\\040two rw - cgroup2 none rw\n"), "/mnt/cg two/a");
  assert.equal(ownV2Dir("8:pids:/\n", V2_ONLY), undefined);
  assert.equal(ownV2Dir("0::/a\n", "32 30 0:28 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"), undefined);
});

const PID = 4242;
const state = (over: Partial<V2State>): V2State => ({ dir: "/cg/pith.service", controllers: ["cpu", "memory", "pids"], subtree: [], procs: [PID], isRoot: false, ...over });

test("the plan: a leaf for the daemon only where it is alone in its cgroup and both controllers are offered", () => {
  assert.deepEqual(planV2(state({}), PID), { kind: "leaf", parent: "/cg/pith.service", leaf: "/cg/pith.service/pith-4242-daemon" });
  const missing = planV2(state({ controllers: ["hugetlb"] }), PID);
  assert.equal(missing.kind, "none");
  assert.match((missing as { reason: string }).reason, /the pids and memory controllers are not available in \/cg\/pith\.service/);
  assert.match((planV2(state({ controllers: ["pids"] }), PID) as { reason: string }).reason, /the memory controller is not available/);
  // an editor that started pith shares its cgroup: moving the editor is not pith's to do
  const shared = planV2(state({ procs: [100, PID, 101] }), PID);
  assert.equal(shared.kind, "none");
  assert.match((shared as { reason: string }).reason, /shared with other processes \(100, 101\), which pith does not move/);
  // the host's root cgroup: used as it is, never changed
  assert.deepEqual(planV2(state({ dir: "/cg", isRoot: true, subtree: ["memory", "pids"], procs: [1, PID] }), PID), { kind: "ready", parent: "/cg" });
  assert.match((planV2(state({ dir: "/cg", isRoot: true, procs: [PID] }), PID) as { reason: string }).reason, /root cgroup, whose controllers pith does not change/);
});

function fakeCgroup(t: Parameters<typeof tempDir>[0], files: Record<string, string>): string {
  const dir = join(tempDir(t), "pith.service");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test("carrying out a leaf plan: the daemon is written to its leaf, then +pids +memory to the parent; a refusal moves it back", (t) => {
  const dir = fakeCgroup(t, { "cgroup.type": "domain\n", "cgroup.controllers": "cpu memory pids\n", "cgroup.subtree_control": "\n", "cgroup.procs": `${PID}\n` });
  const plan = planV2(readV2State(dir), PID);
  assert.equal(plan.kind, "leaf");
  assert.deepEqual(prepareV2(plan, PID), { parent: dir });
  assert.equal(readFileSync(join(dir, `pith-${PID}-daemon`, "cgroup.procs"), "utf8"), String(PID));
  assert.equal(readFileSync(join(dir, "cgroup.subtree_control"), "utf8"), "+pids +memory");

  // the kernel refuses the enable (EBUSY: a process entered meanwhile); here: it cannot be written
  const busy = fakeCgroup(t, { "cgroup.type": "domain\n", "cgroup.controllers": "memory pids\n", "cgroup.procs": `${PID}\n` });
  mkdirSync(join(busy, "cgroup.subtree_control"));
  const failed = prepareV2({ kind: "leaf", parent: busy, leaf: join(busy, `pith-${PID}-daemon`) }, PID);
  assert.match((failed as { reason: string }).reason, /could not set up/);
  assert.equal(readFileSync(join(busy, "cgroup.procs"), "utf8"), String(PID), "moved back into its own cgroup");
});

test("a command's v2 cgroup: pids.max, memory.max, no swap; memory.events and pids.events tell which limit was hit", (t) => {
  const parent = fakeCgroup(t, {});
  const cg = v2CommandCgroup(parent, "pith-1-1", { processes: 64, memoryMB: 256, tmpMB: 64 });
  const dir = join(parent, "pith-1-1");
  assert.equal(readFileSync(join(dir, "pids.max"), "utf8"), "64");
  assert.equal(readFileSync(join(dir, "memory.max"), "utf8"), String(256 * 1024 * 1024));
  assert.equal(readFileSync(join(dir, "memory.swap.max"), "utf8"), "0");
  cg.join(777);
  assert.equal(readFileSync(join(dir, "cgroup.procs"), "utf8"), "777");
  assert.equal(cg.hit(), undefined);
  writeFileSync(join(dir, "pids.events"), "max 3\n");
  assert.equal(cg.hit(), "processes");
  writeFileSync(join(dir, "memory.events"), "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n");
  assert.equal(cg.hit(), "memory");
});
