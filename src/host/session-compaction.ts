// A live session's context budget: the window in effect (the model's, or a smaller one its
// endpoint told us through an overflow), the threshold automatic compaction runs at, the summary
// written ahead of time, and the compactions themselves (compaction-runner.ts does one). The
// session owns one of these; the run's hooks and the compact method go through it.
import type { Logger } from "pino";
import { providerSummarizer } from "../agent/summarizer-port.js";
import {
  compactionInputOf,
  compactionThreshold,
  contextTokens,
  fitToWindow,
  shouldCompact,
  shouldPrepare,
  CompactionAbortedError,
  type CompactionReason,
  type CompactionSettings,
} from "../compaction/index.js";
import type { ModelInfo, Provider, ProviderError } from "../llm/types.js";
import type { SessionFile } from "../session/session-file.js";
import type { PreparedCompaction } from "../../protocol/methods.js";
import { AheadOfTime, type CompactionUpdate, type SummarizerChoice } from "./ahead-of-time.js";
import { runCompaction, type StoredCompaction } from "./compaction-runner.js";
import { windowAfterOverflow } from "./context-window.js";
import { ErrorCode } from "./errors.js";
import { detectTruncation } from "./silent-truncation.js";
import type { BeforeCompactHook } from "./ports.js";
import type { EventFields } from "./session-events.js";
import type { SessionSettings } from "./session-settings.js";
import type { BranchSummarizer } from "./tree-move.js";

export interface CompactionHost {
  sessionId: string;
  file: SessionFile;
  stored: SessionSettings;
  logger: Logger;
  settings: CompactionSettings;
  beforeCompact: BeforeCompactHook;
  providerFor(model: ModelInfo): Provider;
  resolveModel(id: string): ModelInfo;
  /** the session's model now (it can change between compactions) */
  model(): ModelInfo;
  /** the system prompt and tool definitions in tokens: sent with every request */
  overheadTokens(): number;
  emit<E extends "compaction_start" | "compaction_update" | "compaction_end" | "usage_update" | "error">(type: E, fields: EventFields<E>): void;
}

export class SessionCompaction {
  private readonly ahead: AheadOfTime;
  /** a compaction in progress, manual or inside a run (abort cancels it) */
  private active: AbortController | null = null;
  private auto: boolean;

  constructor(private readonly host: CompactionHost) {
    this.ahead = new AheadOfTime(host.logger);
    this.auto = host.stored.autoCompaction ?? host.settings.enabled;
  }

  readonly emitUpdate = (u: CompactionUpdate): void => this.host.emit("compaction_update", u);

  get isCompacting(): boolean {
    return this.active !== null;
  }

  get autoEnabled(): boolean {
    return this.auto;
  }

  /** The summary written ahead of time, if any. */
  prepared(): PreparedCompaction | undefined {
    return this.ahead.status();
  }

  /** The window in effect for `model` (default: the session's): the model's, or a smaller one its endpoint told us. */
  windowOf(model: ModelInfo = this.host.model()): number {
    return Math.min(model.contextWindow, this.host.stored.learnedWindow(model.id) ?? Number.POSITIVE_INFINITY);
  }

  /** The compaction settings for this session's window (see fitToWindow). */
  get settings(): CompactionSettings {
    return fitToWindow(this.host.settings, this.windowOf(), this.host.overheadTokens());
  }

  /** The context size above which automatic compaction runs. */
  get threshold(): number {
    return compactionThreshold(this.windowOf(), this.settings);
  }

  /** The context as the model sees it: messages, system prompt and tool definitions. */
  contextTokens(): number {
    const ctx = this.host.file.buildContext();
    return contextTokens(ctx.messages, ctx.freshFrom, this.host.overheadTokens()).tokens;
  }

  emitUsage(): void {
    this.host.emit("usage_update", { contextTokens: this.contextTokens(), contextWindow: this.windowOf(), threshold: this.threshold });
  }

  /** An overflow from the endpoint: its window is smaller than believed; remember it for the rest of the session. */
  learnWindow(model: ModelInfo, error: unknown, requestTokens: number | undefined): number | undefined {
    const current = this.windowOf(model);
    const next = windowAfterOverflow((error as ProviderError).overflow, requestTokens, current);
    if (next === undefined) return undefined;
    this.host.logger.warn({ sessionId: this.host.sessionId, model: model.id, was: current, now: next }, "the endpoint's context window is smaller than the model table says; using its limit");
    this.host.stored.update({ learnedWindows: { [model.id]: next } });
    this.emitUsage();
    return next;
  }

  /** At the trigger, compacts; past the soft threshold below it, writes the summary ahead of time. */
  async autoCompact(reason: CompactionReason, signal: AbortSignal): Promise<void> {
    if (signal.aborted || (await this.afterTruncation(signal))) return;
    if (!this.auto) return;
    const tokens = this.contextTokens();
    const settings = { ...this.settings, enabled: true };
    if (shouldPrepare(tokens, this.windowOf(), settings)) {
      const input = { ...compactionInputOf(this.host.file), overheadTokens: this.host.overheadTokens() };
      this.ahead.start({ file: this.host.file, input, settings, summarizer: this.summarizer(), emit: this.emitUpdate });
    }
    if (!shouldCompact(tokens, this.windowOf(), settings)) return;
    // skipped for too little gain at this size already: nothing new to summarize, nothing new to say
    if (this.skippedAt !== undefined && tokens <= this.skippedAt) return;
    try {
      const done = await this.run(reason, signal);
      this.skippedAt = done === null && !signal.aborted ? tokens : undefined;
    } catch (err) {
      if (!(err instanceof CompactionAbortedError)) this.host.logger.error({ err, sessionId: this.host.sessionId }, "automatic compaction failed");
    }
  }

  /** the context size an automatic compaction was last skipped at (too little to gain) */
  private skippedAt: number | undefined;

  /** the newest reply already judged for truncation (its timestamp) */
  private judged = -1;

  /**
   * The endpoint cut the last prompt without saying so (see silent-truncation.ts): learn the window
   * its report implies, tell the clients, and compact before the next call, whatever the
   * automatic-compaction setting (an overflow is recovered from the same way). True when it did.
   */
  private async afterTruncation(signal: AbortSignal): Promise<boolean> {
    // the vendors' APIs refuse a prompt too long; only local and compatible servers cut one
    const api = this.host.model().api;
    if (api !== "ollama" && api !== "openai-completions") return false;
    const ctx = this.host.file.buildContext();
    const cut = detectTruncation(ctx.messages, this.host.overheadTokens());
    if (!cut || cut.reply.timestamp === this.judged) return false;
    this.judged = cut.reply.timestamp;
    const { reportedTokens, estimatedTokens } = cut;
    this.learnWindow(this.host.model(), { overflow: { maximum: cut.impliedWindow } }, undefined);
    this.host.emit("error", {
      code: ErrorCode.ProviderError,
      message: `the endpoint cut the prompt to fit its window: it read ${reportedTokens} tokens of about ${estimatedTokens} sent; compacting`,
      data: { class: "overflow", truncated: true, retryable: false, reportedTokens, estimatedTokens },
    });
    try {
      // the cut reply's usage counts only what the endpoint kept: the context is sized by estimate
      await this.run("overflow", signal, undefined, undefined, true);
    } catch (err) {
      if (!(err instanceof CompactionAbortedError)) this.host.logger.error({ err, sessionId: this.host.sessionId }, "compaction after a cut prompt failed");
    }
    return true;
  }

  /** The model that writes summaries (the settings' or the session's), with the window in effect for it. */
  private summarizer(): SummarizerChoice {
    const model = this.settings.model ? this.host.resolveModel(this.settings.model) : this.host.model();
    const limits = { contextWindow: this.windowOf(model), maxOutputTokens: model.maxOutputTokens };
    return {
      port: providerSummarizer(this.host.providerFor(model), model),
      limits,
      modelKey: `${this.host.model().id}|${model.id}`,
      onOverflow: (err, requestTokens) => {
        const learned = this.learnWindow(model, err, requestTokens);
        if (learned !== undefined) limits.contextWindow = learned;
      },
    };
  }

  /** What navigateTree summarizes a branch with: the session's model and window. */
  branchSummarizer(emit: BranchSummarizer["emit"]): BranchSummarizer {
    const model = this.host.model();
    const port = providerSummarizer(this.host.providerFor(model), model);
    return { port, limits: { contextWindow: this.windowOf(), maxOutputTokens: model.maxOutputTokens }, settings: this.settings, threshold: this.threshold, emit };
  }

  /** One compaction with its events (see runCompaction); null when skipped or cancelled. */
  run(reason: CompactionReason, outer: AbortSignal, instructions?: string, own?: AbortController, distrustUsage = false): Promise<StoredCompaction | null> {
    return runCompaction(
      {
        sessionId: this.host.sessionId,
        file: this.host.file,
        settings: this.settings,
        beforeCompact: this.host.beforeCompact,
        overheadTokens: this.host.overheadTokens(),
        ahead: this.ahead,
        summarizer: () => this.summarizer(),
        emit: (type, fields) => this.host.emit(type, fields),
        emitUpdate: this.emitUpdate,
        emitUsage: () => this.emitUsage(),
        setActive: (controller) => (this.active = controller),
        distrustUsage,
      },
      reason,
      outer,
      instructions,
      own,
    );
  }

  setAuto(enabled: boolean): void {
    if (enabled !== this.auto) {
      // a setting of the session, not of a branch: kept in a bookkeeping entry read from anywhere
      this.host.stored.update({ autoCompaction: enabled });
      this.auto = enabled;
    }
    if (!enabled) this.discardPrepared("automatic compaction was turned off");
  }

  /** A summary written ahead of time no longer fits the session (a tree move, a new model, an abort). */
  discardPrepared(why: string): void {
    this.ahead.discard(this.emitUpdate, why);
  }

  /** Cancels a compaction in progress; true if one was. */
  abort(): boolean {
    if (!this.active) return false;
    this.active.abort();
    return true;
  }
}
