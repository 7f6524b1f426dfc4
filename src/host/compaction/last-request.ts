// The agent's last model request exactly as it was sent, per live session, in memory: what a
// summary in conversation framing sends again so the provider reads it from its prompt cache.
// Recorded at the provider boundary (the request the agent built); forgotten when a compaction
// changes the context, and checked again when used (same model, the context still starts with
// it), so a tree move or a new model never sends a request that is not the context's.
import type { SummarizerPort, SummarizerRequest } from "../../compaction/index.js";
import { readSummary } from "./summarizer-port.js";
import { modelView, modelViews } from "../../messages/cut-reply.js";
import type { AgentMessage } from "../../messages/types.js";
import type { ModelInfo, Provider, StreamRequest } from "../../llm/types.js";

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

  /** Records `request` as sent now, without sending it (see SessionAside.recordLastRequest). */
  record(request: StreamRequest): void {
    this.sent = request;
    this.sentAt = this.now();
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
    // the request was sent with the model's view of each message (a cut reply bounded: messages/cut-reply.ts)
    for (let i = 0; i < n; i++) {
      const seen = modelView(context[i]);
      if (sent.messages[i] !== seen && JSON.stringify(sent.messages[i]) !== JSON.stringify(seen)) return undefined;
    }
    const after = modelViews(context.slice(n));
    return {
      summarize(request: SummarizerRequest, signal: AbortSignal, onDelta?: (text: string) => void): Promise<string> {
        const ask: AgentMessage = { role: "user", content: request.prompt, timestamp: Date.now() };
        // the same system prompt, tools, output limit and thinking: any change would miss the cache
        const { signal: _sent, ...again } = sent;
        return readSummary(provider, { ...again, messages: [...sent.messages, ...after, ask], cachePrefix: n }, request, signal, onDelta);
      },
    };
  }
}
