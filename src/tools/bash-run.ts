// One command bash.ts started with its own pipes, watched until it is over: its output read (and
// streamed to the client at most every UPDATE_INTERVAL_MS), the command killed on abort, timeout,
// too much output or a sandbox limit, and its result built once the shell has exited and its
// pipes are let go (or, after a kill, once its whole process group is gone).
import type { CollectedOutput, OutputCollector } from "./bash-output.js";
import { bashResult, networkNote, type KillReason } from "./bash-result.js";
import { killProcessGroup, signalGroup } from "./process-group.js";
import { reaper, type spawnTracked } from "./reaper.js";
import type { LimitHit } from "./sandbox-cgroup.js";
import type { SandboxRun } from "./sandbox-run.js";
import { ToolError, type ToolContext, type ToolOutput } from "./types.js";

/** Time a killed command gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;
/** How long output pipes held open by leftover background jobs are waited for after the shell exits. */
const PIPE_LINGER_MS = 300;
/** Streaming updates are sent at most this often. */
const UPDATE_INTERVAL_MS = 100;

export type CommandChild = ReturnType<typeof spawnTracked>;

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** What the watch needs besides the child: the call, where its output goes, its sandbox if any. */
export interface CommandRunSetup {
  /** the call's timeout in seconds, if it set one */
  timeout: number | undefined;
  ctx: ToolContext;
  output: OutputCollector;
  sandbox: SandboxRun | undefined;
}

/** Watches a started command to its end; resolves with its result or rejects with its error. */
export function watchCommand(child: CommandChild, setup: CommandRunSetup): Promise<ToolOutput> {
  return new Promise<ToolOutput>((resolve, reject) => new CommandRun(child, setup, resolve, reject).watch());
}

class CommandRun {
  private exit: Exit | undefined;
  private pipesClosed = false;
  private killedFor: KillReason | undefined;
  private killDone = false;
  private settled = false;
  private updateTimer: NodeJS.Timeout | undefined;
  private lastUpdate = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private readonly maxOutput: number;

  constructor(
    private readonly child: CommandChild,
    private readonly setup: CommandRunSetup,
    private readonly resolve: (output: ToolOutput) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.maxOutput = setup.ctx.maxOutputBytes ?? Infinity;
  }

  /** Listens to the output, the limits, the abort signal, the timeout and the process's end. */
  watch(): void {
    const { child, setup } = this;
    child.stdout.on("data", this.onData);
    child.stderr.on("data", this.onData);
    setup.sandbox?.start(child, (hit) => this.kill(hit));
    setup.ctx.signal.addEventListener("abort", this.onAbort, { once: true });
    const timeout = setup.timeout;
    this.timeoutTimer = timeout !== undefined ? setTimeout(() => this.kill("timeout"), timeout * 1000) : undefined;
    child.on("error", (err) => this.failedToRun(err));
    child.on("exit", (code, signal) => this.exited(code, signal));
    child.on("close", () => {
      this.pipesClosed = true;
      this.maybeFinish();
    });
  }

  private readonly onAbort = () => this.kill("abort");

  private readonly onData = (data: Buffer) => {
    const { output, ctx } = this.setup;
    output.push(data);
    if (output.totalBytes > this.maxOutput) this.kill("output");
    if (!ctx.onUpdate || this.updateTimer || this.settled) return;
    const wait = this.lastUpdate + UPDATE_INTERVAL_MS - Date.now();
    if (wait <= 0) this.sendUpdate();
    else this.updateTimer = setTimeout(this.sendUpdate, wait);
  };

  private readonly sendUpdate = () => {
    this.updateTimer = undefined;
    this.lastUpdate = Date.now();
    if (!this.settled) this.setup.ctx.onUpdate?.({ content: [{ type: "text", text: this.setup.output.preview() }] });
  };

  private releasePipes(): void {
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.pipesClosed = true;
  }

  private kill(reason: KillReason): void {
    if (this.killedFor || this.settled || (this.exit && this.pipesClosed)) return;
    this.killedFor = reason;
    const pid = this.child.pid;
    const done = () => {
      this.killDone = true;
      if (pid !== undefined) reaper.untrack(pid);
      // anything that escaped the group may still hold the pipes; stop reading them
      this.releasePipes();
      this.maybeFinish();
    };
    if (pid === undefined) done();
    else void killProcessGroup(pid, KILL_GRACE_MS).then(done, done);
  }

  /** spawn failed (no shell, cwd vanished): there is no process to wait for */
  private failedToRun(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    void this.setup.sandbox?.finish();
    this.reject(new ToolError(`Could not run the command: ${err.message}`));
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    if (!this.pipesClosed) this.lingerTimer = setTimeout(() => {
      this.releasePipes();
      this.maybeFinish();
    }, PIPE_LINGER_MS);
    this.maybeFinish();
  }

  private cleanup(): void {
    this.setup.ctx.signal.removeEventListener("abort", this.onAbort);
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.updateTimer);
    clearTimeout(this.lingerTimer);
  }

  /** Settles once the shell has exited and its pipes are done, or the kill has run its course. */
  private maybeFinish(): void {
    if (this.settled || !this.exit) return;
    if (this.killedFor ? !this.killDone : !this.pipesClosed) return;
    this.settled = true;
    this.cleanup();
    // background jobs may live on in the group: the reaper keeps it listed until they end
    const pid = this.child.pid;
    if (pid !== undefined && !signalGroup(pid, 0)) reaper.untrack(pid);
    const exit = this.exit;
    void Promise.all([this.setup.output.finish(), this.setup.sandbox?.finish()]).then(([out, hit]) => this.settle(out, hit, exit), this.reject);
  }

  /** The command's result (or its error) from what it printed, how it ended and why it was killed. */
  private settle(out: CollectedOutput, hit: LimitHit | undefined, exit: Exit): void {
    const { sandbox, ctx, timeout } = this.setup;
    const end = bashResult({ out, exit, killedFor: this.killedFor, hit, limits: ctx.sandbox?.limits, notes: [networkNote(sandbox?.networkProblem)], timeout, maxOutputBytes: this.maxOutput });
    if (end.error) this.reject(end.error);
    else this.resolve(end.output);
  }
}
