// The policy around one agent run, as the agent's hooks: compaction's part at each model call
// and at the run's end (the compaction owner's RunCompaction), an overflow recovered by compacting
// once and retrying (with automatic compaction off: the run ends, the context full), transient
// provider errors retried with backoff, a failed run reported as an `error` event, and a question
// before a tool runs when the session says so (a question the user cancels stops the run like an
// abort). It calls the ports below, each with one job, and nothing else of the session.
import type { AgentHooks, QueuedPrompt } from "../../agent/agent.js";
import { CompactionAbortedError } from "../../compaction/index.js";
import type { ProviderError } from "../../llm/types.js";
import type { ToolCall } from "../../messages/types.js";
import { readsOnly, type ToolEffects } from "../../tools/types.js";
import type { ContextFull } from "../compaction/context-full.js";
import type { RunCompaction } from "../compaction/ports.js";
import { ErrorCode } from "../host-error.js";
import type { QueueChange } from "./prompt-queue.js";
import type { SessionEmitter } from "./session-events.js";
import type { PermissionAsker, PermissionMode } from "../ports.js";
import { providerFailure, type ProviderPlace } from "./provider-failure.js";

/** Whether a tool call may run: the session's mode, the question to a client, what the user allowed for good. */
interface ToolPermission {
  mode(): PermissionMode;
  ask: PermissionAsker;
  /** tools the user allowed for the rest of the live session */
  allowedAlways: Set<string>;
  /** stops the run as the abort method does: the user cancelled the turn at a permission question */
  cancelRun(): void;
}

/** The steer / follow-up queue's record in the session (prompt-queue.ts): what it holds after each change. */
interface QueueRecord {
  record(queue: readonly QueuedPrompt[], change: QueueChange): void;
}

/** What the run policy calls. */
export interface RunPorts {
  sessionId: string;
  compaction: RunCompaction;
  permission: ToolPermission;
  /** the session's event stream: error, retry_start, retry_end */
  events: SessionEmitter;
  queue: QueueRecord;
  /** transient provider errors: attempts and backoff */
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  /** where the session's model is served (its failures are worded with it) */
  place(): ProviderPlace | undefined;
}

export function runHooks(ports: RunPorts): AgentHooks {
  const { compaction, events } = ports;
  let overflowRetried = false;
  let transientAttempts = 0;
  /** the run ended on a full context with automatic compaction off: the error event's data */
  let full: ContextFull["data"] | undefined;
  return {
    beforeModelCall: async ({ signal, turn }) => {
      if (turn === 1) {
        overflowRetried = false;
        transientAttempts = 0;
        full = undefined;
      }
      await compaction.beforeModelCall(signal);
    },
    beforeEnd: async ({ signal, error }) => {
      if (error?.code === ErrorCode.ContextFull && full) events.emit("error", { code: error.code, message: error.message, data: full });
      else if (error) events.emit("error", { code: error.code ?? ErrorCode.ProviderError, message: error.message, data: { class: error.errorClass ?? "fatal", status: error.status, retryable: error.errorClass === "transient", ...(error.provider ? { provider: error.provider } : {}) } });
      await compaction.atRunEnd(signal);
    },
    onModelError: async (error, { signal }) => {
      if (error.errorClass === "overflow") {
        // retried once per run: a second overflow after a compaction ends it
        const outcome = await compaction.afterOverflow(error, signal, !overflowRetried);
        overflowRetried = true;
        if (typeof outcome === "string") return { action: outcome };
        full = outcome.data;
        return { action: "stop", error: outcome.error };
      }
      if (error.errorClass === "transient" && transientAttempts < ports.retry.maxAttempts) {
        transientAttempts++;
        return backoff(ports, error, transientAttempts, signal);
      }
      const worded = providerFailure(error, ports.place());
      return worded ? { action: "stop", error: worded } : { action: "stop" };
    },
    replyRoom: () => compaction.replyRoom(),
    canRunTool: async (call, { effects, runId }) => permit(ports.sessionId, runId, ports.permission, call, effects),
    queueChanged: (queue, change) => ports.queue.record(queue, change),
  };
}

async function backoff(ports: RunPorts, error: ProviderError, attempt: number, signal: AbortSignal): Promise<{ action: "retry" | "stop" }> {
  const { baseDelayMs, maxDelayMs, maxAttempts } = ports.retry;
  const { events } = ports;
  const delayMs = Math.min(maxDelayMs, Math.max(error.retryAfterMs ?? 0, baseDelayMs * 2 ** (attempt - 1)));
  events.emit("retry_start", { attempt, maxAttempts, delayMs, error: providerFailure(error, ports.place()) ?? { message: error.message, errorClass: error.errorClass, status: error.status } });
  try {
    await sleep(delayMs, signal);
  } catch {
    events.emit("retry_end", { attempt, aborted: true });
    return { action: "stop" };
  }
  events.emit("retry_end", { attempt, aborted: false });
  return { action: "retry" };
}

/** Whether a call needs the user's word in this mode, from what its tool declares (tools/types.ts), never its name. */
export function asksFirst(mode: PermissionMode, effects: ToolEffects, allowedAlways: ReadonlySet<string>, name: string): boolean {
  return mode === "ask" && !readsOnly(effects) && !allowedAlways.has(name);
}

async function permit(sessionId: string, runId: string, permission: ToolPermission, call: ToolCall, effects: ToolEffects): Promise<{ allow: true } | { allow: false; reason: string }> {
  const mode = permission.mode();
  if (mode === "readonly" && !readsOnly(effects)) return { allow: false, reason: `the session is read-only; ${call.name} is not allowed` };
  if (!asksFirst(mode, effects, permission.allowedAlways, call.name)) return { allow: true };
  const outcome = await permission.ask({ sessionId, runId, toolCallId: call.id, toolName: call.name, args: call.arguments });
  if (outcome === "allowAlways") permission.allowedAlways.add(call.name);
  if (outcome === "cancel") {
    // not a denial the model should work around: the turn ends here, with no further model call
    permission.cancelRun();
    return { allow: false, reason: "the user cancelled the turn" };
  }
  return outcome === "deny" ? { allow: false, reason: "the user denied this tool call" } : { allow: true };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new CompactionAbortedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CompactionAbortedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
