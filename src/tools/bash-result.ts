// How a finished bash command reads to the model, wherever it ran (pith's own process or the
// editor's terminal): the output's tail, the notes (sandbox network missing, output cut by the
// editor), and why it failed — a non-zero exit, a signal, a timeout, a limit, an abort.
import type { CollectedOutput } from "./bash-output.js";
import { abortedError } from "./fs-error-messages.js";
import type { LimitHit } from "./sandbox-cgroup.js";
import type { SandboxLimits } from "./sandbox.js";
import { ToolError, type ToolOutput } from "./types.js";

export interface BashDetails {
  exitCode: number | null;
  signal?: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  fullOutputPath?: string;
  /** the editor's terminal the command ran in (ACP), for its client to show */
  terminalId?: string;
}

export type KillReason = "abort" | "timeout" | "output" | LimitHit;

export interface BashEnd {
  out: CollectedOutput;
  exit: { code: number | null; signal: string | null };
  /** why pith killed the command, if it did */
  killedFor?: KillReason;
  /** the sandbox's limit the command went past (the kernel may have killed a process before pith saw it) */
  hit?: LimitHit;
  limits?: Pick<SandboxLimits, "processes" | "memoryMB">;
  /** notes shown after the output (the sandbox's network could not be started, ...) */
  notes: (string | undefined)[];
  /** the timeout the call asked for, in seconds */
  timeout?: number;
  maxOutputBytes: number;
  terminalId?: string;
}

/**
 * The command's result: output for the model, or the error to throw (ToolError with the output and
 * why; a plain Error for an abort); `note` is the reason alone, for a display that shows the output itself.
 */
export function bashResult(end: BashEnd): { output: ToolOutput; error?: undefined; note?: undefined } | { output?: undefined; error: Error; note: string } {
  const { out, exit } = end;
  const details: BashDetails = {
    exitCode: exit.code,
    ...(exit.signal ? { signal: exit.signal } : {}),
    truncated: out.truncated,
    totalLines: out.totalLines,
    totalBytes: out.totalBytes,
    ...(out.fullOutputPath ? { fullOutputPath: out.fullOutputPath } : {}),
    ...(end.terminalId ? { terminalId: end.terminalId } : {}),
  };
  const body = [out.text, ...end.notes].filter(Boolean).join("\n\n");
  const withNote = (note: string) => (body.length > 0 ? `${body}\n\n${note}` : note);
  const fail = (note: string, error: (text: string) => Error = (text) => new ToolError(text, details)) => ({ error: error(withNote(note)), note });
  if (end.killedFor === "abort") return fail(abortedError("Command").message, (text) => new Error(text));
  if (end.killedFor === "output") return fail(`Command killed: its output passed ${formatMiB(end.maxOutputBytes)} (sandbox.limits.outputMB)`);
  if (end.hit && end.limits) return fail(limitMessage(end.hit, end.limits));
  if (end.killedFor === "timeout") return fail(`Command timed out after ${end.timeout} seconds (it was killed)`);
  if (exit.code !== 0) return fail(exit.code === null ? `Command was killed by signal ${exit.signal}` : `Command failed with exit code ${exit.code}`);
  return { output: { content: [{ type: "text", text: body.length > 0 ? body : "(no output)" }], details } };
}

/** The note for a sandboxed command whose network could not be set up (undefined: none to make). */
export function networkNote(problem: string | undefined): string | undefined {
  return problem && `[The sandbox's network could not be started (${problem}); the command ran without one.]`;
}

function formatMiB(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

function limitMessage(hit: LimitHit, limits: { processes: number; memoryMB: number }): string {
  return hit === "memory"
    ? `Command killed: it used more than ${limits.memoryMB} MiB of memory (sandbox.limits.memoryMB)`
    : `Command killed: it tried to run more than ${limits.processes} processes at once (sandbox.limits.processes)`;
}
