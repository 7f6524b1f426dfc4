// Error codes. The numbers are stable: clients switch on them. `message` is for people; `data`
// carries the details (its shape per code is below where the protocol fixes one).
import { z } from "zod";
import { ErrorClass } from "./messages.js";

export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  NotInitialized: -32002,
  SessionNotFound: -32010,
  SessionBusy: -32011,
  NothingToCompact: -32012,
  EntryNotFound: -32013,
  ProviderError: -32014,
  SessionLocked: -32015,
  Aborted: -32016,
  CompactionSkipped: -32017,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;
export type ErrorCode = (typeof ErrorCodes)[ErrorCodeName];

export const ErrorDescriptions: { readonly [K in ErrorCodeName]: string } = {
  ParseError: "The message is not valid JSON.",
  InvalidRequest: "The message is not a valid JSON-RPC 2.0 request (or is over the size limit).",
  MethodNotFound: "No such method.",
  InvalidParams: "The params do not match the method's schema (wrong type, missing or unknown key, unsupported protocol version); data is the zod error tree.",
  InternalError: "The server failed unexpectedly; details are in its log.",
  NotInitialized: "A request arrived before `initialize` on this connection.",
  SessionNotFound: "No session with this id (or file), or the session is not open.",
  SessionBusy: "The session is running, compacting, summarizing a branch or running a command; the request needs it idle.",
  NothingToCompact: "The context holds nothing before the cut point: there is nothing to summarize.",
  EntryNotFound: "No entry with this id in the session.",
  ProviderError: "The model provider failed; data carries class, status and retryable.",
  SessionLocked: "Another process holds the session file's write lock.",
  Aborted: "The operation was aborted (the `abort` method, or a beforeCompact hook cancelled it).",
  CompactionSkipped: "An automatic compaction was skipped because it would free too little; sent as an `error` event, never as a response.",
};

/** The name of a code, or undefined for a code this version does not define. */
export function errorCodeName(code: number): ErrorCodeName | undefined {
  for (const [name, value] of Object.entries(ErrorCodes)) if (value === code) return name as ErrorCodeName;
  return undefined;
}

// -- data shapes --

/** z.treeifyError's output: errors at this level, then per key (objects) or per index (arrays). */
export interface ErrorTree {
  errors: string[];
  properties?: Record<string, ErrorTree>;
  /** indexes without errors are null */
  items?: (ErrorTree | null)[];
}
export const ErrorTree: z.ZodType<ErrorTree> = z.object({
  errors: z.array(z.string()),
  get properties() {
    return z.record(z.string(), ErrorTree).optional();
  },
  get items() {
    return z.array(ErrorTree.nullable()).optional();
  },
});

/** -32014, and the `error` event for a failed run. */
export const ProviderErrorData = z.looseObject({
  class: ErrorClass,
  /** HTTP status, when there was one */
  status: z.number().int().optional(),
  retryable: z.boolean(),
});

/** Data the protocol fixes per code (the server may add keys). Codes not listed carry no fixed data. */
export const ErrorData = {
  InvalidParams: ErrorTree,
  ProviderError: ProviderErrorData,
  SessionNotFound: z.looseObject({ sessionId: z.string().optional(), sessionFile: z.string().optional() }),
  EntryNotFound: z.looseObject({ entryId: z.string() }),
  SessionBusy: z.looseObject({ sessionId: z.string() }),
  NothingToCompact: z.looseObject({ code: z.literal("nothing_to_compact"), tokensBefore: z.number() }),
  CompactionSkipped: z.looseObject({ reason: z.enum(["threshold", "overflow"]), code: z.literal("too_little_gain"), tokensBefore: z.number() }),
} as const;

/** The JSON-RPC error object. */
export const RpcError = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

export type ProviderErrorData = z.infer<typeof ProviderErrorData>;
export type RpcError = z.infer<typeof RpcError>;
