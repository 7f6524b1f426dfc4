// bash in the editor's terminal (ACP terminal/create, then wait_for_exit, output, kill, release):
// the user watches the command live and can stop it there, and the model's result is built from
// the terminal's output and exit status as pith builds it from its own pipes (bash-result.ts).
//
// The editor runs pith's launcher (terminal-launch.ts): the same sandbox, the same environment.
// What differs from pith's own spawn:
//   - the output: the editor keeps the last outputByteLimit bytes (pith's output cap, or what one
//     ACP message can carry back if that is less) and pith reads them once the command is over,
//     so a command is not killed for printing more (pith reads no byte while it runs); what the
//     editor dropped is said in the result;
//   - abort and timeout: the editor is asked to kill the command, and pith kills the sandbox's
//     processes itself too (it knows their group); the terminal is always released;
//   - the terminal's id goes out in an update first (details.terminalId), for the client to show
//     the terminal in the tool call; the reason a command failed goes out the same way before the
//     terminal is released (the output itself is the terminal's to show).
import { OutputCollector } from "./bash-output.js";
import { messageOf } from "./fs-error-messages.js";
import { bashResult, networkNote, type KillReason } from "./bash-result.js";
import type { EditorTerminal, TerminalExit, TerminalRun } from "./editor-ports.js";
import { terminalLaunch, type TerminalLaunch } from "./terminal-launch.js";
import { bounded } from "./time-bound.js";
import { MAX_BYTES, MAX_LINES, formatSize } from "./truncate.js";
import { ToolError, type ToolContext, type ToolOutput } from "./types.js";

/** why a wait on the editor gave up */
const NO_ANSWER = "the editor did not answer";

/** bash's parameters (bash.ts's schema) */
type BashParams = { command: string; timeout?: number };

/** Time a killed command gets between SIGTERM and SIGKILL (as bash.ts's). */
const KILL_GRACE_MS = 1000;
/** How long the editor gets to report the exit of a command it was asked to kill. */
const KILLED_EXIT_MS = 10_000;
/** How long the editor gets to answer the requests after the command ended (output, release). */
const AFTER_EXIT_MS = 10_000;

export async function runInEditorTerminal(params: BashParams, ctx: ToolContext, terminal: EditorTerminal, shell: string): Promise<ToolOutput> {
  let launch: TerminalLaunch;
  try {
    launch = terminalLaunch(ctx, shell, `exec 2>&1; ${params.command}`, Math.min(ctx.maxOutputBytes ?? Infinity, terminal.maxOutputBytes ?? Infinity));
  } catch (err) {
    throw new ToolError(`Could not start the sandbox: ${(err as Error).message}`);
  }
  let run: TerminalRun;
  try {
    run = await terminal.create(launch.request);
  } catch (err) {
    await launch.sandbox?.finish();
    launch.cleanup();
    throw new ToolError(`The editor could not start the command: ${messageOf(err)}`);
  }
  try {
    return await follow(run, launch, params, ctx);
  } finally {
    await bounded(run.release(), AFTER_EXIT_MS, NO_ANSWER).catch(() => {});
    launch.cleanup();
  }
}

async function follow(run: TerminalRun, launch: TerminalLaunch, params: BashParams, ctx: ToolContext): Promise<ToolOutput> {
  const shown = (text?: string) => ctx.onUpdate?.({ content: text ? [{ type: "text", text }] : [], details: { terminalId: run.id } });
  shown();
  let killedFor: KillReason | undefined;
  let killed: (() => void) | undefined;
  const wasKilled = new Promise<void>((resolve) => (killed = resolve));
  const kill = (reason: KillReason) => {
    if (killedFor) return;
    killedFor = reason;
    killed!();
    void run.kill().catch(() => {});
    void launch.sandbox?.kill(KILL_GRACE_MS);
  };
  launch.sandbox?.start((hit) => kill(hit));
  const onAbort = () => kill("abort");
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timer = params.timeout !== undefined ? setTimeout(() => kill("timeout"), params.timeout * 1000) : undefined;

  let exit: TerminalExit;
  try {
    const exited = run.waitForExit();
    // once killed, the editor has a while to say so; after that the command counts as killed
    const gaveUp = wasKilled.then(() => delay(KILLED_EXIT_MS)).then((): TerminalExit => ({ code: null, signal: "SIGKILL" }));
    exit = await Promise.race([exited, gaveUp]);
  } catch (err) {
    kill("abort");
    await launch.sandbox?.finish();
    throw new ToolError(`The editor's terminal failed: ${messageOf(err)}`);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
    clearTimeout(timer);
  }

  const got = await bounded(run.output(), AFTER_EXIT_MS, NO_ANSWER).catch(() => ({ output: "", truncated: false }));
  const hit = await launch.sandbox?.finish();
  const output = new OutputCollector(ctx.tempDir, MAX_BYTES, MAX_LINES);
  output.push(Buffer.from(got.output, "utf8"));
  const limit = launch.request.outputByteLimit;
  const dropped = got.truncated ? `[The editor kept only the last ${limit !== undefined ? formatSize(limit) : "part"} of the output; the start is lost.]` : undefined;
  const end = bashResult({
    out: await output.finish(),
    exit,
    killedFor,
    hit,
    limits: ctx.sandbox?.limits,
    notes: [dropped, networkNote(launch.sandbox?.networkProblem)],
    timeout: params.timeout,
    maxOutputBytes: ctx.maxOutputBytes ?? Infinity,
    terminalId: run.id,
  });
  if (!end.error) return end.output;
  // the reason beside the terminal, while it is still the client's to show
  shown(end.note);
  throw end.error;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

