// Server -> client requests: the server asks, the client answers. Sent only to a client that
// declared it can answer (initialize capabilities), to every such client following the session
// and again to each that subscribes while it waits; the first valid answer wins and the others
// see it withdrawn (the request_resolved event). An answer that does not match the result
// schema counts as that client failing; with nobody left to answer, the safe default holds:
// deny for requestPermission, default for beforeCompact.
import { z } from "zod";
import { AgentMessage, CompactionReason, FileLists, Id } from "./messages.js";

/**
 * A client's answer to requestPermission. deny: the call gets an error result and the run goes on;
 * allowAlways: allow this tool for the rest of the live session without asking again; cancel: the
 * user cancelled the turn at this question, so the run stops as an abort does (the call does not
 * run, the model is not called again)
 */
export const PermissionOutcome = z.enum(["allow", "allowAlways", "deny", "cancel"]);

/**
 * The question's own id (added in version 1): the same on every copy of it (sent to several
 * clients, sent again on subscribe), in getState's pendingRequests and in the request_resolved
 * event that withdraws it
 */
const RequestId = z.string().min(1);

const requestPermission = {
  params: z.object({
    sessionId: Id,
    requestId: RequestId.optional(),
    /** the run the call belongs to */
    runId: Id.optional(),
    toolCallId: z.string(),
    toolName: z.string(),
    args: z.record(z.string(), z.unknown()),
  }),
  result: z.object({ outcome: PermissionOutcome }),
};

/** What a compaction is about to summarize, for a hook that writes the summary itself. */
const CompactionPreparation = z.object({
  /** first entry kept verbatim after the summary */
  firstKeptEntryId: Id,
  tokensBefore: z.number(),
  /** estimated tokens of the kept messages */
  keptTokens: z.number(),
  /** estimated context size afterwards with pith's own summary */
  projectedTokensAfter: z.number(),
  /** everything before the cut except the previous summary, oldest first */
  historyMessages: z.array(AgentMessage),
  /** the cut falls inside a turn: its beginning, summarized on its own */
  isSplitTurn: z.boolean(),
  turnPrefixMessages: z.array(AgentMessage),
  /** the model-written part of the previous compaction's summary */
  previousSummary: z.string().optional(),
  fileLists: FileLists,
  /** user messages pith would carry verbatim */
  userMessages: z.array(z.string()),
  /** the compact method's instructions */
  instructions: z.string().optional(),
});

/** A client's beforeCompact hook's answer: let pith summarize, cancel, or store the client's summary. */
export const BeforeCompactDecision = z.discriminatedUnion("action", [
  /** let pith summarize */
  z.object({ action: z.literal("default") }),
  /** do not compact (a manual compact fails with -32016) */
  z.object({ action: z.literal("cancel") }),
  /** store this summary instead (as given, fromHook: true) */
  z.object({ action: z.literal("replace"), summary: z.string().min(1), details: z.record(z.string(), z.unknown()).optional() }),
]);

const beforeCompact = {
  params: z.object({ sessionId: Id, requestId: RequestId.optional(), reason: CompactionReason, preparation: CompactionPreparation }),
  result: BeforeCompactDecision,
};

export const serverRequests = { requestPermission, beforeCompact } as const;

type ServerRequests = typeof serverRequests;
export type ServerRequestName = keyof ServerRequests;
export type ServerRequestParams<R extends ServerRequestName> = z.output<ServerRequests[R]["params"]>;
/** What the client answers. */
export type ServerRequestResult<R extends ServerRequestName> = z.input<ServerRequests[R]["result"]>;

/** A question waiting for an answer, as getState's pendingRequests lists it. */
export const PendingRequest = z.discriminatedUnion("method", [
  z.object({ requestId: RequestId, method: z.literal("requestPermission"), params: requestPermission.params }),
  z.object({ requestId: RequestId, method: z.literal("beforeCompact"), params: beforeCompact.params }),
]);

/** How a question ended (request_resolved's outcome): requestPermission's outcome or beforeCompact's action. */
export const RequestOutcome = z.union([PermissionOutcome, z.enum(["default", "replace"])]);

/**
 * Why it ended: a client answered; the run was aborted (abort, a cancelled question); the
 * session closed; nobody answered (no client that can answer was subscribed for the grace
 * period, the timeout passed, or every client asked failed): the safe default
 */
export const RequestResolution = z.enum(["answered", "aborted", "closed", "unanswered"]);

export const SERVER_REQUEST_NAMES = Object.keys(serverRequests) as ServerRequestName[];

export type PermissionOutcome = z.infer<typeof PermissionOutcome>;
export type BeforeCompactDecision = z.infer<typeof BeforeCompactDecision>;
export type PendingRequest = z.output<typeof PendingRequest>;
export type RequestOutcome = z.infer<typeof RequestOutcome>;
export type RequestResolution = z.infer<typeof RequestResolution>;
