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
// the daemon, however it dies.
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
import { bashResult, networkNote, type KillReason } from "./bash-result.js";
import { runInEditorTerminal } from "./bash-terminal.js";
import { findOnPath } from "./find-on-path.js";
import { throwIfAborted } from "./errors.js";
import { killProcessGroup, signalGroup } from "./process-group.js";
import { reaper, spawnTracked } from "./reaper.js";
import { SandboxRun } from "./sandbox-run.js";
import { toolEnvironment } from "./tool-env.js";
import { MAX_BYTES, MAX_LINES, formatSize } from "./truncate.js";
import { ToolError, type Tool, type ToolContext, type ToolOutput } from "./types.js";

/** Time a killed command gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 1000;
/** How long output pipes held open by leftover background jobs are waited for after the shell exits. */
const PIPE_LINGER_MS = 300;
/** Streaming updates are sent at most this often. */
const UPDATE_INTERVAL_MS = 100;

const schema = z.object({
  command: z.string().describe("The shell command to run (bash -c), in the working directory"),
  timeout: z.number().positive().optional().describe("Seconds after which the command and everything it started are killed (default: no timeout)"),
});

export type BashParams = z.infer<typeof schema>;
export type { BashDetails } from "./bash-result.js";

export const bashTool: Tool<BashParams> = {
  name: "bash",
  description:
    `Run a shell command (bash -c) in the working directory; stdout and stderr come back combined. ` +
    `Only the last ${MAX_LINES} lines or ${formatSize(MAX_BYTES)} are shown; longer output is saved to a file ` +
    `whose path is given. A non-zero exit code is reported as an error. Set timeout (seconds) for commands ` +
    `that may not finish; stdin is closed, so interactive programs will not wait for input.`,
  schema,
  execute: (params, ctx) => runBash(params, ctx),
};

let shellPath: string | undefined;

/** bash from PATH, else /bin/sh (found once). */
function shell(): string {
  return (shellPath ??= findOnPath("bash") ?? "/bin/sh");
}

async function runBash(params: BashParams, ctx: ToolContext): Promise<ToolOutput> {
  throwIfAborted(ctx.signal, "Command");
  try {
    if (!statSync(ctx.cwd).isDirectory()) throw new Error();
  } catch {
    throw new ToolError(`The working directory ${ctx.cwd} does not exist`);
  }
  const terminal = ctx.editor?.terminal;
  if (terminal) return runInEditorTerminal(params, ctx, terminal, shell());

  const maxOutput = ctx.maxOutputBytes ?? Infinity;
  const output = new OutputCollector(ctx.tempDir, MAX_BYTES, MAX_LINES, maxOutput);
  const script = `exec 2>&1; ${params.command}`;
  const sandbox = ctx.sandbox
    ? new SandboxRun(ctx.sandbox, { cwd: ctx.cwd, hidden: ctx.deniedPaths ?? [], readOnly: ctx.readOnlyPaths ?? [] }, shell(), script)
    : undefined;
  const [file, ...args] = sandbox ? [sandbox.file, ...sandbox.args] : [shell(), "-c", script];
  let child: ReturnType<typeof spawnTracked>;
  try {
    child = spawnTracked(file, args, {
      cwd: ctx.cwd,
      env: ctx.env ?? toolEnvironment(process.env),
      extraStdio: sandbox?.extraStdio,
      beforeStart: sandbox && ((pid) => sandbox.beforeStart(pid)),
    });
  } catch (err) {
    await sandbox?.finish();
    throw new ToolError(`Could not start the sandbox: ${(err as Error).message}`);
  }

  return new Promise<ToolOutput>((resolve, reject) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let pipesClosed = false;
    let killedFor: KillReason | undefined;
    let killDone = false;
    let settled = false;
    let updateTimer: NodeJS.Timeout | undefined;
    let lastUpdate = 0;
    let lingerTimer: NodeJS.Timeout | undefined;

    const sendUpdate = () => {
      updateTimer = undefined;
      lastUpdate = Date.now();
      if (!settled) ctx.onUpdate?.({ content: [{ type: "text", text: output.preview() }] });
    };
    const onData = (data: Buffer) => {
      output.push(data);
      if (output.totalBytes > maxOutput) kill("output");
      if (!ctx.onUpdate || updateTimer || settled) return;
      const wait = lastUpdate + UPDATE_INTERVAL_MS - Date.now();
      if (wait <= 0) sendUpdate();
      else updateTimer = setTimeout(sendUpdate, wait);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);

    const releasePipes = () => {
      child.stdout.destroy();
      child.stderr.destroy();
      pipesClosed = true;
    };

    const kill = (reason: NonNullable<typeof killedFor>) => {
      if (killedFor || settled || (exit && pipesClosed)) return;
      killedFor = reason;
      const pid = child.pid;
      const done = () => {
        killDone = true;
        if (pid !== undefined) reaper.untrack(pid);
        // anything that escaped the group may still hold the pipes; stop reading them
        releasePipes();
        maybeFinish();
      };
      if (pid === undefined) done();
      else void killProcessGroup(pid, KILL_GRACE_MS).then(done, done);
    };

    sandbox?.start(child, (hit) => kill(hit));
    const onAbort = () => kill("abort");
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    const timeoutTimer = params.timeout !== undefined ? setTimeout(() => kill("timeout"), params.timeout * 1000) : undefined;

    child.on("error", (err) => {
      // spawn failed (no shell, cwd vanished): there is no process to wait for
      if (settled) return;
      settled = true;
      cleanup();
      void sandbox?.finish();
      reject(new ToolError(`Could not run the command: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (!pipesClosed) lingerTimer = setTimeout(() => {
        releasePipes();
        maybeFinish();
      }, PIPE_LINGER_MS);
      maybeFinish();
    });
    child.on("close", () => {
      pipesClosed = true;
      maybeFinish();
    });

    function cleanup() {
      ctx.signal.removeEventListener("abort", onAbort);
      clearTimeout(timeoutTimer);
      clearTimeout(updateTimer);
      clearTimeout(lingerTimer);
    }

    function maybeFinish() {
      if (settled || !exit) return;
      if (killedFor ? !killDone : !pipesClosed) return;
      settled = true;
      cleanup();
      // background jobs may live on in the group: the reaper keeps it listed until they end
      if (child.pid !== undefined && !signalGroup(child.pid, 0)) reaper.untrack(child.pid);
      void Promise.all([output.finish(), sandbox?.finish()]).then(([out, hit]) => {
        const end = bashResult({ out, exit: exit!, killedFor, hit, limits: ctx.sandbox?.limits, notes: [networkNote(sandbox?.networkProblem)], timeout: params.timeout, maxOutputBytes: maxOutput });
        if (end.error) reject(end.error);
        else resolve(end.output);
      }, reject);
    }
  });
}
