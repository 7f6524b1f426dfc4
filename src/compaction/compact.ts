// Runs a prepared compaction: asks the summarizer (bounded, chunked), falls back to an
// extractive summary if it fails, and assembles the result the caller stores as an entry.
import type { CompactionDetails as StoredDetails, CompactionResult as StoredCompaction } from "../../protocol/messages.js";
import { estimateMessageTokens, estimateTextTokens } from "./estimate.js";
import { extractiveSummary } from "./fallback.js";
import { assembleSummary, type CompactionPreparation } from "./prepare.js";
import { serializeMessages } from "./serialize.js";
import type { CompactionSettings } from "./settings.js";
import { CompactionAbortedError, callWithTimeout, summarizeBlocks, type SummarizerLimits, type SummarizerPort, type SummaryProgress } from "./summarizer.js";
import { conversationAsk } from "./conversation-prompt.js";
import { addUsage, emptyCost, type SummaryCost } from "./cost.js";
import type { Usage } from "../messages/types.js";

/** The stored details, as pith's own compactions fill them: the file lists and user messages always. */
type CompactionDetails = Required<Pick<StoredDetails, "readFiles" | "modifiedFiles" | "userMessages">> & Pick<StoredDetails, "fallback">;

/** What a compaction produced: the entry the caller stores (protocol/messages.ts) and how it went. */
export type CompactionResult = Omit<StoredCompaction, "details" | "fromHook"> & {
  details: CompactionDetails;
  stats: { requests: number; overflowRetries: number; requestTokens: number[]; serializedChars: number; framing: "conversation" | "transcript" };
  /** every summarizer request of this compaction, summed */
  cost: SummaryCost;
};

export interface CompactOptions {
  port: SummarizerPort;
  limits: SummarizerLimits;
  settings: CompactionSettings;
  signal: AbortSignal;
  /** the user's focus for this summary */
  instructions?: string;
  /** the summary as it is written (see SummaryProgress); a split turn's part follows the history's */
  onProgress?: (progress: SummaryProgress) => void;
  /** a summarizer request was rejected as too long (see SummarizeOptions.onOverflow) */
  onOverflow?: (err: unknown, requestTokens: number) => void;
  /**
   * Conversation framing: a port that sends the agent's last request again with the reply and
   * the ask after it (see conversation-prompt.ts); absent, or failing, the transcript framing.
   */
  conversation?: SummarizerPort;
}

const SPLIT_TURN_HEADING = "**Earlier part of the current turn** (its end is kept below):";
const SPLIT_TURN_SEPARATOR = `\n\n---\n\n${SPLIT_TURN_HEADING}\n\n`;

/**
 * A split turn's two summaries are written at the same time; a listener gets them one after the
 * other, as they are stored: the history's progress as it comes, the turn prefix's held back
 * until the history is done, then the separator and the prefix's text.
 */
function streamInOrder(onProgress: CompactOptions["onProgress"], splitTurn: boolean) {
  if (!onProgress) return { history: undefined, prefix: undefined, historyDone: () => undefined };
  let held: string[] | null = splitTurn ? [] : null;
  return {
    history: onProgress,
    prefix: (p: SummaryProgress) => {
      if (p.type !== "delta") return;
      if (held) held.push(p.text);
      else onProgress(p);
    },
    historyDone: () => {
      if (!held) return;
      const text = SPLIT_TURN_SEPARATOR + held.join("");
      held = null;
      onProgress({ type: "delta", text });
    },
  };
}

export async function compact(prep: CompactionPreparation, opts: CompactOptions): Promise<CompactionResult> {
  const { settings, limits } = opts;
  const serialize = { maxBlockChars: settings.maxBlockChars };
  const historyBlocks = serializeMessages(prep.historyMessages, serialize);
  const prefixBlocks = serializeMessages(prep.turnPrefixMessages, serialize);
  const maxTokens = Math.max(256, Math.min(Math.floor(0.8 * settings.reserveTokens), limits.maxOutputTokens));
  const prefixMaxTokens = Math.max(256, Math.min(Math.floor(0.5 * settings.reserveTokens), limits.maxOutputTokens));
  const stats = { requests: 0, overflowRetries: 0, requestTokens: [] as number[], serializedChars: [...historyBlocks, ...prefixBlocks].reduce((a, b) => a + b.length, 0), framing: "transcript" as CompactionResult["stats"]["framing"] };
  const cost = emptyCost();
  const onUsage = (u: Usage) => addUsage(cost, u);
  const common = { port: opts.port, limits, timeoutMs: settings.summaryTimeoutMs, signal: opts.signal, onOverflow: opts.onOverflow, onUsage };
  const splitTurn = prep.isSplitTurn && prefixBlocks.length > 0;
  const progress = streamInOrder(opts.onProgress, splitTurn);

  let modelText: string | undefined;
  let fallback: { reason: string } | undefined;
  let framing: CompactionResult["stats"]["framing"] = "transcript";
  const ask = opts.conversation && conversationAsk(prep, prep.firstKeptIndex, { instructions: opts.instructions, compressDone: prep.previousSummary !== undefined && estimateTextTokens(prep.previousSummary) > maxTokens / 2 });
  // the whole context is sent again: only while it, the ask and the reply fit the window (else the transcript's chunks)
  if (opts.conversation && ask && prep.tokensBefore + estimateTextTokens(ask) + maxTokens <= limits.contextWindow) {
    try {
      opts.onProgress?.({ type: "chunk", index: 1, count: 1 });
      const onDelta = opts.onProgress ? (text: string) => opts.onProgress!({ type: "delta", text }) : undefined;
      stats.requests++;
      modelText = await callWithTimeout(opts.conversation, { kind: "history", systemPrompt: "", prompt: ask, maxTokens, onUsage }, opts.signal, settings.summaryTimeoutMs, onDelta);
      framing = "conversation";
    } catch (err) {
      if (err instanceof CompactionAbortedError || opts.signal.aborted) throw new CompactionAbortedError();
      // the cached conversation did not serve (too long, no text, an error): the transcript framing writes it
    }
  }
  if (modelText === undefined) {
    try {
      const history =
        historyBlocks.length > 0 || !prep.previousSummary
          ? summarizeBlocks(historyBlocks, {
              ...common,
              kind: "history",
              previousSummary: prep.previousSummary,
              maxTokens,
              promptOptions: {
                instructions: opts.instructions,
                compressDone: prep.previousSummary !== undefined && estimateTextTokens(prep.previousSummary) > maxTokens / 2,
              },
              onProgress: progress.history,
            })
          : Promise.resolve({ summary: prep.previousSummary, requests: 0, requestTokens: [], overflowRetries: 0 });
      const prefix = splitTurn ? summarizeBlocks(prefixBlocks, { ...common, kind: "turn-prefix", maxTokens: prefixMaxTokens, onProgress: progress.prefix }) : undefined;
      const [h, p] = await Promise.all([history.then((o) => (progress.historyDone(), o)), prefix]);
      for (const o of [h, p]) {
        if (!o) continue;
        stats.requests += o.requests;
        stats.overflowRetries += o.overflowRetries;
        stats.requestTokens.push(...o.requestTokens);
      }
      modelText = p ? `${h.summary.trim()}${SPLIT_TURN_SEPARATOR}${p.summary.trim()}` : h.summary;
    } catch (err) {
      if (err instanceof CompactionAbortedError || opts.signal.aborted) throw new CompactionAbortedError();
      const reason = err instanceof Error ? err.message : String(err);
      fallback = { reason };
      modelText = extractiveSummary([...prep.historyMessages, ...prep.turnPrefixMessages], prep.previousSummary, reason);
    }
  }

  const summary = assembleSummary(modelText, prep.userMessages, prep.fileLists);
  const tokensAfter = tokensAfterSummary(summary, prep);
  const details: CompactionDetails = { ...prep.fileLists, userMessages: prep.userMessages };
  if (fallback) details.fallback = true;
  stats.framing = framing;
  return { summary, firstKeptEntryId: prep.firstKeptEntryId, tokensBefore: prep.tokensBefore, tokensAfter, details, fallback, stats, cost };
}

/** The context once `summary` is stored over `prep`'s cut: the summary, the kept messages, the system prompt and tools. */
export function tokensAfterSummary(summary: string, prep: CompactionPreparation): number {
  return estimateMessageTokens({ role: "compactionSummary", summary, tokensBefore: prep.tokensBefore, timestamp: 0 }) + prep.keptTokens + prep.overheadTokens;
}
