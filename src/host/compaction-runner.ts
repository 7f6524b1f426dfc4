// One compaction of a live session, from preparation to the stored entry, with its events:
// compaction_start, compaction_update (the summary as it is written, then "applying"), and
// compaction_end with the result, the fallback, or why it stopped. A summary written ahead of time
// (see ahead-of-time.ts) is applied with its own cut when it can serve; a client's beforeCompact
// hook decides first either way: let pith summarize, cancel, or supply the summary.
import { randomUUID } from "node:crypto";
import {
  appendCompaction,
  compact,
  compactionInputOf,
  estimateMessageTokens,
  prepareCompaction,
  CompactionAbortedError,
  type CompactionPreparation,
  type CompactionReason,
  type CompactionSettings,
} from "../compaction/index.js";
import type { SessionFile } from "../session/session-file.js";
import type { ResultOf } from "../../protocol/index.js";
import { progressEmitter, type AheadOfTime, type CompactionUpdate, type SummarizerChoice } from "./ahead-of-time.js";
import { ErrorCode, HostError } from "./errors.js";
import type { BeforeCompactHook, BeforeCompactRequest } from "./ports.js";
import type { EventFields } from "./session-events.js";

/** A stored compaction as the compact method and compaction_end report it. */
export type StoredCompaction = ResultOf<"compact">;

export interface CompactionContext {
  sessionId: string;
  file: SessionFile;
  settings: CompactionSettings;
  beforeCompact: BeforeCompactHook;
  /** the system prompt and tool definitions, in tokens (part of every context) */
  overheadTokens: number;
  ahead: AheadOfTime;
  summarizer(): SummarizerChoice;
  emit<E extends "compaction_start" | "compaction_end" | "error">(type: E, fields: EventFields<E>): void;
  emitUpdate(update: CompactionUpdate): void;
  emitUsage(): void;
  /** marks the session as compacting (the controller aborts it), or not */
  setActive(controller: AbortController | null): void;
  /** the last usage report is not the context's size (the endpoint cut the prompt): estimate instead */
  distrustUsage?: boolean;
}

/** What summarizes the span: a summary written ahead of time, or the summarizer now. */
type Source = { prepared: ReturnType<AheadOfTime["claim"]> & object } | { prepared: null };

/**
 * Prepares, summarizes and stores one compaction with its events. Returns null when it was
 * skipped or cancelled (an automatic one that would free too little is reported as an `error`
 * event with code -32017).
 */
export async function runCompaction(ctx: CompactionContext, reason: CompactionReason, outer: AbortSignal, instructions?: string, own?: AbortController): Promise<StoredCompaction | null> {
  const { settings } = ctx;
  const input = { ...compactionInputOf(ctx.file), overheadTokens: ctx.overheadTokens };
  if (ctx.distrustUsage) input.freshFrom = input.messages.length;
  // a summary written ahead of time serves any compaction without instructions of its own
  let source: Source = { prepared: null };
  const prepared = instructions === undefined ? ctx.ahead.claim(ctx.file, input, ctx.summarizer().modelKey, reason, (u) => ctx.emitUpdate(u)) : null;
  if (instructions !== undefined) ctx.ahead.discard((u) => ctx.emitUpdate(u), "the compaction has its own instructions");
  let prep: CompactionPreparation | undefined;
  if (prepared) {
    // the cut it was written for, over today's context: worth it, and under the threshold
    const withCut = prepareCompaction(input, settings, reason, { firstKeptEntryId: prepared.prep.firstKeptEntryId });
    if (withCut.ok && withCut.preparation.projectedTokensAfter < withCut.preparation.tokensBefore) {
      prep = withCut.preparation;
      source = { prepared };
    } else ctx.ahead.discard((u) => ctx.emitUpdate(u), withCut.ok ? "its cut no longer frees enough" : withCut.message);
  }
  if (!prep) {
    const outcome = prepareCompaction(input, settings, reason);
    if (!outcome.ok) {
      // manual: never skipped for too little gain, and no cut named here, so nothing_to_compact is the only failure (the protocol's data)
      if (reason === "manual") throw new HostError(ErrorCode.NothingToCompact, outcome.message, { code: outcome.code as "nothing_to_compact", tokensBefore: outcome.tokensBefore });
      ctx.emit("error", { code: ErrorCode.CompactionSkipped, message: outcome.message, data: { reason, code: outcome.code, tokensBefore: outcome.tokensBefore } });
      return null;
    }
    prep = outcome.preparation;
  }
  const compactionId = source.prepared?.id ?? randomUUID();
  const tag = { reason, compactionId, ...(source.prepared ? { prepared: true } : {}) };
  const controller = own ?? new AbortController();
  const onOuter = () => controller.abort();
  outer.addEventListener("abort", onOuter, { once: true });
  if (outer.aborted) controller.abort();
  ctx.setActive(controller);
  ctx.emit("compaction_start", { ...tag, tokensBefore: prep.tokensBefore });
  let outcome: StoredCompaction | "cancelled";
  try {
    outcome = await summarizeAndStore(ctx, prep, source, compactionId, controller.signal, instructions);
  } catch (err) {
    const aborted = err instanceof CompactionAbortedError || controller.signal.aborted;
    if (aborted) ctx.ahead.discard((u) => ctx.emitUpdate(u), "the compaction was aborted");
    ctx.emit("compaction_end", { ...tag, aborted, willRetry: false, error: aborted ? undefined : (err as Error).message });
    if (aborted && reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction aborted");
    throw aborted ? new CompactionAbortedError() : err;
  } finally {
    ctx.setActive(null);
    outer.removeEventListener("abort", onOuter);
  }
  if (outcome === "cancelled") {
    ctx.emit("compaction_end", { ...tag, aborted: true, willRetry: false, error: "cancelled by the client's beforeCompact hook" });
    if (reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction cancelled by the client's beforeCompact hook");
    return null;
  }
  ctx.emit("compaction_end", { ...tag, result: outcome, aborted: false, willRetry: reason === "overflow", fallback: outcome.fallback });
  ctx.emitUsage();
  return outcome;
}

/** A client's beforeCompact hook decides first; then the prepared summary, pith's summary now, or the client's. */
async function summarizeAndStore(ctx: CompactionContext, p: CompactionPreparation, source: Source, compactionId: string, signal: AbortSignal, instructions?: string): Promise<StoredCompaction | "cancelled"> {
  const decision = await ctx.beforeCompact({ sessionId: ctx.sessionId, reason: p.reason, preparation: wirePreparation(p, instructions) });
  if (signal.aborted) throw new CompactionAbortedError();
  const update = (phase: "summarizing" | "applying") => ctx.emitUpdate({ compactionId, reason: p.reason, phase });
  if (decision.action === "cancel") {
    ctx.ahead.discard((u) => ctx.emitUpdate(u), "the client's beforeCompact hook cancelled the compaction");
    return "cancelled";
  }
  if (decision.action === "replace") {
    ctx.ahead.discard((u) => ctx.emitUpdate(u), "the client's beforeCompact hook wrote the summary");
    const details = decision.details ?? {};
    update("applying");
    ctx.file.append({ type: "compaction", summary: decision.summary, firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore, details, fromHook: true });
    return { summary: decision.summary, firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore, tokensAfter: tokensAfter(decision.summary, p), details, fromHook: true };
  }
  // the prepared summary, once it is done (it went on while the trigger waited); if it failed, pith writes one now
  let result = source.prepared ? await source.prepared.result(signal) : null;
  if (result) result = { ...result, tokensBefore: p.tokensBefore, tokensAfter: tokensAfter(result.summary, p) };
  else {
    const summarizer = ctx.summarizer();
    update("summarizing");
    result = await compact(p, {
      port: summarizer.port,
      limits: summarizer.limits,
      settings: ctx.settings,
      signal,
      instructions,
      onProgress: progressEmitter((u) => ctx.emitUpdate(u), compactionId, () => p.reason),
      onOverflow: (err, tokens) => summarizer.onOverflow(err, tokens),
    });
  }
  if (signal.aborted) throw new CompactionAbortedError();
  update("applying");
  appendCompaction(ctx.file, result);
  // whatever was prepared describes a context that no longer exists
  ctx.ahead.consumed();
  return { summary: result.summary, firstKeptEntryId: result.firstKeptEntryId, tokensBefore: result.tokensBefore, tokensAfter: result.tokensAfter, details: result.details, fallback: result.fallback };
}

/**
 * The preparation as the wire defines it: the pieces a hook needs to write a summary, not pith's
 * working state (the kept messages, indexes, overhead), which would only add bytes to the request.
 */
function wirePreparation(p: CompactionPreparation, instructions: string | undefined): BeforeCompactRequest["preparation"] {
  return {
    firstKeptEntryId: p.firstKeptEntryId,
    tokensBefore: p.tokensBefore,
    keptTokens: p.keptTokens,
    projectedTokensAfter: p.projectedTokensAfter,
    historyMessages: p.historyMessages,
    isSplitTurn: p.isSplitTurn,
    turnPrefixMessages: p.turnPrefixMessages,
    previousSummary: p.previousSummary,
    fileLists: p.fileLists,
    userMessages: p.userMessages,
    instructions,
  };
}

/** The context after storing `summary` over `p`'s cut: the summary, the kept messages, the system prompt and tools. */
function tokensAfter(summary: string, p: CompactionPreparation): number {
  return estimateMessageTokens({ role: "compactionSummary", summary, tokensBefore: p.tokensBefore, timestamp: 0 }) + p.keptTokens + p.overheadTokens;
}
