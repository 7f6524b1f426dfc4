// A live session's context budget: the window in effect (the model's, or a smaller one its
// endpoint told us through an overflow), the settings fitted to it, the threshold automatic
// compaction runs at, the context's size, and the summarizer with the window in effect for it.
// The compaction owner (session-compaction.ts) reads all of it here; nothing here compacts.
import type { Logger } from "pino";
import { providerSummarizer } from "./summarizer-port.js";
import { compactionThreshold, contextTokens, fitToWindow, userThresholdTokens, type CompactionSettings, type SummarizerLimits, type SummarizerPort } from "../../compaction/index.js";
import type { ModelInfo, Provider, ProviderError } from "../../llm/types.js";
import type { AgentMessage } from "../../messages/types.js";
import type { LastRequest } from "./last-request.js";
import type { SessionFile } from "../../session/session-file.js";
import { windowAfterOverflow } from "./context-window.js";
import { ErrorCode, HostError } from "../host-error.js";
import type { BeforeCompactHook } from "../ports.js";
import type { EventFields } from "../session-events.js";
import type { SessionSettings } from "../session-settings.js";
import type { BranchSummarizer } from "../tree-move.js";

/** What the session gives its compaction owner: the one repacking of the session's deps. */
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
  /** the agent's last request as sent (conversation framing sends it again) */
  lastRequest?: LastRequest;
  emit<E extends "compaction_start" | "compaction_update" | "compaction_end" | "compaction_skipped" | "usage_update" | "error">(type: E, fields: EventFields<E>): void;
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
  constructor(private readonly host: CompactionHost) {}

  /** The window in effect for `model` (default: the session's): the model's, or a smaller one its endpoint told us. */
  windowOf(model: ModelInfo = this.host.model()): number {
    return Math.min(model.contextWindow, this.host.stored.learnedWindow(model.id) ?? Number.POSITIVE_INFINITY);
  }

  /** The compaction settings for this session's window (see fitToWindow), with the session's own threshold if it has one. */
  get settings(): CompactionSettings {
    const own = this.host.stored.compactionThreshold;
    const settings = own === undefined ? this.host.settings : { ...this.host.settings, threshold: own };
    return fitToWindow(settings, this.windowOf(), this.host.overheadTokens());
  }

  /** The threshold setting in effect (the session's, else the user's settings'), as set: a fraction or a count. */
  get thresholdSetting(): number | undefined {
    return this.host.stored.compactionThreshold ?? this.host.settings.threshold;
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
    if (threshold !== (this.host.stored.compactionThreshold ?? null)) this.host.stored.update({ compactionThreshold: threshold });
    this.emitUsage();
    return { threshold, thresholdTokens: this.threshold };
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

  /** The model that writes summaries (the settings' or the session's), with the window in effect for it, for `context`. */
  summarizer(context: readonly AgentMessage[]): SummarizerChoice {
    const settings = this.settings;
    const model = settings.model ? this.host.resolveModel(settings.model) : this.host.model();
    const limits = { contextWindow: this.windowOf(model), maxOutputTokens: model.maxOutputTokens };
    const provider = this.host.providerFor(model);
    const conversation = framingOf(settings, this.host.model(), model) === "conversation" && provider.name !== "scripted" ? this.host.lastRequest?.conversationPort(context, model, provider) : undefined;
    return {
      conversation,
      port: providerSummarizer(provider, model),
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
}
