// The policy around one agent run, as the agent's hooks: compact before a model call when the
// context is past the trigger (or write the summary ahead of time), recover from an overflow by
// compacting once and retrying (with automatic compaction off: end the run, the context full), retry transient provider errors with backoff, report a failed
// run as an `error` event, and ask before a tool runs when the session says so (a question the
// user cancels stops the run like an abort).
import type { AgentHooks, QueuedPrompt } from "../agent/agent.js";
import { CompactionAbortedError, type CompactionReason } from "../compaction/index.js";
import type { ContextFull } from "./compaction/context-full.js";
import type { ProviderError } from "../llm/types.js";
import type { ToolCall } from "../messages/types.js";
import { ErrorCode } from "./host-error.js";
import type { QueueChange } from "./prompt-queue.js";
import type { EventFields } from "./session-events.js";
import type { PermissionAsker, PermissionMode } from "./ports.js";

/** What the hooks need of the session: narrow, so the policy reads as one piece. */
export interface RunHost {
  sessionId: string;
  permissionMode(): PermissionMode;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  askPermission: PermissionAsker;
  /** stops the run as the abort method does: the user cancelled the turn at a permission question */
  abort(): void;
  /** tools the user allowed for the rest of the live session */
  allowedAlways: Set<string>;
  emit<E extends "error" | "retry_start" | "retry_end">(type: E, fields: EventFields<E>): void;
  emitUsage(): void;
  /** stores a prune batch of old tool outputs (context_edit entries) if the prune settings say one is due */
  pruneToolOutputs?(): void;
  /** at the trigger compacts; past the soft threshold writes the summary ahead of time */
  autoCompact(reason: CompactionReason, signal: AbortSignal): Promise<void>;
  /** the provider refused the context as too long: compact ("retry"), or, with automatic compaction off, the context is full */
  afterOverflow(error: ProviderError, signal: AbortSignal): Promise<"retry" | "stop" | ContextFull>;
  /** the tokens left in the window for a reply */
  replyRoom(): number;
  /** an overflow said the window is smaller than believed */
  learnWindowFrom(error: ProviderError): void;
  recordQueue(queue: readonly QueuedPrompt[], change: QueueChange): void;
}

/**
 * The tools that change files or run commands: "readonly" refuses them and "ask" asks before
 * them; read, ls, grep and find run in every mode. (ACP's tool-call statuses follow the same set.)
 */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "bash"]);

export function runHooks(host: RunHost): AgentHooks {
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
      // pruning first: leaving old outputs out is cheaper than a summary and may make one unneeded
      host.pruneToolOutputs?.();
      await host.autoCompact("threshold", signal);
    },
    beforeEnd: async ({ signal, error }) => {
      if (error?.code === ErrorCode.ContextFull && full) host.emit("error", { code: error.code, message: error.message, data: full });
      else if (error) host.emit("error", { code: error.code ?? ErrorCode.ProviderError, message: error.message, data: { class: error.errorClass ?? "fatal", status: error.status, retryable: error.errorClass === "transient" } });
      host.emitUsage();
      await host.autoCompact("threshold", signal);
    },
    onModelError: async (error, { signal }) => {
      if (error.errorClass === "overflow") host.learnWindowFrom(error);
      if (error.errorClass === "overflow" && !overflowRetried) {
        overflowRetried = true;
        const outcome = await host.afterOverflow(error, signal);
        if (typeof outcome === "string") return { action: outcome };
        full = outcome.data;
        return { action: "stop", error: outcome.error };
      }
      if (error.errorClass === "transient" && transientAttempts < host.retry.maxAttempts) {
        transientAttempts++;
        return backoff(host, error, transientAttempts, signal);
      }
      return { action: "stop" };
    },
    replyRoom: () => host.replyRoom(),
    canRunTool: async (call) => permit(host, call),
    queueChanged: (queue, change) => host.recordQueue(queue, change),
  };
}

async function backoff(host: RunHost, error: ProviderError, attempt: number, signal: AbortSignal): Promise<{ action: "retry" | "stop" }> {
  const { baseDelayMs, maxDelayMs, maxAttempts } = host.retry;
  const delayMs = Math.min(maxDelayMs, Math.max(error.retryAfterMs ?? 0, baseDelayMs * 2 ** (attempt - 1)));
  host.emit("retry_start", { attempt, maxAttempts, delayMs, error: { message: error.message, errorClass: error.errorClass, status: error.status } });
  try {
    await sleep(delayMs, signal);
  } catch {
    host.emit("retry_end", { attempt, aborted: true });
    return { action: "stop" };
  }
  host.emit("retry_end", { attempt, aborted: false });
  return { action: "retry" };
}

async function permit(host: RunHost, call: ToolCall): Promise<{ allow: true } | { allow: false; reason: string }> {
  const mode = host.permissionMode();
  if (mode === "readonly" && WRITING_TOOLS.has(call.name)) return { allow: false, reason: `the session is read-only; ${call.name} is not allowed` };
  if (mode !== "ask" || !WRITING_TOOLS.has(call.name) || host.allowedAlways.has(call.name)) return { allow: true };
  const outcome = await host.askPermission({ sessionId: host.sessionId, toolCallId: call.id, toolName: call.name, args: call.arguments });
  if (outcome === "allowAlways") host.allowedAlways.add(call.name);
  if (outcome === "cancel") {
    // not a denial the model should work around: the turn ends here, with no further model call
    host.abort();
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
