// Compaction the user never waits for: the summary written in the background once the context
// passes a soft threshold (prepareAt of the trigger), for the cut chosen then, while the user and
// the agent go on. This file only writes it and holds it; whether it can still serve is decided by
// the compaction owner when a compaction claims it (session-compaction.ts). Nothing of it is
// stored before the trigger, so a session that never reaches it stores nothing extra.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { addCost, compact, emptyCost, prepareCompaction, CompactionAbortedError, type SummaryCost, type CompactionInput, type CompactionPreparation, type CompactionResult, type SummaryProgress } from "../../compaction/index.js";
import type { PreparedCompaction } from "../../../protocol/methods.js";
import type { CompactionSnapshot } from "./context-budget.js";
import type { EventFields } from "../live/session-events.js";

/** What compaction_update carries besides sessionId and seq. */
export type CompactionUpdate = EventFields<"compaction_update">;
export type UpdateReason = CompactionUpdate["reason"];


/** Turns a summary's progress into compaction_update events. */
export function progressEmitter(emit: (u: CompactionUpdate) => void, compactionId: string, reason: () => UpdateReason): (p: SummaryProgress) => void {
  return (p) => {
    if (p.type === "chunk") emit({ compactionId, reason: reason(), phase: "chunk", chunk: { index: p.index, count: p.count } });
    else if (p.text.length > 0) emit({ compactionId, reason: reason(), phase: "summarizing", delta: p.text });
  };
}

/** The latest compaction entry on the active path (its summary opens the context); null: none. */
export function previousCompactionId(input: CompactionInput): string | null {
  return input.messages.length > 0 && input.messages[0].role === "compactionSummary" ? (input.entryIds[0] ?? null) : null;
}

/** A summary being written ahead of time, or written: what the owner checks before it serves. */
export interface PreparedSummary {
  readonly id: string;
  /** the cut it was written for */
  readonly prep: CompactionPreparation;
  /** the leaf when it was prepared: its span is still the context's while this is on the active path */
  readonly basisLeafId: string | null;
  /** the compaction the summary updates (null: none) */
  readonly previousCompactionId: string | null;
  readonly modelKey: string;
  readonly aborted: boolean;
  /** whose work it is now: "prepare" until a compaction adopts it */
  reason: UpdateReason;
  /** the summary once written; null when writing it failed (the compaction writes one itself) */
  result(signal: AbortSignal): Promise<CompactionResult | null>;
}

interface Job extends PreparedSummary {
  controller: AbortController;
  promise: Promise<CompactionResult | null>;
  written?: CompactionResult | null;
  requests: number;
}

export class AheadOfTime {
  private job: Job | null = null;
  /** a preparation failed for this basis (the compaction it would update): do not start over until it changes */
  private failedFor: string | null | undefined = undefined;
  /** what summaries written ahead of time that failed cost: billed all the same, reported with the next compaction */
  private wasted: SummaryCost | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly emit: (u: CompactionUpdate) => void,
  ) {}

  /** The summary held, if any (the owner claims it, checking it still fits the session). */
  get held(): PreparedSummary | null {
    return this.job;
  }

  status(): PreparedCompaction | undefined {
    const j = this.job;
    if (!j) return undefined;
    return { compactionId: j.id, status: j.written ? "ready" : "summarizing", firstKeptEntryId: j.prep.firstKeptEntryId, tokensBefore: j.prep.tokensBefore, requests: j.requests };
  }

  /** Starts writing the next summary in the background, unless one is under way (or failed for this basis). */
  start(from: CompactionSnapshot): void {
    if (this.job) return;
    const basis = previousCompactionId(from.input);
    if (this.failedFor === basis) return;
    const outcome = prepareCompaction(from.input, from.settings, "threshold");
    if (!outcome.ok) return; // not yet worth it: the next turn looks again
    const controller = new AbortController();
    const job: Job = {
      id: randomUUID(),
      prep: outcome.preparation,
      basisLeafId: from.leafId,
      previousCompactionId: basis,
      modelKey: from.summarizer.modelKey,
      get aborted() {
        return controller.signal.aborted;
      },
      reason: "prepare",
      result: (signal) => waitFor(job, signal),
      controller,
      promise: Promise.resolve(null),
      requests: 0,
    };
    const progress = progressEmitter(this.emit, job.id, () => job.reason);
    this.emit({ compactionId: job.id, reason: job.reason, phase: "summarizing" });
    job.promise = compact(job.prep, {
      port: from.summarizer.port,
      conversation: from.summarizer.conversation,
      limits: from.summarizer.limits,
      settings: from.settings,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.type === "chunk") job.requests++;
        progress(p);
      },
      onOverflow: (err, tokens) => from.summarizer.onOverflow(err, tokens),
    }).then(
      (result) => {
        if (result.fallback) {
          this.wasted ??= emptyCost();
          addCost(this.wasted, result.cost);
          // the summarizer failed: the trigger will write the summary itself (and fall back then if it must)
          this.logger.warn({ reason: result.fallback.reason }, "the summary written ahead of time failed; it will be written at the trigger");
          this.failed(job, basis);
          return null;
        }
        job.written = result;
        if (this.job === job) this.emit({ compactionId: job.id, reason: job.reason, phase: "ready" });
        return result;
      },
      (err) => {
        if (!(err instanceof CompactionAbortedError)) this.logger.warn({ err }, "writing the summary ahead of time failed");
        this.failed(job, basis);
        return null;
      },
    );
    this.job = job;
  }

  private failed(job: Job, basis: string | null): void {
    if (this.job !== job) return;
    this.job = null;
    this.failedFor = basis;
  }

  /** Throws the summary away (it will not be used) and says so with a "discarded" update. */
  discard(why: string): void {
    const job = this.job;
    if (!job) return;
    this.job = null;
    job.controller.abort();
    this.logger.debug({ compactionId: job.id, why }, "summary written ahead of time discarded");
    this.emit({ compactionId: job.id, reason: job.reason, phase: "discarded" });
  }

  /** What failed summaries written ahead of time cost since the last compaction (then reset). */
  takeWasted(): SummaryCost | null {
    const w = this.wasted;
    this.wasted = null;
    return w;
  }

  /** A compaction was stored (with the summary, or another): whatever was held describes a context that no longer exists. */
  spent(): void {
    this.job?.controller.abort();
    this.job = null;
    this.failedFor = undefined;
  }
}

/** The job's summary once written (at once if it is), unless `signal` aborts the wait first. */
function waitFor(job: Job, signal: AbortSignal): Promise<CompactionResult | null> {
  if (job.written !== undefined) return Promise.resolve(job.written);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new CompactionAbortedError());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    void job.promise.then((r) => {
      signal.removeEventListener("abort", onAbort);
      resolve(r);
    });
  });
}
