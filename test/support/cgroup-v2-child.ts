// A stand-in for the daemon in sandbox-cgroup-v2-kernel.test.ts (it moves its own process
// between cgroups, so it cannot be the test runner): enters the cgroup it is given, as a service
// manager would have put it there, then plans and prepares as the daemon does, with the
// controllers it is given. Prints one JSON line of what it saw; leaves its cgroups for the test
// to remove. Usage: cgroup-v2-child.ts <cgroup dir> <controller,...> [race]
//   race: after planning, puts another process into the cgroup (the kernel must then refuse
//   the controllers, and the child must end up back where it was).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planV2, prepareV2, readV2State } from "../../src/tools/sandbox-cgroup-v2.js";

const [dir, list, mode] = process.argv.slice(2);
const needed = list.split(",");
const own = () => /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
writeFileSync(join(dir, "cgroup.procs"), String(process.pid));
const before = own();
const plan = planV2(readV2State(dir), process.pid, needed);
let intruder: number | undefined;
if (mode === "race") {
  const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
  intruder = sleeper.pid!;
  writeFileSync(join(dir, "cgroup.procs"), String(intruder));
}
const ready = prepareV2(plan, process.pid, needed);
const report = {
  before,
  plan,
  ready,
  after: own(),
  subtree: readFileSync(join(dir, "cgroup.subtree_control"), "utf8").trim(),
  // a command's cgroup beside the leaf, joined by a process (only where the plan worked)
  command: "parent" in ready ? await commandCgroup(ready.parent) : undefined,
};
if (intruder) process.kill(intruder, "SIGKILL");
process.stdout.write(JSON.stringify(report) + "\n");

/** Makes a command's cgroup as the daemon would and puts a process in it: what it is given, where the process is. */
async function commandCgroup(parent: string): Promise<{ controllers: string; member: string | undefined }> {
  const cg = join(parent, `pith-${process.pid}-1`);
  mkdirSync(cg);
  const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
  writeFileSync(join(cg, "cgroup.procs"), String(sleeper.pid));
  const member = /^0::(.*)$/m.exec(readFileSync(`/proc/${sleeper.pid}/cgroup`, "utf8"))?.[1];
  const controllers = readFileSync(join(cg, "cgroup.controllers"), "utf8").trim();
  sleeper.kill("SIGKILL");
  await new Promise((r) => sleeper.once("exit", r));
  return { controllers, member };
}
