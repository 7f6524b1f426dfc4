// Error codes and the shapes of their data. `message` is for people; `data` carries the details
// (its shape per code is below where the protocol fixes one). The codes themselves live in
// error-codes.ts (no zod there, for browser bundles) and are re-exported from here.
import { z } from "zod";
import { ErrorClass } from "./messages.js";

export { ErrorCodes, ErrorDescriptions, errorCodeName, type ErrorCode, type ErrorCodeName } from "./error-codes.js";

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
const ProviderErrorData = z.looseObject({
  class: ErrorClass,
  /** HTTP status, when there was one */
  status: z.number().int().optional(),
  retryable: z.boolean(),
  /** the provider that failed and where it was asked (as in RunError) */
  provider: z.object({ name: z.string(), baseUrl: z.string() }).optional(),
});

/** Data the protocol fixes per code (the server may add keys). Codes not listed carry no fixed data. */
export const ErrorData = {
  InvalidParams: ErrorTree,
  ProviderError: ProviderErrorData,
  /** -32020: a reply cut at the cap (class "fatal", not retryable) */
  ReplyTooLarge: ProviderErrorData,
  /** -32021: the context is full and automatic compaction is off (the sizes as pith counts them; the window in effect) */
  ContextFull: ProviderErrorData.extend({ contextTokens: z.number(), contextWindow: z.number().int(), truncated: z.boolean().optional() }),
  SessionNotFound: z.looseObject({ sessionId: z.string().optional(), sessionFile: z.string().optional() }),
  EntryNotFound: z.looseObject({ entryId: z.string() }),
  SessionBusy: z.looseObject({ sessionId: z.string() }),
  NothingToCompact: z.looseObject({ code: z.literal("nothing_to_compact"), tokensBefore: z.number() }),
  CompactionSkipped: z.looseObject({ reason: z.enum(["threshold", "overflow"]), code: z.literal("too_little_gain"), tokensBefore: z.number() }),
  /** -32018 (PostgreSQL store only): owner.nodeId null means the owner released the session or is unknown */
  SessionMoved: z.looseObject({
    sessionId: z.string(),
    owner: z.looseObject({ nodeId: z.string().nullable(), url: z.string().optional(), epoch: z.number().int().optional() }),
  }),
} as const;


