// What a transcript shows, as data: the session's messages in order, the reply being streamed,
// tool calls with their status and output, compaction and branch-summary markers, retries,
// errors and run outcomes. A renderer draws it; this file decides what there is to draw (how
// messages and tool calls come in, repeats included, is in transcript-messages.ts).
//
// Immutable: every function returns a new state when something changed (the same object when
// nothing did) and leaves its input alone; unchanged items, tools and collections are shared, so
// a renderer can compare by reference. Imports only types from protocol/ (no zod).
import type {
  AgentMessage,
  AssistantMessage,
  CompactionReason,
  CompactionResult,
  EventLine,
  RunError,
  RunStopReason,
  ToolResultMessage,
  UserContentBlock,
} from "../../protocol/index.js";
import { TranscriptDraft, type NewItem } from "./transcript-draft.js";
import { addFinal, endRun, messageEnd, messageStart, messageUpdate, toolEnd, toolStart, toolUpdate } from "./transcript-messages.js";

export { messageKey } from "./transcript-messages.js";

export type ToolStatus = "streaming" | "pending" | "running" | "done" | "error";

export interface ToolState {
  readonly id: string;
  readonly name: string;
  readonly status: ToolStatus;
  /** the call's arguments, once known whole */
  readonly args?: Readonly<Record<string, unknown>>;
  /** the arguments' JSON so far, while the model is still writing them */
  readonly rawArgs?: string;
  /** the output so far (tool_execution_update) */
  readonly partial?: readonly UserContentBlock[];
  /** final: later events do not take the call back to running */
  readonly result?: ToolResultMessage;
}

/** A message shown on its own (the assistant's replies and tool results are shown otherwise). */
export type ShownMessage = Exclude<AgentMessage, { role: "assistant" } | { role: "toolResult" }>;

export type TranscriptItem =
  | { readonly type: "message"; readonly id: number; readonly message: ShownMessage }
  | {
      readonly type: "assistant";
      readonly id: number;
      readonly message: AssistantMessage;
      /** interrupted: the run ended before the reply did */
      readonly status: "streaming" | "interrupted" | "done";
      /** a failed attempt that is retried (not stored) */
      readonly retried: boolean;
      /** first seen mid-reply (deltas without a message_start): the start is missing */
      readonly joined: boolean;
    }
  /** a tool call whose reply is not in the transcript (its result or start came alone) */
  | { readonly type: "tool"; readonly id: number; readonly toolCallId: string }
  | {
      readonly type: "compaction";
      readonly id: number;
      readonly state: "running" | "done" | "aborted" | "failed";
      readonly reason: CompactionReason;
      readonly compactionId?: string;
      /** its summary was written ahead of time */
      readonly prepared: boolean;
      readonly tokensBefore: number;
      /** the summary so far, while running */
      readonly live: string;
      /** running and storing the summary */
      readonly applying: boolean;
      readonly result?: CompactionResult;
      readonly fallback?: { readonly reason: string };
      readonly willRetry: boolean;
      readonly error?: string;
    }
  | {
      readonly type: "branchSummary";
      readonly id: number;
      readonly state: "running" | "done" | "aborted" | "failed";
      readonly summary?: string;
      readonly fallback?: { readonly reason: string };
      readonly error?: string;
    }
  | {
      readonly type: "retry";
      readonly id: number;
      /** stopped: the wait ended without a retry_end (the run ended, another retry began) */
      readonly state: "waiting" | "stopped" | "retried" | "aborted";
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly delayMs: number;
      readonly error: RunError;
      /** retry_end's attempt */
      readonly endedAttempt?: number;
    }
  /** text from the client itself (a request that failed, a note) */
  | { readonly type: "notice"; readonly id: number; readonly kind: "error" | "warn" | "info"; readonly text: string; readonly tag: string }
  /** an `error` event */
  | { readonly type: "error"; readonly id: number; readonly code: number; readonly message: string; readonly data?: unknown }
  /** how a run ended, when it did not simply stop */
  | { readonly type: "runEnd"; readonly id: number; readonly stopReason: Exclude<RunStopReason, "stop">; readonly error?: RunError };

export interface TranscriptState {
  /** a new object per fresh transcript (item ids restart): a renderer starts over when it changes */
  readonly origin: object;
  readonly items: readonly TranscriptItem[];
  readonly tools: ReadonlyMap<string, ToolState>;
  /** shown while there are no items */
  readonly placeholder?: string;
  readonly nextId: number;
  /** role:timestamp of messages shown whole */
  readonly seen: ReadonlySet<string>;
  /** the reply being streamed: its item, and its tool calls' argument JSON so far by content index */
  readonly streaming?: { readonly itemId: number; readonly rawArgs: ReadonlyMap<number, string> };
  /** a message other than a reply, shown at message_start and replaced at message_end */
  readonly started?: { readonly key: string; readonly itemId: number };
  /** between the start and end of a message already shown: its events change nothing */
  readonly skipping: boolean;
  /** the running compaction's marker */
  readonly compactionItem?: number;
  /** the running branch summary's marker */
  readonly branchItem?: number;
  /** the retry being waited for */
  readonly retryItem?: number;
  /**
   * summaries being written, by compactionId: one written ahead of time (compaction_update
   * reason "prepare") exists before its marker, which then shows all of it
   */
  readonly liveSummaries: ReadonlyMap<string, string>;
}

type TranscriptEventName =
  | "message_start"
  | "message_update"
  | "message_end"
  | "tool_execution_start"
  | "tool_execution_update"
  | "tool_execution_end"
  | "agent_end"
  | "compaction_start"
  | "compaction_update"
  | "compaction_end"
  | "branch_summary_start"
  | "branch_summary_end"
  | "retry_start"
  | "retry_end"
  | "error";
type WithoutBase<T> = T extends unknown ? Omit<T, "sessionId" | "seq" | "runId"> : never;
/** The events a transcript shows, as `{type, ...params}` (a session's own fields not needed). */
export type TranscriptEvent = WithoutBase<Extract<EventLine, { type: TranscriptEventName }>>;

/** Provider and model for a reply joined mid-stream (its message_start, which says, was missed). */
export interface ReplyModel {
  api: string;
  provider: string;
  model: string;
}

/**
 * A transcript of `messages` (getMessages: the context) and nothing else. `liveSummaries`: the
 * summaries being written that a previous transcript of the session had (no fetch reports them).
 */
export function transcriptFrom(messages: readonly AgentMessage[], options: { placeholder?: string; liveSummaries?: ReadonlyMap<string, string> } = {}): TranscriptState {
  const empty: TranscriptState = {
    origin: {},
    items: [],
    tools: new Map(),
    nextId: 1,
    seen: new Set(),
    skipping: false,
    liveSummaries: options.liveSummaries ?? new Map(),
    ...(options.placeholder !== undefined ? { placeholder: options.placeholder } : {}),
  };
  const d = new TranscriptDraft(empty);
  for (const m of messages) addFinal(d, m);
  return d.result();
}

/** Adds a notice from the client (not from an event). */
export function addNotice(t: TranscriptState, kind: "error" | "warn" | "info", text: string, tag: string = kind): TranscriptState {
  const d = new TranscriptDraft(t);
  d.append({ type: "notice", kind, text, tag });
  return d.result();
}

/** The transcript after one event. `model` names the reply's model if it was joined mid-stream. */
export function reduceTranscript(t: TranscriptState, ev: TranscriptEvent, model: ReplyModel = { api: "", provider: "", model: "" }): TranscriptState {
  const d = new TranscriptDraft(t);
  switch (ev.type) {
    case "message_start":
      messageStart(d, ev.message);
      break;
    case "message_update":
      messageUpdate(d, ev.delta, model);
      break;
    case "message_end":
      messageEnd(d, ev.message, ev.willRetry ?? false);
      break;
    case "tool_execution_start":
      toolStart(d, ev.toolCallId, ev.toolName, ev.args);
      break;
    case "tool_execution_update":
      toolUpdate(d, ev.toolCallId, ev.partial.content);
      break;
    case "tool_execution_end":
      toolEnd(d, ev.result);
      break;
    case "agent_end":
      stopRetry(d);
      endRun(d, ev.stopReason === "aborted");
      if (ev.stopReason !== "stop") d.append({ type: "runEnd", stopReason: ev.stopReason, ...(ev.error ? { error: ev.error } : {}) });
      break;
    case "compaction_start":
      if (d.state.compactionItem !== undefined) d.remove(d.state.compactionItem);
      d.set(
        "compactionItem",
        d.append({
          type: "compaction",
          state: "running",
          reason: ev.reason,
          ...(ev.compactionId !== undefined ? { compactionId: ev.compactionId } : {}),
          prepared: ev.prepared ?? false,
          tokensBefore: ev.tokensBefore,
          live: (ev.compactionId !== undefined ? d.state.liveSummaries.get(ev.compactionId) : undefined) ?? "",
          applying: false,
          willRetry: false,
        }),
      );
      break;
    case "compaction_update": {
      if (ev.phase === "discarded") {
        d.forgetSummary(ev.compactionId);
        break;
      }
      // a new chunk rewrites the whole summary: its text starts over
      const text = (ev.phase === "chunk" ? "" : (d.state.liveSummaries.get(ev.compactionId) ?? "")) + (ev.delta ?? "");
      d.putSummary(ev.compactionId, text);
      const marker = d.item(d.state.compactionItem);
      if (marker?.type === "compaction" && marker.compactionId === ev.compactionId) {
        d.replace({ ...marker, live: text, applying: marker.applying || ev.phase === "applying" });
      }
      break;
    }
    case "compaction_end": {
      const r = ev.result;
      const fallback = ev.fallback ?? r?.fallback;
      const running = d.item(d.state.compactionItem);
      const marker: NewItem = {
        type: "compaction",
        state: r ? "done" : ev.aborted ? "aborted" : "failed",
        reason: ev.reason,
        ...(ev.compactionId !== undefined ? { compactionId: ev.compactionId } : {}),
        prepared: ev.prepared ?? false,
        tokensBefore: r?.tokensBefore ?? (running?.type === "compaction" ? running.tokensBefore : 0),
        live: "",
        applying: false,
        willRetry: ev.willRetry,
        ...(r ? { result: r } : {}),
        ...(fallback ? { fallback } : {}),
        ...(!r && !ev.aborted && ev.error !== undefined ? { error: ev.error } : {}),
      };
      d.replaceOrAppend(d.state.compactionItem, marker);
      d.set("compactionItem", undefined);
      if (ev.compactionId !== undefined) d.forgetSummary(ev.compactionId);
      break;
    }
    case "branch_summary_start":
      if (d.state.branchItem !== undefined) d.remove(d.state.branchItem);
      d.set("branchItem", d.append({ type: "branchSummary", state: "running" }));
      break;
    case "branch_summary_end":
      d.replaceOrAppend(d.state.branchItem, {
        type: "branchSummary",
        state: ev.summary ? "done" : ev.aborted ? "aborted" : "failed",
        ...(ev.summary ? { summary: ev.summary } : {}),
        ...(ev.fallback ? { fallback: ev.fallback } : {}),
        ...(!ev.summary && !ev.aborted && ev.error !== undefined ? { error: ev.error } : {}),
      });
      d.set("branchItem", undefined);
      break;
    case "retry_start":
      stopRetry(d);
      d.set("retryItem", d.append({ type: "retry", state: "waiting", attempt: ev.attempt, maxAttempts: ev.maxAttempts, delayMs: ev.delayMs, error: ev.error }));
      break;
    case "retry_end": {
      const retry = d.item(d.state.retryItem);
      d.set("retryItem", undefined);
      if (retry?.type === "retry") d.replace({ ...retry, state: ev.aborted ? "aborted" : "retried", endedAttempt: ev.attempt });
      break;
    }
    case "error":
      d.append({ type: "error", code: ev.code, message: ev.message, ...(ev.data !== undefined ? { data: ev.data } : {}) });
      break;
  }
  return d.result();
}

// ---- retries, summaries ---------------------------------------------------------------------------

/** The wait for a retry ended without a retry_end. */
function stopRetry(d: TranscriptDraft): void {
  const retry = d.item(d.state.retryItem);
  d.set("retryItem", undefined);
  if (retry?.type === "retry" && retry.state === "waiting") d.replace({ ...retry, state: "stopped" });
}

/** The file lists pith appends to its summaries (<read-files>, <modified-files>). */
export function fileListsFromSummary(summary: string): { readFiles: string[]; modifiedFiles: string[] } {
  const section = (tag: string) => {
    const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n?</${tag}>`).exec(summary);
    return m ? m[1].split("\n").map((s) => s.trim()).filter(Boolean) : [];
  };
  return { readFiles: section("read-files"), modifiedFiles: section("modified-files") };
}
