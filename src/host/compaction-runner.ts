// One compaction of a live session, from preparation to the stored entry, with its events:
// compaction_start, then compaction_end with the result, the fallback, or why it stopped.
// A client's beforeCompact hook decides first: let pith summarize, cancel, or supply the summary.
import { providerSummarizer } from "../agent/summarizer-port.js";
import {
  appendCompaction,
  compact,
  compactionInputOf,
  estimateMessageTokens,
  prepareCompaction,
  CompactionAbortedError,
  type CompactionPreparation,
  type CompactionReason,
  type CompactionResult,
  type CompactionSettings,
} from "../compaction/index.js";
import type { ModelInfo } from "../llm/types.js";
import type { SessionFile } from "../session/session-file.js";
import { ErrorCode, HostError } from "./errors.js";
import type { LiveSession, LiveSessionDeps } from "./live-session.js";

/** A stored compaction as methods and events report it. */
export interface StoredCompaction {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  tokensAfter: number;
  details: Record<string, unknown> | CompactionResult["details"];
  fallback?: { reason: string };
  /** a client's beforeCompact hook wrote the summary */
  fromHook?: boolean;
}

export type BeforeCompactDecision = { action: "default" } | { action: "cancel" } | { action: "replace"; summary: string; details?: Record<string, unknown> };

export interface CompactionContext {
  session: LiveSession;
  file: SessionFile;
  model: ModelInfo;
  settings: CompactionSettings;
  deps: Pick<LiveSessionDeps, "providerFor" | "resolveModel" | "beforeCompact">;
  emit(type: string, params: Record<string, unknown>): void;
  emitUsage(): void;
  /** marks the session as compacting (the controller aborts it), or not */
  setActive(controller: AbortController | null): void;
}

/**
 * Prepares, summarizes and stores one compaction with its start / end events. Returns null
 * when it was skipped or cancelled (an automatic one that would free too little is reported
 * as an `error` event with code -32017).
 */
export async function runCompaction(ctx: CompactionContext, reason: CompactionReason, outer: AbortSignal, instructions?: string, own?: AbortController): Promise<StoredCompaction | null> {
  const { settings } = ctx;
  const prep = prepareCompaction(compactionInputOf(ctx.file), settings, reason);
  if (!prep.ok) {
    if (reason === "manual") throw new HostError(ErrorCode.NothingToCompact, prep.message, { code: prep.code, tokensBefore: prep.tokensBefore });
    ctx.emit("error", { code: ErrorCode.CompactionSkipped, message: prep.message, data: { reason, code: prep.code, tokensBefore: prep.tokensBefore } });
    return null;
  }
  const controller = own ?? new AbortController();
  const onOuter = () => controller.abort();
  outer.addEventListener("abort", onOuter, { once: true });
  ctx.setActive(controller);
  ctx.emit("compaction_start", { reason, tokensBefore: prep.preparation.tokensBefore });
  let outcome: StoredCompaction | "cancelled";
  try {
    outcome = await summarizeAndStore(ctx, reason, prep.preparation, controller.signal, instructions);
  } catch (err) {
    const aborted = err instanceof CompactionAbortedError || controller.signal.aborted;
    ctx.emit("compaction_end", { reason, aborted, willRetry: false, error: aborted ? undefined : (err as Error).message });
    if (aborted && reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction aborted");
    throw aborted ? new CompactionAbortedError() : err;
  } finally {
    ctx.setActive(null);
    outer.removeEventListener("abort", onOuter);
  }
  if (outcome === "cancelled") {
    ctx.emit("compaction_end", { reason, aborted: true, willRetry: false, error: "cancelled by the client's beforeCompact hook" });
    if (reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction cancelled by the client's beforeCompact hook");
    return null;
  }
  ctx.emit("compaction_end", { reason, result: outcome, aborted: false, willRetry: reason === "overflow", fallback: outcome.fallback });
  ctx.emitUsage();
  return outcome;
}

/** A client's beforeCompact hook decides first; then pith's summary, or the client's. */
async function summarizeAndStore(ctx: CompactionContext, reason: CompactionReason, p: CompactionPreparation, signal: AbortSignal, instructions?: string): Promise<StoredCompaction | "cancelled"> {
  const decision = await ctx.deps.beforeCompact(ctx.session, reason, { ...p, instructions });
  if (signal.aborted) throw new CompactionAbortedError();
  if (decision.action === "cancel") return "cancelled";
  if (decision.action === "replace") {
    const details = decision.details ?? {};
    ctx.file.append({ type: "compaction", summary: decision.summary, firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore, details, fromHook: true });
    const tokensAfter = estimateMessageTokens({ role: "compactionSummary", summary: decision.summary, tokensBefore: p.tokensBefore, timestamp: 0 }) + p.keptTokens;
    return { summary: decision.summary, firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore, tokensAfter, details, fromHook: true };
  }
  const summarizerModel = ctx.settings.model ? ctx.deps.resolveModel(ctx.settings.model) : ctx.model;
  const result = await compact(p, {
    port: providerSummarizer(ctx.deps.providerFor(summarizerModel), summarizerModel),
    limits: { contextWindow: summarizerModel.contextWindow, maxOutputTokens: summarizerModel.maxOutputTokens },
    settings: ctx.settings,
    signal,
    instructions,
  });
  appendCompaction(ctx.file, result);
  return { summary: result.summary, firstKeptEntryId: result.firstKeptEntryId, tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter, details: result.details, fallback: result.fallback };
}
