// Compaction's summarizer port on top of a provider: one request with no tools, the text of
// the reply. Failures are thrown as the provider classified them (an overflow makes compaction
// split the request; anything else makes it fall back to the extractive summary).
import type { SummarizerPort, SummarizerRequest } from "../../compaction/summarizer.js";
import { scriptedSummary } from "../../llm/scripted-summary.js";
import { ProviderError, type ModelInfo, type Provider, type StreamRequest } from "../../llm/types.js";

/**
 * The most characters a summary may stream: its output limit at 16 characters a token, four
 * times what a model writes. A reply past it is not a summary (a hostile or broken endpoint
 * streaming for ever): the request is cut there and fails, so the compaction falls back to the
 * extractive summary instead of streaming, and sending clients, up to maxReplyMB of it.
 */
function maxSummaryChars(maxTokens: number): number {
  return Math.max(4096, maxTokens * 16);
}

/**
 * Streams one summarizer request (`stream`'s signal is added to `request`'s) and returns its
 * text; the events as a port reports them: usage, deltas, the provider's error thrown as it is.
 */
export async function readSummary(provider: Provider, stream: Omit<StreamRequest, "signal">, request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
  const cut = new AbortController();
  const max = maxSummaryChars(request.maxTokens);
  let streamed = 0;
  let text = "";
  for await (const ev of provider.stream({ ...stream, signal: AbortSignal.any([signal, cut.signal]) })) {
    if (ev.type === "error") {
      request.onUsage?.(ev.message.usage);
      throw ev.error;
    }
    if (ev.type === "text_delta" || ev.type === "thinking_delta" || ev.type === "toolcall_delta") {
      streamed += ev.delta.length;
      if (streamed > max) {
        cut.abort();
        throw new ProviderError({ errorClass: "fatal", message: `the summarizer's reply passed ${max} characters (${request.maxTokens} tokens asked for): it was cut` });
      }
    }
    if (ev.type === "text_delta") onDelta?.(ev.delta);
    // a tool call in the reply is never run: only its text is the summary
    if (ev.type === "done") {
      request.onUsage?.(ev.message.usage);
      text = ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    }
  }
  if (!text.trim()) throw new ProviderError({ errorClass: "fatal", message: "the summarizer returned no text" });
  return text;
}

export function providerSummarizer(provider: Provider, model: ModelInfo): SummarizerPort {
  if (provider.name === "scripted") {
    // the offline model writes its notes from the transcript, without a model (llm/scripted-summary.ts)
    return {
      async summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
        if (signal.aborted) throw new ProviderError({ errorClass: "aborted", message: "request aborted" });
        const text = scriptedSummary(request.prompt);
        for (let i = 0; i < text.length; i += 64) onDelta?.(text.slice(i, i + 64));
        return text;
      },
    };
  }
  return {
    summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
      const stream = {
        model,
        systemPrompt: request.systemPrompt,
        messages: [{ role: "user" as const, content: request.prompt, timestamp: Date.now() }],
        tools: [],
        maxTokens: Math.min(request.maxTokens, model.maxOutputTokens),
      };
      return readSummary(provider, stream, request, signal, onDelta);
    },
  };
}
