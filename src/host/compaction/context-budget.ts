// A live session's context budget: the window in effect (the model's, or a smaller one its
// endpoint told us through an overflow), the settings fitted to it, the threshold automatic
// compaction runs at, the context's size, and the summarizer with the window in effect for it:
// the session as a compaction sees it (snapshot). The compaction owner (session-compaction.ts)
// reads all of it here; nothing here compacts.
import { providerSummarizer } from "./summarizer-port.js";
import { compactionInputOf, compactionThreshold, contextTokens, fitToWindow, userThresholdTokens, type CompactionInput, type CompactionSettings, type SummarizerLimits, type SummarizerPort } from "../../compaction/index.js";
import type { ModelInfo, ProviderError } from "../../llm/types.js";
import type { AgentMessage } from "../../messages/types.js";
import { windowAfterOverflow } from "./context-window.js";
import type { CompactionPorts } from "./ports.js";
import { ErrorCode, HostError } from "../host-error.js";
import type { BranchSummarizer } from "../live/tree-move.js";

/**
 * The session as a compaction (or a summary written ahead of time) sees it, read once when it
 * starts and passed along: the context, the settings for its window, the leaf, the summarizer.
 */
export interface CompactionSnapshot {
  input: CompactionInput;
  settings: CompactionSettings;
  leafId: string | null;
  readonly summarizer: SummarizerChoice;
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
  /** conversation framing's port, when it applies to this context (see framingOf) */
  conversation?: SummarizerPort;
}

/** The APIs whose servers cache a repeated prefix: a summary framed as the conversation reads it at a tenth of the price. */
const CACHING_APIS: ReadonlySet<string> = new Set(["anthropic", "openai-responses", "openai-completions"]);

/** The framing a summary uses: the setting's, else conversation where the provider caches; transcript for another model. */
export function framingOf(settings: CompactionSettings, session: ModelInfo, summarizer: ModelInfo): "conversation" | "transcript" {
  if (summarizer.id !== session.id || summarizer.provider !== session.provider) return "transcript";
  if (settings.summaryFraming) return settings.summaryFraming;
  // no api: the scripted provider's, or Anthropic's for models from older tables
  const api = session.api ?? (session.provider === "scripted" ? undefined : "anthropic");
  return api !== undefined && CACHING_APIS.has(api) ? "conversation" : "transcript";
}

export class ContextBudget {
  constructor(private readonly ports: CompactionPorts) {}

  /** The window in effect for `model` (default: the session's): the model's, or a smaller one its endpoint told us. */
  windowOf(model: ModelInfo = this.ports.models.current()): number {
    return Math.min(model.contextWindow, this.ports.stored.learnedWindow(model.id) ?? Number.POSITIVE_INFINITY);
  }

  /** The compaction settings for this session's window (see fitToWindow), with the session's own threshold if it has one. */
  get settings(): CompactionSettings {
    const own = this.ports.stored.compactionThreshold;
    const settings = own === undefined ? this.ports.settings : { ...this.ports.settings, threshold: own };
    return fitToWindow(settings, this.windowOf(), this.ports.models.overheadTokens());
  }

  /** The threshold setting in effect (the session's, else the user's settings'), as set: a fraction or a count. */
  get thresholdSetting(): number | undefined {
    return this.ports.stored.compactionThreshold ?? this.ports.settings.threshold;
  }

  /**
   * Sets the session's own threshold (null: back to the settings'), kept in the session file. A
   * count must fit in the window in effect: above it automatic compaction could never fire there.
   * It applies from the next turn's end, like any trigger.
   */
  setThreshold(threshold: number | null): { threshold: number | null; thresholdTokens: number } {
    const window = this.windowOf();
    if (threshold !== null && userThresholdTokens(window, threshold) > window) {
      const message = `threshold ${threshold} is more tokens than the context window in effect (${window}): give a fraction of it (up to 1) or a count up to ${window}`;
      throw new HostError(ErrorCode.InvalidParams, message, { errors: [], properties: { threshold: { errors: [message] } }, contextWindow: window });
    }
    if (threshold !== (this.ports.stored.compactionThreshold ?? null)) this.ports.stored.update({ compactionThreshold: threshold });
    this.emitUsage();
    return { threshold, thresholdTokens: this.threshold };
  }

  /** The context size above which automatic compaction runs. */
  get threshold(): number {
    return compactionThreshold(this.windowOf(), this.settings);
  }

  /** The context as the model sees it: messages, system prompt and tool definitions. */
  contextTokens(): number {
    const ctx = this.ports.file.buildContext();
    return contextTokens(ctx.messages, ctx.freshFrom, this.ports.models.overheadTokens()).tokens;
  }

  emitUsage(): void {
    this.ports.events.emit("usage_update", { contextTokens: this.contextTokens(), contextWindow: this.windowOf(), threshold: this.threshold });
  }

  /** An overflow from the endpoint: its window is smaller than believed; remember it for the rest of the session. */
  learnWindow(model: ModelInfo, error: unknown, requestTokens: number | undefined): number | undefined {
    const current = this.windowOf(model);
    const next = windowAfterOverflow((error as ProviderError).overflow, requestTokens, current);
    if (next === undefined) return undefined;
    this.ports.logger.warn({ sessionId: this.ports.sessionId, model: model.id, was: current, now: next }, "the endpoint's context window is smaller than the model table says; using its limit");
    this.ports.stored.update({ learnedWindows: { [model.id]: next } });
    this.emitUsage();
    return next;
  }

  /** The model that writes summaries (the settings' or the session's), with the window in effect for it, for `context`. */
  summarizer(context: readonly AgentMessage[]): SummarizerChoice {
    const settings = this.settings;
    const model = settings.model ? this.ports.models.resolve(settings.model) : this.ports.models.current();
    const limits = { contextWindow: this.windowOf(model), maxOutputTokens: model.maxOutputTokens };
    const provider = this.ports.models.providerFor(model);
    const conversation = framingOf(settings, this.ports.models.current(), model) === "conversation" && provider.name !== "scripted" ? this.ports.lastRequest?.conversationPort(context, model, provider) : undefined;
    return {
      conversation,
      port: providerSummarizer(provider, model),
      limits,
      modelKey: `${this.ports.models.current().id}|${model.id}`,
      onOverflow: (err, requestTokens) => {
        const learned = this.learnWindow(model, err, requestTokens);
        if (learned !== undefined) limits.contextWindow = learned;
      },
    };
  }

  /** The session as a compaction sees it now (distrustUsage: the last usage report is not the context's size, estimate instead). */
  snapshot(distrustUsage = false): CompactionSnapshot {
    const input = { ...compactionInputOf(this.ports.file), overheadTokens: this.ports.models.overheadTokens() };
    if (distrustUsage) input.freshFrom = input.messages.length;
    const budget = this;
    let summarizer: SummarizerChoice | undefined;
    return {
      input,
      settings: this.settings,
      leafId: this.ports.file.leafId,
      // built when first needed (a summary the client's hook writes needs none)
      get summarizer() {
        return (summarizer ??= budget.summarizer(input.messages));
      },
    };
  }

  /** What navigateTree summarizes a branch with: the session's model and window. */
  branchSummarizer(emit: BranchSummarizer["emit"]): BranchSummarizer {
    const model = this.ports.models.current();
    const port = providerSummarizer(this.ports.models.providerFor(model), model);
    return { port, limits: { contextWindow: this.windowOf(), maxOutputTokens: model.maxOutputTokens }, settings: this.settings, threshold: this.threshold, emit };
  }
}
