// Compaction the user never waits for. Once the context passes a soft threshold (prepareAt of the
// trigger), the summary of the span before the cut chosen then is written in the background,
// while the user and the agent go on. When the trigger comes, a summary that is ready and still
// valid is applied at once with its cut (the kept part has grown since); one still being written
// is waited for rather than started again; a stale one is thrown away. Nothing of it is stored
// before the trigger, so a session that never reaches it stores nothing extra.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { PreparedCompaction } from "../../protocol/methods.js";
import { compact, prepareCompaction, CompactionAbortedError, type CompactionInput, type CompactionPreparation, type CompactionResult, type CompactionSettings, type SummarizerLimits, type SummarizerPort, type SummaryProgress } from "../compaction/index.js";
import type { SessionFile } from "../session/session-file.js";
import type { EventFields } from "./session-events.js";

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

/** The summarizer a compaction uses, as the session has it now. */
export interface SummarizerChoice {
  port: SummarizerPort;
  /** mutable: a limit learned from an overflow lowers contextWindow for the next request */
  limits: SummarizerLimits;
  /** the summarizer's model id and the session's: a change of either makes a prepared summary stale */
  modelKey: string;
  /** a request was rejected as too long: learn the limit (and lower limits.contextWindow) */
  onOverflow(err: unknown, requestTokens: number): void;
}

export interface PrepareRequest {
  file: SessionFile;
  input: CompactionInput;
  settings: CompactionSettings;
  summarizer: SummarizerChoice;
  emit(update: CompactionUpdate): void;
}

interface Job {
  id: string;
  prep: CompactionPreparation;
  /** the leaf when it was prepared: still valid while it is on the active path */
  basisLeafId: string | null;
  /** the compaction the prepared summary updates (null: none) */
  previousCompactionId: string | null;
  modelKey: string;
  controller: AbortController;
  promise: Promise<CompactionResult | null>;
  result?: CompactionResult | null;
  requests: number;
  /** whose work it is now: "prepare" until a compaction adopts it */
  reason: UpdateReason;
}

/** The latest compaction entry on the active path (its summary opens the context). */
function previousCompactionId(input: CompactionInput): string | null {
  return input.messages.length > 0 && input.messages[0].role === "compactionSummary" ? (input.entryIds[0] ?? null) : null;
}

export class AheadOfTime {
  private job: Job | null = null;
  /** a preparation failed for this basis (the compaction it would update): do not start over until it changes */
  private failedFor: string | null | undefined = undefined;

  constructor(private readonly logger: Logger) {}

  status(): PreparedCompaction | undefined {
    const j = this.job;
    if (!j) return undefined;
    return { compactionId: j.id, status: j.result ? "ready" : "summarizing", firstKeptEntryId: j.prep.firstKeptEntryId, tokensBefore: j.prep.tokensBefore, requests: j.requests };
  }

  /** Starts writing the next summary in the background, unless one is under way (or failed for this basis). */
  start(req: PrepareRequest): void {
    if (this.job) return;
    const basis = previousCompactionId(req.input);
    if (this.failedFor === basis) return;
    const outcome = prepareCompaction(req.input, req.settings, "threshold");
    if (!outcome.ok) return; // not yet worth it: the next turn looks again
    const controller = new AbortController();
    const job: Job = {
      id: randomUUID(),
      prep: outcome.preparation,
      basisLeafId: req.file.leafId,
      previousCompactionId: basis,
      modelKey: req.summarizer.modelKey,
      controller,
      promise: Promise.resolve(null),
      requests: 0,
      reason: "prepare",
    };
    const emit = (u: Omit<CompactionUpdate, "compactionId" | "reason">) => req.emit({ compactionId: job.id, reason: job.reason, ...u });
    const progress = progressEmitter(req.emit, job.id, () => job.reason);
    emit({ phase: "summarizing" });
    job.promise = compact(job.prep, {
      port: req.summarizer.port,
      limits: req.summarizer.limits,
      settings: req.settings,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.type === "chunk") job.requests++;
        progress(p);
      },
      onOverflow: (err, tokens) => req.summarizer.onOverflow(err, tokens),
    }).then(
      (result) => {
        if (result.fallback) {
          // the summarizer failed: the trigger will write the summary itself (and fall back then if it must)
          this.logger.warn({ reason: result.fallback.reason }, "the summary written ahead of time failed; it will be written at the trigger");
          if (this.job === job) this.drop(job, basis);
          return null;
        }
        job.result = result;
        if (this.job === job) emit({ phase: "ready" });
        return result;
      },
      (err) => {
        if (!(err instanceof CompactionAbortedError)) this.logger.warn({ err }, "writing the summary ahead of time failed");
        if (this.job === job) this.drop(job, basis);
        return null;
      },
    );
    this.job = job;
  }

  private drop(_job: Job, failedBasis: string | null): void {
    this.job = null;
    this.failedFor = failedBasis;
  }

  /** Throws away the job (the tree moved, the model changed, an abort): it will not be used. */
  discard(emit: (u: CompactionUpdate) => void, why: string): void {
    const job = this.job;
    if (!job) return;
    this.job = null;
    job.controller.abort();
    this.logger.debug({ compactionId: job.id, why }, "summary written ahead of time discarded");
    emit({ compactionId: job.id, reason: job.reason, phase: "discarded" });
  }

  /**
   * The job, if it can serve a compaction of the context `input` now: the same model, its basis
   * still on the active path, no compaction since. A stale job is discarded. The caller checks
   * the cut and the gain (prepareCompaction with the job's cut) and then awaits `result()`.
   */
  claim(file: SessionFile, input: CompactionInput, modelKey: string, reason: UpdateReason, emit: (u: CompactionUpdate) => void): { id: string; prep: CompactionPreparation; result(signal: AbortSignal): Promise<CompactionResult | null> } | null {
    const job = this.job;
    if (!job) return null;
    const stale =
      job.modelKey !== modelKey ? "the model changed" : previousCompactionId(input) !== job.previousCompactionId ? "a compaction happened since" : !file.isOnPath(job.basisLeafId) ? "the session moved to another branch" : null;
    if (stale) {
      this.discard(emit, stale);
      return null;
    }
    job.reason = reason;
    return {
      id: job.id,
      prep: job.prep,
      result: (signal) => {
        if (job.result !== undefined) return Promise.resolve(job.result);
        return new Promise((resolve, reject) => {
          const onAbort = () => reject(new CompactionAbortedError());
          if (signal.aborted) return onAbort();
          signal.addEventListener("abort", onAbort, { once: true });
          void job.promise.then((r) => {
            signal.removeEventListener("abort", onAbort);
            resolve(r);
          });
        });
      },
    };
  }

  /** A compaction was stored (with the job, or after it was discarded): forget it, and any failure. */
  consumed(): void {
    this.job?.controller.abort();
    this.job = null;
    this.failedFor = undefined;
  }
}
