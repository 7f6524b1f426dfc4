// cgroup v2 against the kernel: a stand-in daemon (test/support/cgroup-v2-child.ts) in a cgroup
// of its own moves itself into a leaf, enables the controllers for its children and puts a
// command's process in a child beside the leaf; in a cgroup shared with another process it
// changes nothing; when a process enters between the plan and the enable, the kernel refuses
// (the "no internal processes" rule) and the stand-in ends up back where it was.
//
// Needs root and a cgroup2 mount with a controller to hand out. On a cgroup-v2-only machine that
// is pids and memory themselves; on a hybrid one (Debian 12 with systemd's hybrid layout, as in
// CI) pids and memory belong to the v1 hierarchies, and the same steps are checked with a
// controller the unified hierarchy has (hugetlb), which the test enables at the hierarchy's root
// for its duration if it was off.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { NEEDED } from "../../src/tools/sandbox-cgroup-v2.js";
import { repoRoot } from "../support/tmp.js";

/** The cgroup2 mount whose root is the hierarchy's (or this cgroup namespace's) root. */
function cgroup2Mount(): string | undefined {
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const [left, right] = line.split(" - ");
    const f = left.split(" ");
    if (right?.startsWith("cgroup2 ") && f[3] === "/") return f[4];
  }
  return undefined;
}

const words = (file: string) => readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
const mount = process.getuid?.() === 0 ? cgroup2Mount() : undefined;
const offered = mount ? words(join(mount, "cgroup.controllers")) : [];
const needed = NEEDED.every((c) => offered.includes(c)) ? [...NEEDED] : offered.includes("hugetlb") ? ["hugetlb"] : offered.slice(0, 1);
const skip =
  process.getuid?.() !== 0 ? "needs root (making cgroups at the hierarchy's root)" : !mount ? "no cgroup2 mount here" : needed.length === 0 ? `the cgroup2 hierarchy at ${mount} offers no controller here` : false;

let restore: string[] = [];
let n = 0;
after(() => {
  if (restore.length > 0) writeFileSync(join(mount!, "cgroup.subtree_control"), restore.map((c) => `-${c}`).join(" "));
});

/** A fresh cgroup at the hierarchy's root with `needed` offered; removed (with what is left in it) after the test. */
function testCgroup(t: { after(fn: () => unknown): void }): string {
  const off = needed.filter((c) => !words(join(mount!, "cgroup.subtree_control")).includes(c));
  if (off.length > 0) {
    writeFileSync(join(mount!, "cgroup.subtree_control"), off.map((c) => `+${c}`).join(" "));
    restore = [...restore, ...off];
  }
  const dir = join(mount!, `pith-v2test-${process.pid}-${++n}`);
  mkdirSync(dir);
  t.after(async () => {
    for (let i = 0; i < 40; i++) {
      const inner = readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
      try {
        for (const name of inner) rmdirSync(join(dir, name));
        rmdirSync(dir);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
  return dir;
}

interface Report {
  before: string;
  after: string;
  subtree: string;
  plan: { kind: string; leaf?: string; reason?: string };
  ready: { parent?: string; reason?: string };
  command?: { controllers: string; member: string };
}

function standIn(dir: string, race = false): Report {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(repoRoot, "test/support/cgroup-v2-child.ts"), dir, needed.join(","), ...(race ? ["race"] : [])], { encoding: "utf8", timeout: 30_000, cwd: repoRoot });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

test(`alone in its cgroup, the daemon moves into its leaf and its commands get ${needed.join(", ")}`, { skip }, (t) => {
  const dir = testCgroup(t);
  const r = standIn(dir);
  assert.equal(r.plan.kind, "leaf", JSON.stringify(r));
  assert.deepEqual(r.ready, { parent: dir });
  const leaf = r.plan.leaf!.slice(dir.length);
  assert.match(leaf, /^\/pith-\d+-daemon$/);
  assert.equal(r.after, r.before + leaf, "the daemon is in its leaf");
  assert.deepEqual(r.subtree.split(" ").sort(), [...needed].sort(), "the controllers are handed to the children");
  assert.match(r.command!.member, new RegExp(`^${r.before}/pith-\\d+-1$`), "the command's process is in its own cgroup");
  for (const c of needed) assert.ok(r.command!.controllers.split(" ").includes(c), `the command's cgroup has ${c}: ${r.command!.controllers}`);
  t.diagnostic(`controllers: ${needed.join(", ")} at ${dir}`);
});

test("in a cgroup shared with another process, nothing is moved or changed", { skip }, async (t) => {
  const dir = testCgroup(t);
  const other = spawn("sleep", ["30"], { stdio: "ignore" });
  t.after(() => other.kill("SIGKILL"));
  writeFileSync(join(dir, "cgroup.procs"), String(other.pid));
  const r = standIn(dir);
  assert.equal(r.plan.kind, "none");
  assert.match(r.plan.reason!, new RegExp(`shared with other processes \\(${other.pid}\\)`));
  assert.equal(r.after, r.before);
  assert.equal(r.subtree, "");
  other.kill("SIGKILL");
  await new Promise((resolve) => other.once("exit", resolve));
});

test("a process entering between the plan and the enable: the kernel refuses, the daemon goes back, the leaf is removed", { skip }, (t) => {
  const dir = testCgroup(t);
  const r = standIn(dir, true);
  assert.equal(r.plan.kind, "leaf");
  assert.match(r.ready.reason!, /could not set up .*(EBUSY|busy)/i, JSON.stringify(r));
  assert.equal(r.after, r.before, "back in its own cgroup");
  assert.equal(r.subtree, "");
  assert.equal(existsSync(r.plan.leaf!), false, "the leaf is gone");
});
