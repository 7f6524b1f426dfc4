// The command line an editor's terminal runs for bash (terminal-launch.ts, sandbox-terminal.ts),
// run here as an editor would run it: the environment is exactly pith's, whatever the editor
// adds; a launcher that cannot join the command's cgroup falls back to the rlimits; and a command
// whose "go" never comes (pith went away) does not run.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { findOnPath } from "../../src/tools/find-on-path.js";
import { DEFAULT_LIMITS, sandboxAvailable, type SandboxPolicy } from "../../src/tools/sandbox.js";
import { terminalLaunch, type TerminalLaunch } from "../../src/tools/terminal-launch.js";
import { poll } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor } from "./helpers.js";

const bwrap = sandboxAvailable();
const noBwrap = bwrap.ok ? false : `bubblewrap cannot run here (${bwrap.reason})`;

/** Runs the launch as an editor would: its own environment plus the request's, output combined. */
function runAsEditor(launch: TerminalLaunch, args = launch.request.args): Promise<{ code: number | null; output: string }> {
  const { request } = launch;
  const child = spawn(request.command, args, { cwd: request.cwd, env: { ...process.env, EDITOR_SECRET: "x", ...request.env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d));
  child.stderr.on("data", (d: Buffer) => (output += d));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

const policy = (processes: number): SandboxPolicy => ({ mode: "workspace-write", network: "off", writableRoots: [], limits: { ...DEFAULT_LIMITS, processes } });

test("unsandboxed: only pith's environment reaches the command, values kept byte for byte; stdin is closed", async (t) => {
  const cwd = tempDir(t);
  const odd = "it's\n$HOME `x` \\ \"q\"";
  const launch = terminalLaunch(ctxFor(cwd, { env: { PATH: process.env.PATH, ODD: odd }, tempDir: tempDir(t) }), "/bin/sh", `printf '%s|' "$ODD" "\${EDITOR_SECRET:-none}"; cat; echo end`);
  const { code, output } = await runAsEditor(launch);
  launch.cleanup();
  assert.equal(code, 0);
  assert.equal(output, `${odd}|none|end\n`);
  assert.ok(!launch.request.args.some((a) => a.includes(odd)), "no value on the command line");
});

test("sandboxed: a launcher that may not join the command's cgroup runs it under the rlimits instead", { skip: noBwrap }, async (t) => {
  const cwd = tempDir(t);
  const launch = terminalLaunch(ctxFor(cwd, { env: { PATH: process.env.PATH }, sandbox: policy(77), tempDir: tempDir(t) }), findOnPath("bash") ?? "/bin/bash", "ulimit -u");
  const args = [...launch.request.args];
  // the launcher's cgroup files: "N file..." after the private directory and env; one that cannot be written
  const at = args.indexOf("pith-launch") + 3;
  args.splice(at, 1 + Number(args[at]), "1", "/nonexistent/cgroup.procs");
  launch.sandbox!.start(() => {});
  const { code, output } = await runAsEditor(launch, args);
  await launch.sandbox!.finish();
  launch.cleanup();
  assert.equal(code, 0, output);
  assert.equal(output.trim(), "77");
});

test("sandboxed: without pith's go (pith went away), the command does not run", { skip: noBwrap }, async (t) => {
  const cwd = tempDir(t);
  const launch = terminalLaunch(ctxFor(cwd, { env: { PATH: process.env.PATH }, sandbox: policy(64), tempDir: tempDir(t) }), "/bin/sh", `touch ${cwd}/ran`);
  const ran = runAsEditor(launch);
  // bwrap has reported its pid (so the launcher holds the gate open); then pith is gone without a "go"
  const dir = launch.request.args[launch.request.args.indexOf("pith-launch") + 1];
  await poll(() => (readFileSync(`${dir}/info`, "utf8").includes("child-pid") ? true : undefined), "bwrap's pid report");
  await launch.sandbox!.finish();
  const { code, output } = await ran;
  launch.cleanup();
  assert.equal(code, 125);
  assert.match(output, /was not started/);
  assert.equal(existsSync(`${cwd}/ran`), false);
});
