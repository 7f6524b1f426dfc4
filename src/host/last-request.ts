// The agent's last model request exactly as it was sent, per live session, in memory: what a
// summary in conversation framing sends again so the provider reads it from its prompt cache.
// Recorded at the provider boundary (the request the agent built); forgotten when a compaction
// changes the context, and checked again when used (same model, the context still starts with
// it), so a tree move or a new model never sends a request that is not the context's.
import type { SummarizerPort, SummarizerRequest } from "../compaction/index.js";
import type { AgentMessage } from "../messages/types.js";
import { ProviderError, type ModelInfo, type Provider, type StreamRequest } from "../llm/types.js";

/**
 * Past this since the request was sent its cache entry may have expired (Anthropic's lives 5
 * minutes from its last read): sent again cold, the conversation would be written to the cache at
 * 1.25x the input price, more than the transcript costs, so the transcript framing is used.
 */
export const WARM_FOR_MS = 4.5 * 60_000;

export class LastRequest {
  private sent: StreamRequest | null = null;
  private sentAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The provider, with each request it is asked for recorded (the latest one kept). */
  wrap(provider: Provider): Provider {
    return {
      name: provider.name,
      stream: (request) => {
        this.sent = request;
        this.sentAt = this.now();
        return provider.stream(request);
      },
    };
  }

  forget(): void {
    this.sent = null;
  }

  /**
   * A port that writes the summary in conversation framing for `context` (the messages the
   * compaction reads), or undefined when the recorded request is not this context's beginning
   * (none yet, another model, another branch), the context after it does not start with a reply,
   * or its cache has likely gone cold.
   */
  conversationPort(context: readonly AgentMessage[], model: ModelInfo, provider: Provider): SummarizerPort | undefined {
    const sent = this.sent;
    if (!sent || sent.model.id !== model.id || sent.model.provider !== model.provider) return undefined;
    if (this.now() - this.sentAt > WARM_FOR_MS) return undefined;
    const n = sent.messages.length;
    if (context.length <= n || context[n].role !== "assistant") return undefined;
    for (let i = 0; i < n; i++) if (sent.messages[i] !== context[i] && JSON.stringify(sent.messages[i]) !== JSON.stringify(context[i])) return undefined;
    const after = context.slice(n);
    return {
      async summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
        const ask: AgentMessage = { role: "user", content: request.prompt, timestamp: Date.now() };
        // the same system prompt, tools, output limit and thinking: any change would miss the cache
        const stream = provider.stream({ ...sent, messages: [...sent.messages, ...after, ask], cachePrefix: n, signal });
        let text = "";
        for await (const ev of stream) {
          if (ev.type === "error") {
            request.onUsage?.(ev.message.usage);
            throw ev.error;
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
      },
    };
  }
}
