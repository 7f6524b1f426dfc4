// Server -> client notifications. The notification's method is the event name; its params are
// the event. Every event belongs to a session and carries `sessionId` and `seq` (1, 2, 3, ... per
// live session, no gaps: a client that sees a jump missed events and can subscribe {afterSeq}).
import { z } from "zod";
import {
  AgentMessage,
  AssistantMessage,
  CompactionCost,
  CompactionReason,
  CompactionResult,
  ErrorClass,
  Id,
  QueuedPrompt,
  ToolResultMessage,
  Usage,
  UserContentBlock,
} from "./messages.js";
import { McpServerInfo } from "./mcp.js";
import { openObject } from "./open-object.js";
import { RequestOutcome, RequestResolution } from "./server-requests.js";

const Seq = z.int().positive();

/** The fields every session event carries, spread into each event's params. */
const base = { sessionId: Id, seq: Seq };

/** How a run ended. */
export const RunStopReason = z.enum(["stop", "length", "aborted", "error", "max_turns"]);

/** Why a run (or a retried call) failed. */
export const RunError = z.object({
  message: z.string(),
  errorClass: ErrorClass.optional(),
  /** HTTP status, when there was one */
  status: z.int().optional(),
  /** the error code when it is not -32014 ProviderError's: -32020 ReplyTooLarge (a reply cut at the cap), -32021 ContextFull (an overflow with automatic compaction off) */
  code: z.int().optional(),
  /** the provider the failed call went to, and where: a provider that cannot be reached or refuses is named in `message` too */
  provider: z.object({ name: z.string(), baseUrl: z.string() }).optional(),
});

/** A tool's output so far (tool_execution_update) */
export const ToolOutput = openObject({
  content: z.array(UserContentBlock),
  /** tool-specific data stored with the result (not sent to the model) */
  details: z.unknown().optional(),
});

export const MessageDelta = z.object({
  type: z.enum(["text", "thinking", "toolcall_start", "toolcall_delta", "toolcall_end"]),
  contentIndex: z.int().nonnegative(),
  /** appended text (text, thinking, toolcall_delta: a piece of the arguments' JSON) */
  text: z.string().optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});

export const events = {
  /** a run began (the prompt's runId) */
  agent_start: z.object({
    ...base,
    runId: Id,
    /**
     * the run this one was started for: prompts queued on it (answered with its runId) were still
     * waiting when it ended on an error, max_turns or length, and this run starts with them
     */
    queuedFrom: Id.optional(),
  }),
  /** one model call begins; turn counts from 1 within the run */
  turn_start: z.object({ ...base, runId: Id, turn: z.int().positive() }),
  /** a message begins: the user's prompt, the model's reply (empty so far), a tool result, a user bash command */
  message_start: z.object({
    ...base,
    /** absent for messages outside a run (the bash method) */
    runId: Id.optional(),
    message: AgentMessage,
  }),
  /**
   * what changed in the reply (the reply so far is message_start's message plus every delta;
   * message_end carries it whole). Only the delta is sent: a long reply would otherwise cost
   * time and bytes quadratic in its length. Text / thinking deltas that arrive together are sent
   * as one.
   */
  message_update: z.object({ ...base, runId: Id, delta: MessageDelta }),
  /** a message is complete and stored */
  message_end: z.object({
    ...base,
    /** absent for messages outside a run (the bash method) */
    runId: Id.optional(),
    message: AgentMessage,
    /** the entry it was stored as; absent for a failed attempt that will be retried (not stored) */
    entryId: Id.optional(),
    willRetry: z.boolean().optional(),
  }),
  tool_execution_start: z.object({ ...base, runId: Id, toolCallId: z.string(), toolName: z.string(), args: z.record(z.string(), z.unknown()) }),
  tool_execution_update: z.object({ ...base, runId: Id, toolCallId: z.string(), toolName: z.string(), partial: ToolOutput }),
  tool_execution_end: z.object({
    ...base,
    runId: Id,
    toolCallId: z.string(),
    toolName: z.string(),
    result: ToolResultMessage,
    isError: z.boolean(),
    entryId: Id,
  }),
  /** one model call and its tool calls are done */
  turn_end: z.object({ ...base, runId: Id, turn: z.int().positive(), message: AssistantMessage, usage: Usage }),
  /**
   * prompts queued on a run (steer / followUp, answered with its runId) that will not be run:
   * the user's abort dropped them. Sent before that run's agent_end.
   */
  prompts_dropped: z.object({
    ...base,
    runId: Id,
    reason: z.enum(["aborted"]),
    /** in the order they were accepted; timestamp: when (ms) */
    prompts: z.array(QueuedPrompt),
  }),
  /**
   * the prompts queued on the session changed (added in version 1): one was queued, delivered
   * (stored as a user message), dropped by an abort, or handed to the next run; `queue` is all of
   * them now, in the order accepted (getState.queue)
   */
  queue_update: z.object({ ...base, queue: z.array(QueuedPrompt) }),
  /** the run is over; usage sums the run's model calls */
  agent_end: z.object({ ...base, runId: Id, stopReason: RunStopReason, error: RunError.optional(), usage: Usage }),
  compaction_start: z.object({
    ...base,
    reason: CompactionReason,
    tokensBefore: z.number(),
    /** ties this compaction's start, updates and end together */
    compactionId: z.string().optional(),
    /** its summary was written ahead of time (compaction_update reason "prepare"): applying it is quick */
    prepared: z.boolean().optional(),
  }),
  /**
   * progress of a compaction, and of a summary written ahead of time (reason "prepare", before any
   * compaction_start: nothing is stored until the trigger). phase "summarizing": the summarizer
   * started; "chunk": a request begins (a long span takes several, each rewriting the whole
   * summary: show the latest chunk's text); "applying": the summary is being stored; "ready": a
   * summary written ahead of time is done; "discarded": it will not be used (the tree moved, the
   * model changed, an abort). delta: a piece of the summary text as the summarizer writes it.
   */
  compaction_update: z.object({
    ...base,
    compactionId: z.string(),
    reason: z.enum(["threshold", "overflow", "manual", "prepare"]),
    phase: z.enum(["summarizing", "chunk", "applying", "ready", "discarded"]),
    chunk: z.object({ index: z.int().positive(), count: z.int().positive() }).optional(),
    delta: z.string().optional(),
  }),
  compaction_end: z.object({
    ...base,
    reason: CompactionReason,
    compactionId: z.string().optional(),
    prepared: z.boolean().optional(),
    /** present when the compaction was stored */
    result: CompactionResult.optional(),
    aborted: z.boolean(),
    /** an overflow compaction succeeded and the failed model call is retried */
    willRetry: z.boolean(),
    /** the extractive fallback summary was used, with why */
    fallback: z.object({ reason: z.string() }).optional(),
    /** the compaction failed (not aborted): why */
    error: z.string().optional(),
    /** what pith's summarizer requests for this compaction cost, summed (one written ahead of time included); absent when a client's hook wrote the summary */
    cost: CompactionCost.optional(),
  }),
  /**
   * an automatic compaction was not done: it would free too little (under minSavingsFraction of the
   * context), or nothing lies before its cut. No compaction_start or compaction_end goes with it.
   * Reported once per context size (not again within minSavingsFraction of the size last
   * reported); a threshold compaction is not tried again until the context grew by
   * minSavingsFraction of tokensBefore (an overflow's is tried when it happens). Not an error: the
   * session goes on.
   */
  compaction_skipped: z.object({
    ...base,
    reason: z.enum(["threshold", "overflow"]),
    code: z.enum(["too_little_gain", "nothing_to_compact", "cut_not_found"]),
    /** the context's size when it was skipped */
    tokensBefore: z.number(),
    /** for people: what it would have freed */
    message: z.string(),
  }),
  /** navigateTree {summarize: true} started summarizing the branch being left */
  branch_summary_start: z.object({ ...base, targetId: Id, fromId: Id.nullable() }),
  branch_summary_end: z.object({
    ...base,
    aborted: z.boolean(),
    /** the branch_summary entry, when stored */
    entryId: Id.optional(),
    summary: z.string().optional(),
    fallback: z.object({ reason: z.string() }).optional(),
    error: z.string().optional(),
  }),
  /** a transient provider error: waiting delayMs before attempt `attempt` of maxAttempts */
  retry_start: z.object({
    ...base,
    attempt: z.int().positive(),
    maxAttempts: z.int().positive(),
    delayMs: z.int().nonnegative(),
    error: RunError,
  }),
  /** the wait is over: the call is retried, or (aborted) the run stops */
  retry_end: z.object({ ...base, attempt: z.int().positive(), aborted: z.boolean() }),
  /** the context's size changed (after a turn, a compaction), or the window in effect did (a limit learned) */
  usage_update: z.object({
    ...base,
    /** as the model sees it: messages, system prompt and tool definitions */
    contextTokens: z.number().nonnegative(),
    /** the window in effect (see SessionState.contextWindow) */
    contextWindow: z.int().nonnegative(),
    /** automatic compaction runs past this */
    threshold: z.int().nonnegative().optional(),
  }),
  /**
   * a question to clients (requestPermission, beforeCompact) ended (added in version 1): a client
   * showing it closes it; an answer sent to it now is ignored
   */
  request_resolved: z.object({ ...base, requestId: z.string(), method: z.enum(["requestPermission", "beforeCompact"]), outcome: RequestOutcome, reason: RequestResolution }),
  /**
   * one of the session's MCP servers changed state or its tools (added in version 1): it is
   * connecting, ready, failed (with why) or disabled; listMcpServers gives them all
   */
  mcp_server: z.object({ ...base, server: McpServerInfo }),
  /** something went wrong outside any request: a failed run (-32014, -32020), a full context with automatic
   *  compaction off (-32021), a session this node lost to another node (-32018) */
  error: z.object({ ...base, code: z.int(), message: z.string(), data: z.unknown().optional() }),
} as const;

type Events = typeof events;
export type EventName = keyof Events;
export type EventParams<E extends EventName> = z.output<Events[E]>;

/** Any event, tagged with its name: a line of `pith --mode json` (after the session header line). */
export type EventLine = { [E in EventName]: { type: E } & EventParams<E> }[EventName];

export const EVENT_NAMES = Object.keys(events) as EventName[];

export function isEventName(name: string): name is EventName {
  return Object.prototype.hasOwnProperty.call(events, name);
}

/** Schema of a `pith --mode json` event line: the params plus `type`. */
export const EventLine = z.discriminatedUnion(
  "type",
  EVENT_NAMES.map((name) => events[name].extend({ type: z.literal(name) })) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<EventLine>;

export type RunStopReason = z.infer<typeof RunStopReason>;
export type RunError = z.infer<typeof RunError>;
export type ToolOutput = z.infer<typeof ToolOutput>;
export type MessageDelta = z.infer<typeof MessageDelta>;
