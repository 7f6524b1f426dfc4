// The one step that talks to a model: a port (any function that turns a prompt into text) and
// the loop that keeps every request inside the summarizer's window. A span larger than the
// window is summarized in chunks, oldest first, each chunk folded into the running summary.
// A request the model still rejects as too long is split in half and tried again.
import { estimateTextTokens } from "./estimate.js";
import { branchPrompt, initialPrompt, SUMMARIZER_SYSTEM_PROMPT, turnPrefixPrompt, updatePrompt, type PromptOptions } from "./prompts.js";
import { truncateMiddle } from "./serialize.js";
import type { Usage } from "../messages/types.js";

type SummaryKind = "history" | "turn-prefix" | "branch";

export interface SummarizerRequest {
  kind: SummaryKind;
  systemPrompt: string;
  prompt: string;
  maxTokens: number;
  /** the request's usage once known (a port that can tell calls it, for compaction_end.cost) */
  onUsage?: (usage: Usage) => void;
}

/**
 * What compaction needs from a model. The agent plugs a provider in; tests plug in fakes. A port
 * that streams calls `onDelta` with each piece of the text as it arrives (the pieces make the
 * text it resolves with).
 */
export interface SummarizerPort {
  summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string>;
}

/**
 * Progress of a summary: a request begins (`chunk`: the index of this request and how many the
 * span needs as far as can be told now), or a piece of its text arrives. Each request writes the
 * whole running summary again, so the text of the last chunk is the summary.
 */
export type SummaryProgress = { type: "chunk"; index: number; count: number } | { type: "delta"; text: string };

export interface SummarizerLimits {
  /** the summarizer model's context window, in tokens */
  contextWindow: number;
  /** the most output tokens it may be asked for */
  maxOutputTokens: number;
}

/** A port reports "the prompt did not fit" by throwing an error with `errorClass: "overflow"`. */
function isOverflowError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { errorClass?: unknown }).errorClass === "overflow";
}

export class CompactionAbortedError extends Error {
  constructor() {
    super("compaction aborted");
    this.name = "CompactionAbortedError";
  }
}

class SummarizerTimeoutError extends Error {
  constructor(ms: number) {
    super(`the summarizer did not answer within ${Math.round(ms / 1000)} s`);
    this.name = "SummarizerTimeoutError";
  }
}

export interface SummarizeOptions {
  port: SummarizerPort;
  limits: SummarizerLimits;
  kind: SummaryKind;
  /** summary to fold the first chunk into (a history summary after an earlier compaction) */
  previousSummary?: string;
  promptOptions?: PromptOptions;
  maxTokens: number;
  timeoutMs: number;
  signal: AbortSignal;
  onProgress?: (progress: SummaryProgress) => void;
  /**
   * A request was rejected as too long; called before it is retried smaller. The callback may
   * lower `limits.contextWindow` (a limit learned from the error), which the next request uses.
   */
  onOverflow?: (err: unknown, requestTokens: number) => void;
  /** each request's usage (see SummarizerRequest.onUsage) */
  onUsage?: (usage: Usage) => void;
}

export interface SummarizeOutcome {
  summary: string;
  /** requests sent, including those retried after an overflow */
  requests: number;
  /** request sizes in estimated tokens (prompt + system), for callers that want to check them */
  requestTokens: number[];
  overflowRetries: number;
}

const BLOCK_SEPARATOR = "\n\n";
const SYSTEM_TOKENS = Math.ceil(estimateTextTokens(SUMMARIZER_SYSTEM_PROMPT));
const MAX_REQUESTS = 200;

function promptFor(kind: SummaryKind, transcript: string, running: string | undefined, options: PromptOptions): string {
  if (running !== undefined) return updatePrompt(transcript, running, options);
  if (kind === "turn-prefix") return turnPrefixPrompt(transcript);
  if (kind === "branch") return branchPrompt(transcript, options);
  return initialPrompt(transcript, options);
}

export async function callWithTimeout(port: SummarizerPort, request: SummarizerRequest, signal: AbortSignal, timeoutMs: number, onDelta?: (text: string) => void): Promise<string> {
  if (signal.aborted) throw new CompactionAbortedError();
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), timeoutMs);
  const combined = AbortSignal.any([signal, timer.signal]);
  try {
    return await port.summarize(request, combined, onDelta);
  } catch (err) {
    if (signal.aborted) throw new CompactionAbortedError();
    if (timer.signal.aborted) throw new SummarizerTimeoutError(timeoutMs);
    throw err;
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * Summarizes `blocks` (serialized messages, oldest first). Each request holds as many blocks as
 * fit in the window beside the prompt, the running summary and the output budget.
 */
export async function summarizeBlocks(blocks: readonly string[], opts: SummarizeOptions): Promise<SummarizeOutcome> {
  const promptOptions = opts.promptOptions ?? {};
  const queue = blocks.filter((b) => b.length > 0).slice();
  let running = opts.previousSummary;
  let requests = 0;
  let overflowRetries = 0;
  /** chunks summarized so far (a request retried after an overflow is the same chunk) */
  let done = 0;
  const requestTokens: number[] = [];
  // estimates can be wrong: every overflow makes later budgets smaller
  let scale = 0.95;
  // after an overflow the next request takes at most half the blocks of the one that failed
  let maxBlocks = Number.POSITIVE_INFINITY;
  if (queue.length === 0) queue.push("(nothing happened in this part of the session)");

  while (queue.length > 0) {
    if (requests >= MAX_REQUESTS) throw new Error(`summarization needed more than ${MAX_REQUESTS} requests`);
    const fixed = SYSTEM_TOKENS + estimateTextTokens(promptFor(opts.kind, "", running, promptOptions));
    let budget = Math.floor((opts.limits.contextWindow - opts.maxTokens) * scale - fixed);
    if (budget < 256 && running !== undefined) {
      // the running summary crowds out the transcript: shorten it rather than fail
      running = truncateMiddle(running, Math.max(1000, running.length >> 1));
      continue;
    }
    budget = Math.max(budget, 64);

    // take blocks while they fit; a single block too big for any request is cut to fit
    const chunk: string[] = [];
    let used = 0;
    while (queue.length > 0 && chunk.length < maxBlocks) {
      const t = estimateTextTokens(queue[0]) + 2;
      if (used + t <= budget) {
        chunk.push(queue.shift() as string);
        used += t;
      } else if (chunk.length === 0) {
        const block = queue.shift() as string;
        const keepChars = Math.max(200, Math.floor((block.length * budget) / t) - 100);
        chunk.push(truncateMiddle(block, keepChars));
        used += budget;
        break;
      } else break;
    }

    const prompt = promptFor(opts.kind, chunk.join(BLOCK_SEPARATOR), running, promptOptions);
    const request: SummarizerRequest = { kind: opts.kind, systemPrompt: SUMMARIZER_SYSTEM_PROMPT, prompt, maxTokens: opts.maxTokens, onUsage: opts.onUsage };
    requests++;
    requestTokens.push(Math.ceil(SYSTEM_TOKENS + estimateTextTokens(prompt)));
    if (opts.onProgress) {
      done++;
      const left = queue.reduce((sum, b) => sum + estimateTextTokens(b) + 2, 0);
      opts.onProgress({ type: "chunk", index: done, count: done + Math.ceil(left / Math.max(budget, 1)) });
    }
    const onDelta = opts.onProgress ? (text: string) => opts.onProgress!({ type: "delta", text }) : undefined;
    try {
      running = await callWithTimeout(opts.port, request, opts.signal, opts.timeoutMs, onDelta);
      maxBlocks = Number.POSITIVE_INFINITY;
    } catch (err) {
      if (!isOverflowError(err)) throw err;
      if (opts.onProgress) done--; // the same chunk, smaller, comes again
      opts.onOverflow?.(err, requestTokens[requestTokens.length - 1]);
      overflowRetries++;
      scale *= 0.7;
      if (chunk.length > 1) {
        queue.unshift(...chunk);
        maxBlocks = Math.max(1, chunk.length >> 1);
      } else {
        const only = chunk[0];
        if (only.length <= 400) throw err; // nothing left to cut: the prompt itself does not fit
        queue.unshift(truncateMiddle(only, only.length >> 1));
      }
    }
  }
  return { summary: running ?? "", requests, requestTokens, overflowRetries };
}
