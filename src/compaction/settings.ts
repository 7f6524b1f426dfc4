// Compaction settings. The first three are Pi's, with Pi's defaults.
import type { CompactionSettingsShape } from "../../protocol/settings.js";
import type { Assert, SameShape } from "../../protocol/type-checks.js";

export interface PruneSettings {
  /** replace old tool outputs with a placeholder in the model's view (never in the file) */
  enabled: boolean;
  /** the newest tool output kept whole, in tokens */
  keepToolTokens: number;
  /** prune only when at least this many tokens would be freed */
  minPruneTokens: number;
}

export interface CompactionSettings {
  /** automatic compaction on (manual compaction works either way) */
  enabled: boolean;
  /** room left for the model's reply: compact when context > window - reserveTokens */
  reserveTokens: number;
  /** recent context kept verbatim, in tokens */
  keepRecentTokens: number;
  /** model that writes summaries (default: the session's) */
  model?: string;
  /** an automatic compaction that would free less than this fraction of the context is skipped */
  minSavingsFraction: number;
  /** user messages carried verbatim from the summarized span, as a fraction of keepRecentTokens */
  userMessagesFraction: number;
  /** tool results, thinking and extension messages are cut to this many characters for the summarizer */
  maxBlockChars: number;
  /** a summarizer request taking longer than this fails (and the fallback summary is used) */
  summaryTimeoutMs: number;
  /**
   * ahead-of-time compaction: once the context passes this fraction of the trigger threshold,
   * the summary is written in the background so the trigger finds it ready (0: off)
   */
  prepareAt: number;
  /**
   * how a summary is asked for: "conversation" sends the agent's last request again (read from the
   * prompt cache) with the ask after it; "transcript" serializes the span into one new message.
   * Unset: conversation where the provider caches, transcript elsewhere or for another model.
   */
  summaryFraming?: "conversation" | "transcript";
  prune: PruneSettings;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
  minSavingsFraction: 0.1,
  userMessagesFraction: 0.1,
  maxBlockChars: 2000,
  summaryTimeoutMs: 180_000,
  prepareAt: 0.8,
  prune: { enabled: false, keepToolTokens: 40_000, minPruneTokens: 20_000 },
};

export function compactionSettings(overrides: Partial<Omit<CompactionSettings, "prune">> & { prune?: Partial<PruneSettings> } = {}): CompactionSettings {
  return { ...DEFAULT_COMPACTION_SETTINGS, ...overrides, prune: { ...DEFAULT_COMPACTION_SETTINGS.prune, ...overrides.prune } };
}

/** Pi's trigger: `contextTokens > contextWindow - reserveTokens`, when automatic compaction is on. */
export function shouldCompact(contextTokens: number, contextWindow: number, settings: Pick<CompactionSettings, "enabled" | "reserveTokens">): boolean {
  return settings.enabled && contextTokens > compactionThreshold(contextWindow, settings);
}

/** The context size above which an automatic compaction runs. */
export function compactionThreshold(contextWindow: number, settings: Pick<CompactionSettings, "reserveTokens">): number {
  return contextWindow - settings.reserveTokens;
}

/** Whether to write the next summary ahead of time: past prepareAt of the threshold, below it. */
export function shouldPrepare(contextTokens: number, contextWindow: number, settings: Pick<CompactionSettings, "enabled" | "reserveTokens" | "prepareAt">): boolean {
  if (!settings.enabled || settings.prepareAt <= 0) return false;
  const threshold = compactionThreshold(contextWindow, settings);
  return contextTokens > settings.prepareAt * threshold && contextTokens <= threshold;
}

/** Windows below this are "small": the fixed overhead and the reply take a large share of them. */
export const SMALL_WINDOW = 32_000;
/** The reserve's share of a window: half at SMALL_WINDOW and above (Pi's rule), a quarter at 8k and below. */
function reserveShare(contextWindow: number): number {
  const t = Math.min(1, Math.max(0, (contextWindow - 8192) / (SMALL_WINDOW - 8192)));
  return 0.25 + 0.25 * t;
}

/**
 * Settings fitted to a model's window. Pi's defaults assume a window of 100k tokens or more; on
 * a small one (a local model, the offline demo) keeping 20k tokens verbatim with a 16k reserve
 * would leave nothing to summarize, and every automatic compaction would be skipped. The reserve
 * is capped at half the window for windows of 32k and more, shrinking smoothly to a quarter at 8k
 * (measured with an 8k model: at half, the system prompt and tool definitions (~3k tokens) plus one
 * 1.5k-token prompt were already past the threshold, and every compaction was skipped). The
 * verbatim part is capped at 40% of what remains below the threshold once `overheadTokens` (the
 * system prompt and tools, sent with every request) is taken out, so a summary, the kept part and
 * the next prompt fit under the threshold together.
 */
export function fitToWindow(settings: CompactionSettings, contextWindow: number, overheadTokens = 0): CompactionSettings {
  const reserveTokens = Math.min(settings.reserveTokens, Math.floor(contextWindow * reserveShare(contextWindow)));
  const below = contextWindow - reserveTokens - (contextWindow < SMALL_WINDOW ? overheadTokens : 0);
  const keepRecentTokens = Math.min(settings.keepRecentTokens, Math.max(256, Math.floor(below * 0.4)));
  return { ...settings, reserveTokens, keepRecentTokens };
}

// The settings file's compaction keys are the protocol's (protocol/settings.ts), all optional
// there; filled in, they must be exactly these.
type WireCompaction = Omit<CompactionSettingsShape, "model" | "prune" | "summaryFraming"> & { model?: string; summaryFraming?: CompactionSettingsShape["summaryFraming"]; prune: Required<CompactionSettingsShape["prune"]> };
export type WireSettingsCheck = Assert<SameShape<CompactionSettings, WireCompaction>>;
