// Content and message shapes, as pith stores them in session files (Pi's format) and sends them
// in results and events. Stored data may carry fields this version does not know (older or newer
// writers), so message and content objects are loose: unknown keys are kept, not rejected.
import { z } from "zod";
import { openObject } from "./open-object.js";

/** Opaque, non-empty identifier (session, entry, tool call, run). */
export const Id = z.string().min(1);

/**
 * A session id a client names: 1 to 128 of A-Z a-z 0-9 _ - (pith and Pi make UUIDs). Stores
 * build file names from it (a PostgreSQL node's local copy), so `../x` or `a/b` is refused
 * before any path is made. Same pattern as src/session/ids.ts.
 */
export const SessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a session id is 1 to 128 of A-Z a-z 0-9 _ -");

// -- content blocks --

export const TextContent = openObject({
  type: z.literal("text"),
  text: z.string(),
  textSignature: z.string().optional(),
});

export const ImageContent = openObject({
  type: z.literal("image"),
  /** base64, without a data: prefix */
  data: z.string(),
  mimeType: z.string(),
});

export const ThinkingContent = openObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  /** provider signature; must be sent back unchanged */
  thinkingSignature: z.string().optional(),
  redacted: z.boolean().optional(),
});

export const ToolCall = openObject({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/** Text or image: what users and tools produce. */
export const UserContentBlock = z.discriminatedUnion("type", [TextContent, ImageContent]);
/** What the model produces. */
export const AssistantContentBlock = z.discriminatedUnion("type", [TextContent, ThinkingContent, ToolCall]);

/** Image attached to a prompt by a client: checked strictly (this is input, not stored data). */
export const ImageInput = z.strictObject({
  type: z.literal("image"),
  /** base64, without a data: prefix */
  data: z.string().min(1),
  mimeType: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]),
});

/** A prompt queued on a run (steer / followUp) as clients see it; timestamp: when it was accepted (ms). */
export const QueuedPrompt = z.object({ delivery: z.enum(["steer", "followUp"]), text: z.string(), timestamp: z.number() });

// -- usage --

const Cost = openObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  total: z.number(),
});

/** Token counts of one model call (or a sum of them); cost in USD. */
export const Usage = openObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  /** older files lack it */
  totalTokens: z.number().optional(),
  cost: Cost,
});

/** Why one model call stopped. */
const StopReason = z.enum(["stop", "length", "toolUse", "error", "aborted"]);
/** How a model's reply ended on its own; pith sets error and aborted when a call fails or is cancelled. */
export const ModelStopReason = StopReason.extract(["stop", "length", "toolUse"]);

// -- messages --

/** Milliseconds since the epoch. */
const Millis = z.number();

export const UserMessage = openObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(UserContentBlock)]),
  timestamp: Millis,
});

export const AssistantMessage = openObject({
  role: z.literal("assistant"),
  content: z.array(AssistantContentBlock),
  api: z.string(),
  provider: z.string(),
  model: z.string(),
  usage: Usage,
  stopReason: StopReason,
  errorMessage: z.string().optional(),
  timestamp: Millis,
});

export const ToolResultMessage = openObject({
  role: z.literal("toolResult"),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.array(UserContentBlock),
  details: z.unknown().optional(),
  isError: z.boolean(),
  timestamp: Millis,
});

/** A shell command the user ran (the `bash` method), not the model. */
export const BashExecutionMessage = openObject({
  role: z.literal("bashExecution"),
  command: z.string(),
  output: z.string(),
  /** absent (or null) when the process had no exit code: killed, cancelled, failed to start */
  exitCode: z.number().nullable().optional(),
  cancelled: z.boolean(),
  truncated: z.boolean(),
  fullOutputPath: z.string().optional(),
  /** true for commands run without sharing them with the model */
  excludeFromContext: z.boolean().optional(),
  timestamp: Millis,
});

export const CustomMessage = openObject({
  role: z.literal("custom"),
  customType: z.string(),
  content: z.union([z.string(), z.array(UserContentBlock)]),
  display: z.boolean(),
  details: z.unknown().optional(),
  timestamp: Millis,
});

export const BranchSummaryMessage = openObject({
  role: z.literal("branchSummary"),
  summary: z.string(),
  fromId: z.string(),
  timestamp: Millis,
});

export const CompactionSummaryMessage = openObject({
  role: z.literal("compactionSummary"),
  summary: z.string(),
  tokensBefore: z.number(),
  timestamp: Millis,
});

/** Every message that can sit in a session's context, by role. */
export const AgentMessage = z.discriminatedUnion("role", [
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  BashExecutionMessage,
  CustomMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
]);

/** Line 1 of a session file; `pith --mode json` prints it first. */
export const SessionHeader = openObject({
  type: z.literal("session"),
  version: z.number().optional(),
  id: z.string(),
  /** ISO 8601 */
  timestamp: z.string(),
  cwd: z.string(),
  parentSession: z.string().optional(),
});

// -- shared vocabularies --

export const ThinkingLevel = z.enum(["off", "minimal", "low", "medium", "high", "xhigh"]);
export const PermissionMode = z.enum(["auto", "ask", "readonly"]);
export const CompactionReason = z.enum(["threshold", "overflow", "manual"]);
/** How a provider failure is classified (-32014's data.class, errorClass elsewhere). */
export const ErrorClass = z.enum(["overflow", "transient", "auth", "fatal", "aborted"]);

/** File lists carried by compactions and branch summaries. */
export const FileLists = openObject({
  readFiles: z.array(z.string()),
  modifiedFiles: z.array(z.string()),
});

/**
 * `details` of a compaction. pith's own compactions always fill readFiles, modifiedFiles and
 * userMessages; a summary supplied by a beforeCompact hook carries the hook's details object.
 */
export const CompactionDetails = openObject({
  readFiles: z.array(z.string()).optional(),
  modifiedFiles: z.array(z.string()).optional(),
  /** user messages carried verbatim in the summary */
  userMessages: z.array(z.string()).optional(),
  /** true when the summarizer failed and the extractive fallback summary was used */
  fallback: z.boolean().optional(),
});

/** What summarizer requests cost: tokens by kind and USD at the model's prices (compaction_end.cost, getSessionStats.compaction). */
export const CompactionCost = z.object({ input: z.number(), cacheRead: z.number(), cacheWrite: z.number(), output: z.number(), cost: z.number() });

/** A compaction as stored: the `compact` result and compaction_end's `result`. */
export const CompactionResult = z.object({
  summary: z.string(),
  firstKeptEntryId: Id,
  tokensBefore: z.number(),
  /** estimated context size after the compaction: the summary plus the kept messages */
  tokensAfter: z.number(),
  details: CompactionDetails,
  /** set when the extractive fallback summary was used, with why */
  fallback: z.object({ reason: z.string() }).optional(),
  /** true when a beforeCompact hook supplied the summary */
  fromHook: z.boolean().optional(),
});

export type TextContent = z.infer<typeof TextContent>;
export type ImageContent = z.infer<typeof ImageContent>;
export type ThinkingContent = z.infer<typeof ThinkingContent>;
export type ToolCall = z.infer<typeof ToolCall>;
export type UserContentBlock = z.infer<typeof UserContentBlock>;
export type AssistantContentBlock = z.infer<typeof AssistantContentBlock>;
export type ImageInput = z.infer<typeof ImageInput>;
export type Usage = z.infer<typeof Usage>;
export type ModelStopReason = z.infer<typeof ModelStopReason>;
export type UserMessage = z.infer<typeof UserMessage>;
export type AssistantMessage = z.infer<typeof AssistantMessage>;
export type ToolResultMessage = z.infer<typeof ToolResultMessage>;
export type BashExecutionMessage = z.infer<typeof BashExecutionMessage>;
export type CustomMessage = z.infer<typeof CustomMessage>;
export type BranchSummaryMessage = z.infer<typeof BranchSummaryMessage>;
export type CompactionSummaryMessage = z.infer<typeof CompactionSummaryMessage>;
export type AgentMessage = z.infer<typeof AgentMessage>;
export type SessionHeader = z.infer<typeof SessionHeader>;
export type ThinkingLevel = z.infer<typeof ThinkingLevel>;
export type PermissionMode = z.infer<typeof PermissionMode>;
export type CompactionReason = z.infer<typeof CompactionReason>;
export type ErrorClass = z.infer<typeof ErrorClass>;
export type FileLists = z.infer<typeof FileLists>;
export type CompactionDetails = z.infer<typeof CompactionDetails>;
export type CompactionResult = z.infer<typeof CompactionResult>;
