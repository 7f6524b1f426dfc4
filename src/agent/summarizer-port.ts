// Compaction's summarizer port on top of a provider: one request with no tools, the text of
// the reply. Failures are thrown as the provider classified them (an overflow makes compaction
// split the request; anything else makes it fall back to the extractive summary).
import type { SummarizerPort, SummarizerRequest } from "../compaction/summarizer.js";
import { scriptedSummary } from "../llm/scripted-summary.js";
import { ProviderError, type ModelInfo, type Provider } from "../llm/types.js";

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
    async summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
      let text = "";
      for await (const ev of provider.stream({
        model,
        systemPrompt: request.systemPrompt,
        messages: [{ role: "user", content: request.prompt, timestamp: Date.now() }],
        tools: [],
        maxTokens: Math.min(request.maxTokens, model.maxOutputTokens),
        signal,
      })) {
        if (ev.type === "error") {
          request.onUsage?.(ev.message.usage);
          throw ev.error;
        }
        if (ev.type === "text_delta") onDelta?.(ev.delta);
        if (ev.type === "done") request.onUsage?.(ev.message.usage);
        if (ev.type === "done") text = ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      }
      if (!text.trim()) throw new ProviderError({ errorClass: "fatal", message: "the summarizer returned no text" });
      return text;
    },
  };
}
