// Compaction settings. The first three are Pi's, with Pi's defaults.
// What each setting means is documented with its schema, protocol/settings.ts: the settings file's
// `compaction` keys are the same, every one optional there.
import type { CompactionSettings, PruneSettings } from "../../protocol/settings.js";

export type { CompactionSettings, PruneSettings };

const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
  minSavingsFraction: 0.1,
  userMessagesFraction: 0.1,
  maxBlockChars: 2000,
  summaryTimeoutMs: 180_000,
  prepareAt: 0.8,
  prune: { enabled: false, keepToolTokens: 20_000, minPruneTokens: 40_000 },
};

export function compactionSettings(overrides: Partial<Omit<CompactionSettings, "prune">> & { prune?: Partial<PruneSettings> } = {}): CompactionSettings {
  return { ...DEFAULT_COMPACTION_SETTINGS, ...overrides, prune: { ...DEFAULT_COMPACTION_SETTINGS.prune, ...overrides.prune } };
}

type TriggerSettings = Pick<CompactionSettings, "reserveTokens" | "threshold">;

/**
 * The trigger, when automatic compaction is on: `contextTokens > threshold`, the threshold being
 * Pi's `contextWindow - reserveTokens` or the user's own, whichever is lower (see compactionThreshold).
 */
export function shouldCompact(contextTokens: number, contextWindow: number, settings: Pick<CompactionSettings, "enabled"> & TriggerSettings): boolean {
  return settings.enabled && contextTokens > compactionThreshold(contextWindow, settings);
}

/** The user's threshold in tokens for this window: up to 1 a fraction of it, above 1 a count. */
export function userThresholdTokens(contextWindow: number, threshold: number): number {
  return threshold <= 1 ? Math.floor(threshold * contextWindow) : Math.floor(threshold);
}

/**
 * The context size above which an automatic compaction runs: Pi's rule (room for the reply), or
 * the user's threshold where that comes first. A threshold that is not a positive number is
 * ignored (the settings file and the wire refuse one; this keeps a hand-edited session sound).
 */
export function compactionThreshold(contextWindow: number, settings: TriggerSettings): number {
  const pi = contextWindow - settings.reserveTokens;
  const t = settings.threshold;
  if (t === undefined || !Number.isFinite(t) || t <= 0) return pi;
  return Math.min(pi, userThresholdTokens(contextWindow, t));
}

/** Whether to write the next summary ahead of time: past prepareAt of the threshold, below it. */
export function shouldPrepare(contextTokens: number, contextWindow: number, settings: Pick<CompactionSettings, "enabled" | "prepareAt"> & TriggerSettings): boolean {
  if (!settings.enabled || settings.prepareAt <= 0) return false;
  const threshold = compactionThreshold(contextWindow, settings);
  return contextTokens > settings.prepareAt * threshold && contextTokens <= threshold;
}

/** Windows below this are "small": the fixed overhead and the reply take a large share of them. */
const SMALL_WINDOW = 32_000;
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
  // what lies under the trigger (the user's threshold, where it comes before the reserve's)
  const below = compactionThreshold(contextWindow, { reserveTokens, threshold: settings.threshold }) - (contextWindow < SMALL_WINDOW ? overheadTokens : 0);
  const keepRecentTokens = Math.min(settings.keepRecentTokens, Math.max(256, Math.floor(below * 0.4)));
  return { ...settings, reserveTokens, keepRecentTokens };
}
