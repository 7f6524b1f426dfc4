// The Chat Completions provider, for OpenAI and every OpenAI-compatible server (OpenRouter,
// Gemini's compatible endpoint, vLLM, llama.cpp's llama-server, LM Studio, Groq, DeepSeek,
// Mistral, ...), through the official `openai` SDK, streamed. Reads no environment variable:
// the caller passes the key and address (see openai-client.ts). No SDK retries.
//
// The stream: `data: {chunk}` lines, then `data: [DONE]`. Text arrives in `delta.content`;
// reasoning, where the server sends it, in `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp)
// or `delta.reasoning` (OpenRouter, Groq, Ollama), kept as a thinking block whose signature
// names that field (so it can go back in the same field, see openai-completions-convert.ts);
// tool calls in `delta.tool_calls[{index, id?, function: {name?, arguments}}]`, arguments split
// across chunks and several calls told apart by `index`; usage (asked for with
// stream_options.include_usage) in a last chunk with no choices.
import type OpenAI from "openai";
import { randomBytes } from "node:crypto";
import { COMPLETIONS_API, toCompletionsMessages, toCompletionsTools, type ReasoningField } from "./openai-completions-convert.js";
import { createOpenAIClient, isOpenAIEndpoint, reasoningEffort, type OpenAIClientOptions } from "./openai-client.js";
import { classifyOpenAIError } from "./openai-errors.js";
import { pumpEvents } from "./event-pump.js";
import { PartialMessage } from "./partial.js";
import { StreamWatch } from "./stream-watch.js";
import { ProviderError, type Provider, type StreamEvent, type StreamRequest } from "./types.js";
import { makeUsage, type RawUsage } from "./usage.js";

export type MaxTokensField = "max_tokens" | "max_completion_tokens";

export interface OpenAICompletionsOptions extends OpenAIClientOptions {
  /** the configured provider's name: replies are stored under it, and only its own replies give their reasoning back */
  name?: string;
  /** abort a stream that sends nothing for this long (a hung connection) */
  idleTimeoutMs?: number;
  /**
   * how the output limit is named: OpenAI's own models want max_completion_tokens (and refuse
   * max_tokens for reasoning models); many compatible servers (DeepSeek, older vLLM and
   * llama.cpp, LM Studio) only know max_tokens. Default: max_completion_tokens for OpenAI's
   * endpoint, max_tokens for any other.
   */
  maxTokensField?: MaxTokensField;
}

type Delta = OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };
type ChunkUsage = OpenAI.CompletionUsage & { prompt_cache_hit_tokens?: number };

/** usage in pith's terms: OpenAI counts cached prompt tokens inside prompt_tokens (DeepSeek names them prompt_cache_hit_tokens) */
function usageOf(u: ChunkUsage): RawUsage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? 0;
  return { input: Math.max(0, (u.prompt_tokens ?? 0) - cached), output: u.completion_tokens ?? 0, cacheRead: cached };
}

/** Turns chunks into the message and its events (pushed to `out`: no generator per chunk, the hot path). */
class ChunkReader {
  usage: RawUsage = {};
  /** a usage chunk arrived: the server reached the end of its reply */
  sawUsage = false;
  finishReason: string | null = null;
  private current: { kind: "text" | "thinking" | "tool"; index: number } | undefined;
  private next = 0;
  /** the server's tool-call index -> content index, in the order the calls started */
  private readonly tools = new Map<number, number>();
  private lastKey: number | undefined;

  constructor(private readonly partial: PartialMessage) {}

  get hasToolCalls(): boolean {
    return this.tools.size > 0;
  }

  private open(kind: "text" | "thinking"): number {
    if (this.current?.kind === kind) return this.current.index;
    const index = this.next++;
    if (kind === "text") this.partial.beginText(index);
    else this.partial.beginThinking(index);
    this.current = { kind, index };
    return index;
  }

  read(chunk: OpenAI.Chat.ChatCompletionChunk, out: StreamEvent[]): void {
    // Moonshot and some others put usage on the choice instead
    const usage = (chunk.usage ?? (chunk.choices?.[0] as { usage?: ChunkUsage } | undefined)?.usage) as ChunkUsage | null | undefined;
    if (usage) {
      this.usage = usageOf(usage);
      this.sawUsage = true;
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta as Delta | undefined;
    if (delta) {
      // a server that sends both fields sends the same text twice: the first one counts
      const field: ReasoningField | undefined = delta.reasoning_content ? "reasoning_content" : delta.reasoning ? "reasoning" : undefined;
      if (field) {
        const isNew = this.current?.kind !== "thinking";
        const index = this.open("thinking");
        if (isNew) this.partial.signature(index, field);
        out.push(this.partial.thinking(index, delta[field]!));
      }
      if (delta.content) out.push(this.partial.text(this.open("text"), delta.content));
      if (delta.tool_calls) this.toolDeltas(delta.tool_calls, out);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** the call a delta continues: by its index; by its id where a server sends no index (Gemini's endpoint has) */
  private keyOf(call: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): number {
    if (typeof call.index === "number") return call.index;
    const last = this.lastKey === undefined ? undefined : this.partial.message.content[this.tools.get(this.lastKey)!];
    if (last?.type === "toolCall" && (!call.id || call.id === last.id)) return this.lastKey!;
    return -1 - this.tools.size; // a new call, on a key no server index can take
  }

  private toolDeltas(calls: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[], out: StreamEvent[]): void {
    for (const call of calls) {
      const key = this.keyOf(call);
      this.lastKey = key;
      let index = this.tools.get(key);
      if (index === undefined) {
        index = this.next++;
        this.tools.set(key, index);
        this.current = { kind: "tool", index };
        // servers that give no id still need one for the result to answer
        out.push(this.partial.beginToolCall(index, call.id || `call_${randomBytes(12).toString("hex")}`, call.function?.name ?? ""));
      } else if (call.function?.name) {
        const block = this.partial.message.content[index];
        if (block?.type === "toolCall" && !block.name) block.name = call.function.name;
      }
      if (call.function?.arguments) out.push(this.partial.toolJsonDelta(index, call.function.arguments));
    }
  }

  /** ends the tool calls (their arguments are complete only now), in the order they started */
  finish(out: StreamEvent[]): void {
    for (const index of this.tools.values()) {
      const end = this.partial.endBlock(index);
      if (end) out.push(end);
    }
  }
}

export class OpenAICompletionsProvider implements Provider {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly idleTimeoutMs: number;
  private readonly maxTokensField: MaxTokensField;
  private readonly log;

  constructor(options: OpenAICompletionsOptions = {}) {
    this.name = options.name ?? "openai";
    this.log = options.logger;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.maxTokensField = options.maxTokensField ?? (isOpenAIEndpoint(options.baseURL) ? "max_completion_tokens" : "max_tokens");
    this.client = createOpenAIClient(options);
  }

  /** The request body for a stream call (exposed for tests). */
  buildParams(request: StreamRequest): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
    const { messages, notes } = toCompletionsMessages(request.systemPrompt, request.messages, this.name);
    for (const note of notes) this.log?.warn({ provider: this.name, model: request.model.id }, `request repaired: ${note}`);
    const effort = reasoningEffort(request.model, request.thinkingLevel);
    return {
      model: request.model.id,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      [this.maxTokensField]: request.maxTokens,
      ...(request.tools.length > 0 ? { tools: toCompletionsTools(request.tools) } : {}),
      ...(effort ? { reasoning_effort: effort } : {}),
    };
  }

  stream(request: StreamRequest): AsyncIterableIterator<StreamEvent, undefined> {
    return pumpEvents(() => {
      const partial = new PartialMessage({ ...request.model, provider: this.name }, COMPLETIONS_API);
      const watch = new StreamWatch(request.signal, this.idleTimeoutMs);
      const reader = new ChunkReader(partial);
      return {
        start: () => partial.start(),
        open: async () => this.client.chat.completions.create(this.buildParams(request), { signal: watch.signal }),
        read(chunk: OpenAI.Chat.ChatCompletionChunk, out: StreamEvent[]) {
          watch.throwIfStopped();
          watch.touch();
          reader.read(chunk, out);
        },
        end(out: StreamEvent[]) {
          // the SDK ends an aborted stream quietly
          const stopped = watch.stopError();
          if (stopped) throw stopped;
          reader.finish(out);
          partial.message.usage = makeUsage(reader.usage, request.model.pricing);
          const reason = reader.finishReason;
          // a server that names no finish_reason but sent its closing usage finished; otherwise the reply was cut
          if (reason === null && !reader.sawUsage) throw new ProviderError({ errorClass: "transient", message: "the stream ended before the reply was complete (no finish_reason)" });
          if (reason === "content_filter") throw new ProviderError({ errorClass: "fatal", message: "the server's content filter stopped the reply (finish_reason content_filter)" });
          // some servers say "stop" after tool calls
          partial.message.stopReason = reason === "length" ? "length" : reason === "tool_calls" || reason === "function_call" || reader.hasToolCalls ? "toolUse" : "stop";
          out.push(partial.done());
        },
        fail(err: unknown) {
          partial.message.usage = makeUsage(reader.usage, request.model.pricing);
          return partial.fail(watch.stopError() ?? classifyOpenAIError(err, request.signal));
        },
        dispose: () => watch.dispose(),
      };
    });
  }
}
