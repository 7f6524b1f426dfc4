// What a transcript shows, as data: the session's messages in order, the reply being streamed,
// tool calls with their status and output, compaction and branch-summary markers, retries,
// errors and run outcomes. Its own module, apart from the reducer (transcript-state.ts) and its
// steps (transcript-draft.ts, transcript-messages.ts), so that those three share it without
// importing one another in a circle.
//
// Immutable: a reducer step returns a new state when something changed (the same object when
// nothing did); unchanged items, tools and collections are shared, so a renderer can compare by
// reference. Imports only types from protocol/ (no zod).
import type { AgentMessage, AssistantMessage, CompactionReason, CompactionResult, RunError, RunStopReason, ToolResultMessage, UserContentBlock } from "../../protocol/index.js";

/** unanswered: fetched with no result and nothing running (its result lies on another branch, or it never ran) */
export type ToolStatus = "streaming" | "pending" | "running" | "done" | "error" | "unanswered";

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
  /** an automatic compaction that was not done (compaction_skipped): not an error, the session goes on */
  | { readonly type: "compactionSkipped"; readonly id: number; readonly reason: "threshold" | "overflow"; readonly code: string; readonly tokensBefore: number; readonly message: string }
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
  /** the run's retry block: each retry_start of the run updates it (one block, however many attempts) */
  readonly retryItem?: number;
  /** the run's last reply, when it failed with nothing in it: the run's failure block stands for it */
  readonly failedReply?: number;
  /** the run's `error` event: at agent_end it becomes the run's one failure block */
  readonly runErrorItem?: number;
  /**
   * summaries being written, by compactionId: one written ahead of time (compaction_update
   * reason "prepare") exists before its marker, which then shows all of it
   */
  readonly liveSummaries: ReadonlyMap<string, string>;
}

/** Provider and model for a reply joined mid-stream (its message_start, which says, was missed). */
export interface ReplyModel {
  api: string;
  provider: string;
  model: string;
}
