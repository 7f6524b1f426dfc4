// A summarizer port for tests: records every request and answers with canned text. It can act
// like a real model whose tokenizer counts more than our estimate (`tokenFactor`), rejecting
// requests over its window as "prompt is too long", fail, or hang until aborted.
import { estimateTextTokens } from "../../src/compaction/estimate.js";
import type { SummarizerPort, SummarizerRequest } from "../../src/compaction/summarizer.js";

export interface FakeSummarizerOptions {
  /** the model's window; requests over it get an overflow error */
  contextWindow?: number;
  /** how many real tokens one estimated token is (>1: our estimate undercounts) */
  tokenFactor?: number;
  /** the answer (default: a short structured summary naming the request number) */
  reply?: (request: SummarizerRequest, n: number) => string;
  /** throw this on every call */
  fail?: Error;
  /** never answer (until the signal aborts) */
  hang?: boolean;
}

export interface RecordedRequest extends SummarizerRequest {
  tokens: number;
  rejected: boolean;
}

export class FakeSummarizer implements SummarizerPort {
  readonly requests: RecordedRequest[] = [];
  constructor(private readonly options: FakeSummarizerOptions = {}) {}

  async summarize(request: SummarizerRequest, signal: AbortSignal): Promise<string> {
    const tokens = Math.ceil((estimateTextTokens(request.systemPrompt) + estimateTextTokens(request.prompt)) * (this.options.tokenFactor ?? 1)) + request.maxTokens;
    const window = this.options.contextWindow ?? Number.POSITIVE_INFINITY;
    const rejected = tokens > window;
    this.requests.push({ ...request, tokens, rejected });
    await new Promise((r) => setImmediate(r));
    if (this.options.hang) {
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    }
    if (signal.aborted) throw new Error("aborted");
    if (this.options.fail) throw this.options.fail;
    if (rejected) throw Object.assign(new Error(`prompt is too long: ${tokens} tokens > ${window} maximum`), { errorClass: "overflow", status: 400 });
    const n = this.requests.length;
    return this.options.reply ? this.options.reply(request, n) : `## Goal\nsummary ${n} (${request.kind})\n\n## Progress\n### Done\n- [x] request ${n}`;
  }
}
