// The one owner of a live session's compactions: automatic ones at the threshold, after an
// overflow (or a prompt the endpoint cut without saying so), manual ones, and the summary written
// ahead of time. Read top to bottom it is the whole story of a compaction: a run's part in it
// (RunCompaction: before each model call, at the run's end, after an overflow), whether to compact
// (autoCompact: on, past the trigger, not just skipped), what to summarize (plan: the prepared
// summary if it still serves, checked here when it is claimed, or a cut chosen now), the client's
// beforeCompact hook, the summary written, and the entry stored (store: the one place one is
// written, whoever wrote the summary). What it calls is ports.ts's; the window, threshold and
// snapshot are context-budget.ts's; the pure steps (cut, summarize) are src/compaction's.
import { randomUUID } from "node:crypto";
import {
  addCost,
  appendCompaction,
  compact,
  emptyCost,
  prepareCompaction,
  shouldCompact,
  shouldPrepare,
  tokensAfterSummary,
  CompactionAbortedError,
  type CompactionPreparation,
  type SummaryCost,
  type CompactionReason,
} from "../../compaction/index.js";
import type { ProviderError } from "../../llm/types.js";
import type { ResultOf } from "../../../protocol/index.js";
import type { PreparedCompaction } from "../../../protocol/methods.js";
import { AheadOfTime, previousCompactionId, progressEmitter, type CompactionUpdate, type PreparedSummary } from "./ahead-of-time.js";
import { cutToFit, refusedAsTooLong, type ContextFull } from "./context-full.js";
import { CompactionSkips } from "./compaction-skips.js";
import { ContextBudget, type CompactionSnapshot } from "./context-budget.js";
import { ErrorCode, HostError } from "../host-error.js";
import type { CompactionPorts, RunCompaction } from "./ports.js";
import { wirePreparation } from "./wire-preparation.js";
import { TruncationWatch } from "./silent-truncation.js";
import { pruneToolOutputsBeforeRequest } from "./tool-output-prune.js";
import type { BranchSummarizer } from "../live/tree-move.js";

/** A stored compaction as the compact method and compaction_end report it. */
export type StoredCompaction = ResultOf<"compact">;

/** One compaction under way: what it summarizes and from what. */
interface Compaction {
  id: string;
  reason: CompactionReason;
  instructions: string | undefined;
  now: CompactionSnapshot;
  prep: CompactionPreparation;
  /** the summary written ahead of time it adopted, if any */
  prepared: PreparedSummary | null;
  signal: AbortSignal;
}

/** A summary to store, whoever wrote it. */
interface Written {
  summary: string;
  details: StoredCompaction["details"];
  fallback?: { reason: string };
  /** what pith's summarizer requests cost (none: the client's hook wrote it) */
  cost?: SummaryCost;
}

export class SessionCompaction implements RunCompaction {
  readonly budget: ContextBudget;
  private readonly ahead: AheadOfTime;
  /** a compaction in progress, manual or inside a run (abort cancels it) */
  private active: AbortController | null = null;
  private auto: boolean;
  /** where an automatic compaction was last skipped: not tried again until the context grew enough */
  private readonly skips: CompactionSkips;
  /** the replies judged for a prompt the endpoint cut */
  private readonly truncation = new TruncationWatch();

  constructor(private readonly ports: CompactionPorts) {
    this.budget = new ContextBudget(ports);
    this.skips = new CompactionSkips(ports.file);
    this.ahead = new AheadOfTime(ports.logger, this.emitUpdate);
    this.auto = ports.stored.autoCompaction ?? ports.settings.enabled;
  }

  private readonly emitUpdate = (u: CompactionUpdate): void => this.ports.events.emit("compaction_update", u);

  // -- reads --
  get isCompacting(): boolean { return this.active !== null; }
  get autoEnabled(): boolean { return this.auto; }
  /** The summary written ahead of time, if any. */
  prepared(): PreparedCompaction | undefined { return this.ahead.status(); }
  // the budget's, for the session
  windowOf(): number { return this.budget.windowOf(); }
  get threshold(): number { return this.budget.threshold; }
  contextTokens(): number { return this.budget.contextTokens(); }
  branchSummarizer(emit: BranchSummarizer["emit"]): BranchSummarizer { return this.budget.branchSummarizer(emit); }

  // -- a run's part (RunCompaction) --
  async beforeModelCall(signal: AbortSignal): Promise<void> {
    // pruning first: leaving old outputs out is cheaper than a summary and may make one unneeded
    pruneToolOutputsBeforeRequest(this.ports.file, this.ports.settings.prune, this.ports.logger);
    await this.autoCompact(signal);
  }

  async atRunEnd(signal: AbortSignal): Promise<void> {
    this.budget.emitUsage();
    await this.autoCompact(signal);
  }

  /**
   * With automatic compaction on, compact ("retry": a summary was stored, the call goes again).
   * Off, pith compacts only when asked, so the run ends with the context full (-32021) and the sizes.
   */
  async afterOverflow(error: ProviderError, signal: AbortSignal, mayRetry: boolean): Promise<"retry" | "stop" | ContextFull> {
    // the error may name the endpoint's real window, smaller than believed: kept for the session
    this.budget.learnWindow(this.ports.models.current(), error, this.contextTokens());
    if (!mayRetry) return "stop";
    if (!this.auto) return refusedAsTooLong(this.contextTokens(), this.windowOf(), error.status);
    const done = await this.run("overflow", signal).catch((err) => {
      if (err instanceof CompactionAbortedError) return null;
      throw err;
    });
    return done ? "retry" : "stop";
  }

  replyRoom(): number {
    return this.windowOf() - this.contextTokens();
  }

  // -- when --
  /** At the trigger, compacts; past the soft threshold below it, writes the summary ahead of time. */
  private async autoCompact(signal: AbortSignal): Promise<void> {
    if (signal.aborted || (await this.afterTruncation(signal))) return;
    if (!this.auto) return;
    const tokens = this.contextTokens();
    const window = this.windowOf();
    const settings = { ...this.budget.settings, enabled: true };
    if (shouldPrepare(tokens, window, settings)) this.ahead.start({ ...this.budget.snapshot(), settings });
    if (!shouldCompact(tokens, window, settings)) return;
    // skipped not long ago: until the context grew enough the cut cannot free more, nothing new to say
    if (this.skips.holds(tokens, settings.minSavingsFraction)) return;
    try {
      await this.run("threshold", signal);
    } catch (err) {
      if (!(err instanceof CompactionAbortedError)) this.ports.logger.error({ err, sessionId: this.ports.sessionId }, "automatic compaction failed");
    }
  }

  /**
   * The endpoint cut the last prompt without saying so (see silent-truncation.ts): learn the window
   * its report implies, tell the clients, and compact before the next call, as after an overflow;
   * with automatic compaction off, only tell them (-32021: pith compacts only when asked). True
   * when it found a cut.
   */
  private async afterTruncation(signal: AbortSignal): Promise<boolean> {
    const model = this.ports.models.current();
    const cut = this.truncation.newCut(model, () => this.ports.file.buildContext().messages, this.ports.models.overheadTokens());
    if (!cut) return false;
    const { reportedTokens, estimatedTokens } = cut;
    this.budget.learnWindow(model, { overflow: { maximum: cut.impliedWindow } }, undefined);
    if (!this.auto) {
      this.ports.events.emit("error", { code: ErrorCode.ContextFull, ...cutToFit(cut, this.windowOf()) });
      return true;
    }
    this.ports.events.emit("error", {
      code: ErrorCode.ProviderError,
      message: `the endpoint cut the prompt to fit its window: it read ${reportedTokens} tokens of about ${estimatedTokens} sent; compacting`,
      data: { class: "overflow", truncated: true, retryable: false, reportedTokens, estimatedTokens },
    });
    try {
      // the cut reply's usage counts only what the endpoint kept: the context is sized by estimate
      await this.run("overflow", signal, undefined, true);
    } catch (err) {
      if (!(err instanceof CompactionAbortedError)) this.ports.logger.error({ err, sessionId: this.ports.sessionId }, "compaction after a cut prompt failed");
    }
    return true;
  }

  // -- one compaction --
  /**
   * One compaction with its events: compaction_start, compaction_update (the summary as it is
   * written, then "applying"), compaction_end with the result, the fallback, or why it stopped.
   * Null when skipped (an automatic one that would free too little is reported once as a
   * compaction_skipped event, see compaction-skips.ts) or cancelled; a manual one throws instead.
   */
  async run(reason: CompactionReason, outer: AbortSignal, instructions?: string, distrustUsage = false): Promise<StoredCompaction | null> {
    const now = this.budget.snapshot(distrustUsage);
    const plan = this.plan(now, reason, instructions);
    if (!plan) return null;
    const controller = new AbortController();
    const c: Compaction = { id: plan.prepared?.id ?? randomUUID(), reason, instructions, now, ...plan, signal: controller.signal };
    const tag = { reason, compactionId: c.id, ...(c.prepared ? { prepared: true } : {}) };
    const onOuter = () => controller.abort();
    outer.addEventListener("abort", onOuter, { once: true });
    if (outer.aborted) controller.abort();
    this.active = controller;
    this.ports.events.emit("compaction_start", { ...tag, tokensBefore: c.prep.tokensBefore });
    let outcome: StoredCompaction & { cost?: SummaryCost } | "cancelled";
    try {
      outcome = await this.summarizeAndStore(c);
    } catch (err) {
      const aborted = err instanceof CompactionAbortedError || controller.signal.aborted;
      if (aborted) this.discardPrepared("the compaction was aborted");
      this.ports.events.emit("compaction_end", { ...tag, aborted, willRetry: false, error: aborted ? undefined : (err as Error).message });
      if (aborted && reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction aborted");
      throw aborted ? new CompactionAbortedError() : err;
    } finally {
      this.active = null;
      outer.removeEventListener("abort", onOuter);
    }
    if (outcome === "cancelled") {
      this.discardPrepared("the client's beforeCompact hook cancelled the compaction");
      this.ports.events.emit("compaction_end", { ...tag, aborted: true, willRetry: false, error: "cancelled by the client's beforeCompact hook" });
      if (reason === "manual") throw new HostError(ErrorCode.Aborted, "compaction cancelled by the client's beforeCompact hook");
      // the hook said no at this size: asked again once the context grew, like a skip
      this.skips.cancelled(c.prep.tokensBefore);
      return null;
    }
    const { cost, ...result } = outcome;
    this.ports.events.emit("compaction_end", { ...tag, result, aborted: false, willRetry: reason === "overflow", fallback: outcome.fallback, ...(cost ? { cost } : {}) });
    this.budget.emitUsage();
    return result;
  }

  /** What to summarize: the prepared summary's cut when it still serves, else a cut chosen now; null when skipped. */
  private plan(now: CompactionSnapshot, reason: CompactionReason, instructions: string | undefined): Pick<Compaction, "prep" | "prepared"> | null {
    const claimed = this.claimPrepared(now, reason, instructions);
    if (claimed) return claimed;
    const outcome = prepareCompaction(now.input, now.settings, reason);
    if (outcome.ok) return { prep: outcome.preparation, prepared: null };
    // manual: never skipped for too little gain and no cut named, so nothing_to_compact is its only failure (the protocol's data)
    if (reason === "manual") throw new HostError(ErrorCode.NothingToCompact, outcome.message, { code: "nothing_to_compact", tokensBefore: outcome.tokensBefore });
    // not an error: the session goes on; said once for a context (an overflow at the size just judged adds nothing)
    if (this.skips.skipped(outcome.tokensBefore, now.settings.minSavingsFraction)) {
      this.ports.events.emit("compaction_skipped", { reason, code: outcome.code, tokensBefore: outcome.tokensBefore, message: outcome.message });
    }
    return null;
  }

  /**
   * The summary written ahead of time, if it can serve this compaction: one without instructions
   * of its own, for the same models, not aborted, its span still the context's (its leaf on the
   * active path, no compaction since), and its cut, over today's context, still freeing tokens.
   * This is where a stale one is found and discarded, whatever made it stale.
   */
  private claimPrepared(now: CompactionSnapshot, reason: CompactionReason, instructions: string | undefined): Pick<Compaction, "prep" | "prepared"> | null {
    if (instructions !== undefined) {
      this.discardPrepared("the compaction has its own instructions");
      return null;
    }
    const modelKey = now.summarizer.modelKey;
    const held = this.ahead.held;
    if (!held) return null;
    const stale = held.aborted
      ? "it was aborted"
      : held.modelKey !== modelKey
        ? "the model changed"
        : previousCompactionId(now.input) !== held.previousCompactionId
          ? "a compaction happened since"
          : !this.ports.file.isOnPath(held.basisLeafId)
            ? "the session moved to another branch"
            : null;
    if (stale) {
      this.discardPrepared(stale);
      return null;
    }
    held.reason = reason; // its updates go on under the compaction's reason
    const withCut = prepareCompaction(now.input, now.settings, reason, { firstKeptEntryId: held.prep.firstKeptEntryId });
    if (withCut.ok && withCut.preparation.projectedTokensAfter < withCut.preparation.tokensBefore) return { prep: withCut.preparation, prepared: held };
    this.discardPrepared(withCut.ok ? "its cut no longer frees enough" : withCut.message);
    return null;
  }

  /** The client's beforeCompact hook decides first; then the prepared summary, pith's summary now, or the client's. */
  private async summarizeAndStore(c: Compaction): Promise<StoredCompaction & { cost?: SummaryCost } | "cancelled"> {
    const decision = await this.ports.beforeCompact({ sessionId: this.ports.sessionId, reason: c.reason, preparation: wirePreparation(c.prep, c.instructions) });
    if (c.signal.aborted) throw new CompactionAbortedError();
    if (decision.action === "cancel") return "cancelled";
    if (decision.action === "replace") return this.store(c, { summary: decision.summary, details: decision.details ?? {} }, true);
    // the prepared summary, once it is done (it went on while the trigger waited); if it failed, pith writes one now
    const written = (c.prepared && (await c.prepared.result(c.signal))) ?? (await this.summarize(c));
    if (c.signal.aborted) throw new CompactionAbortedError();
    return this.store(c, written);
  }

  /** pith's summary of the compaction's span, written now. */
  private summarize(c: Compaction): Promise<Written> {
    const summarizer = c.now.summarizer;
    this.emitUpdate({ compactionId: c.id, reason: c.reason, phase: "summarizing" });
    return compact(c.prep, {
      port: summarizer.port,
      conversation: summarizer.conversation,
      limits: summarizer.limits,
      settings: c.now.settings,
      signal: c.signal,
      instructions: c.instructions,
      onProgress: progressEmitter(this.emitUpdate, c.id, () => c.reason),
      onOverflow: (err, tokens) => summarizer.onOverflow(err, tokens),
    });
  }

  /** Stores the compaction's entry: the one place one is written, whoever wrote the summary (fromHook: the client's hook did). */
  private store(c: Compaction, written: Written, fromHook = false): StoredCompaction & { cost?: SummaryCost } {
    // a summary written ahead of time, if one is held, gives way to the client's
    if (fromHook) this.discardPrepared("the client's beforeCompact hook wrote the summary");
    this.emitUpdate({ compactionId: c.id, reason: c.reason, phase: "applying" });
    const { firstKeptEntryId, tokensBefore } = c.prep;
    const tokensAfter = tokensAfterSummary(written.summary, c.prep);
    // reason and tokensAfter stored too: a marker drawn after a reload reads as the live one did (getHistory)
    // a summary written ahead of time that failed was billed too: this compaction reports it
    const wasted = this.ahead.takeWasted();
    const cost = wasted && !fromHook ? { ...(written.cost ?? emptyCost()) } : written.cost;
    if (wasted && cost) addCost(cost, wasted);
    const details = { ...written.details, reason: c.reason, tokensAfter, ...(cost ? { cost } : {}) } as StoredCompaction["details"];
    appendCompaction(this.ports.file, { summary: written.summary, firstKeptEntryId, tokensBefore, details }, fromHook);
    // whatever was prepared, or judged not worth it, describes a context that no longer exists
    this.ahead.spent();
    this.skips.stored();
    this.ports.lastRequest?.forget();
    const stored = { summary: written.summary, firstKeptEntryId, tokensBefore, tokensAfter, details: written.details };
    return fromHook ? { ...stored, fromHook: true } : { ...stored, fallback: written.fallback, cost };
  }

  // -- changes from outside --
  setAuto(enabled: boolean): void {
    if (enabled !== this.auto) {
      // a setting of the session, not of a branch: kept in a bookkeeping entry read from anywhere
      this.ports.stored.update({ autoCompaction: enabled });
      this.auto = enabled;
    }
    if (!enabled) this.discardPrepared("automatic compaction was turned off");
  }

  /**
   * Throws the summary written ahead of time away, with a "discarded" update: the one way it goes.
   * A claim finds a stale one anyway; the session calls this where the protocol promises the
   * update at once (a tree move, a new model, an abort) and to stop the summarizer's requests.
   */
  discardPrepared(why: string): void {
    this.ahead.discard(why);
  }

  /** Cancels a compaction in progress; true if one was. */
  abort(): boolean {
    if (!this.active) return false;
    this.active.abort();
    return true;
  }
}
