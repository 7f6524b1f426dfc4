// With automatic compaction off, pith compacts only when asked (`compact`, ACP's `/compact`,
// `navigateTree {summarize}`): whoever turned it off wants the history verbatim. A context that
// no longer fits is then reported, never compacted unasked: -32021 ContextFull, with the sizes,
// so a client can say how full it is and offer a manual compaction.
import type { RunError } from "../../agent/events.js";
import { ErrorCode, type HostErrorData } from "../host-error.js";

export type ContextFullData = HostErrorData<typeof ErrorCode.ContextFull>;

/** The context is full and pith will not compact it: the run's error and the `error` event's data. */
export interface ContextFull {
  error: RunError & { code: typeof ErrorCode.ContextFull };
  data: ContextFullData;
}

const OFF = "automatic compaction is off for this session, so nothing was compacted: compact the session (compact) or turn automatic compaction on";

/** The provider refused the request as too long: the run ends with this. */
export function refusedAsTooLong(contextTokens: number, contextWindow: number, status: number | undefined): ContextFull {
  const message = `the context is full (about ${contextTokens} tokens, window ${contextWindow}): the provider refused the request as too long, and ${OFF}`;
  return {
    error: { message, errorClass: "overflow", status, code: ErrorCode.ContextFull },
    data: { class: "overflow", ...(status !== undefined ? { status } : {}), retryable: false, contextTokens, contextWindow },
  };
}

/** The endpoint cut the prompt without saying so (see silent-truncation.ts): reported, the run goes on. */
export function cutToFit(cut: { reportedTokens: number; estimatedTokens: number }, contextWindow: number): { message: string; data: ContextFullData } {
  const { reportedTokens, estimatedTokens } = cut;
  return {
    message: `the context is full (about ${estimatedTokens} tokens, window ${contextWindow}): the endpoint cut the prompt to fit its window, reading ${reportedTokens} tokens, and ${OFF}`,
    data: { class: "overflow", truncated: true, retryable: false, contextTokens: estimatedTokens, contextWindow, reportedTokens, estimatedTokens },
  };
}
