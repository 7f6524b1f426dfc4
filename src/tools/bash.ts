// bash: run a shell command in the working directory and return its combined output.
//
// The command runs as `bash -c` (or /bin/sh where bash is missing) in its own process group, so
// an abort or timeout can kill it and everything it started. stdout and stderr share one pipe
// (`exec 2>&1` ahead of the command), which keeps their lines in the order they were written.
// stdin is closed: a command waiting for input gets end-of-file instead of hanging.
//
// Outcomes: exit 0 -> result; non-zero exit, timeout or death by a signal -> ToolError (an error
// result for the model, with the output); abort -> plain Error saying "Command aborted".
// Background jobs the command leaves behind (`server &`) are not killed on a normal exit; if they
// still hold the output pipe, it is let go shortly after the shell exits. (In the sandbox they
// end with the command: its pid namespace ends when the shell does.)
//
// The process gets ctx.env (the daemon's environment without pith's secrets) and, with
// ctx.sandbox, runs inside bubblewrap (see sandbox.ts, sandbox-run.ts). Every process group
// started here is registered with the reaper before it starts (spawnTracked), so none outlives
// the daemon, however it dies. Once started, the command is watched to its end (output, kills,
// result) by bash-run.ts.
//
// Limits: output past ctx.maxOutputBytes kills the command (the daemon reads every byte, and a
// command printing forever would otherwise fill the disk with its spill file); in the sandbox, a
// command that goes past its processes or memory limit (where a cgroup can count them) is killed
// too. Each says which setting to raise.
//
// With an editor that lends its terminal (ACP terminal/create), the editor runs the command, in
// the same sandbox and environment, so the user can watch and stop it there: bash-terminal.ts.
import { statSync } from "node:fs";
import { z } from "zod";
import { OutputCollector } from "./bash-output.js";
import { watchCommand, type CommandChild } from "./bash-run.js";
import { runInEditorTerminal } from "./bash-terminal.js";
import { findOnPath } from "./find-on-path.js";
import { throwIfAborted } from "./fs-error-messages.js";
import { spawnTracked } from "./reaper.js";
import { SandboxRun } from "./sandbox-run.js";
import { sessionMounts } from "./sandbox.js";
import { toolEnvironment } from "./tool-env.js";
import { MAX_BYTES, MAX_LINES, formatSize } from "./truncate.js";
import { ToolError, type ToolContext, type ToolOutput } from "./types.js";
import { zodTool } from "./zod-tool.js";

const schema = z.object({
  command: z.string().describe("The shell command to run (bash -c), in the working directory"),
  timeout: z.number().positive().optional().describe("Seconds after which the command and everything it started are killed (default: no timeout)"),
});

export type BashParams = z.infer<typeof schema>;
export type { BashDetails } from "./bash-result.js";

export const bashTool = zodTool<BashParams>({
  name: "bash",
  effects: "run",
  description:
    `Run a shell command (bash -c) in the working directory; stdout and stderr come back combined. ` +
    `Only the last ${MAX_LINES} lines or ${formatSize(MAX_BYTES)} are shown; longer output is saved to a file ` +
    `whose path is given. A non-zero exit code is reported as an error. Set timeout (seconds) for commands ` +
    `that may not finish; stdin is closed, so interactive programs will not wait for input.`,
  schema,
  execute: (params, ctx) => runBash(params, ctx),
});

let shellPath: string | undefined;

/** bash from PATH, else /bin/sh (found once). */
function shell(): string {
  return (shellPath ??= findOnPath("bash") ?? "/bin/sh");
}

async function runBash(params: BashParams, ctx: ToolContext): Promise<ToolOutput> {
  throwIfAborted(ctx.signal, "Command");
  requireDirectory(ctx.cwd);
  const terminal = ctx.editor?.terminal;
  if (terminal) return runInEditorTerminal(params, ctx, terminal, shell());

  const output = new OutputCollector(ctx.tempDir, MAX_BYTES, MAX_LINES, ctx.maxOutputBytes ?? Infinity);
  const script = `exec 2>&1; ${params.command}`;
  let sandbox: SandboxRun | undefined;
  try {
    sandbox = sandboxFor(ctx, script);
  } catch (err) {
    throw new ToolError(`Could not start the sandbox: ${(err as Error).message}`);
  }
  let child: CommandChild;
  try {
    child = spawnCommand(ctx, sandbox, script);
  } catch (err) {
    await sandbox?.finish();
    throw new ToolError(`Could not start the sandbox: ${(err as Error).message}`);
  }
  return watchCommand(child, { timeout: params.timeout, ctx, output, sandbox });
}

function requireDirectory(cwd: string): void {
  try {
    if (!statSync(cwd).isDirectory()) throw new Error();
  } catch {
    throw new ToolError(`The working directory ${cwd} does not exist`);
  }
}

/** The bubblewrap run the script goes through, where ctx asks for a sandbox. */
function sandboxFor(ctx: ToolContext, script: string): SandboxRun | undefined {
  return ctx.sandbox
    ? new SandboxRun(ctx.sandbox, sessionMounts(ctx), shell(), script)
    : undefined;
}

/** Starts the script (in the sandbox, if any) in its own process group, listed with the reaper. */
function spawnCommand(ctx: ToolContext, sandbox: SandboxRun | undefined, script: string): CommandChild {
  const [file, ...args] = sandbox ? [sandbox.file, ...sandbox.args] : [shell(), "-c", script];
  return spawnTracked(file, args, {
    cwd: ctx.cwd,
    env: ctx.env ?? toolEnvironment(process.env),
    extraStdio: sandbox?.extraStdio,
    passFds: sandbox?.passFds,
    beforeStart: sandbox && ((pid) => sandbox.beforeStart(pid)),
  });
}
