// The Responses API provider (OpenAI's own, and servers that speak it), through the official
// `openai` SDK, streamed, stateless (`store: false`: the whole history goes in each request, and
// reasoning comes back encrypted so it can go in again; see openai-responses-convert.ts). Reads
// no environment variable: the caller passes the key and address. No SDK retries.
//
// The stream is typed events (`event: <type>` + `data: {...}`): output items open with
// response.output_item.added (reasoning, message, function_call) and close with
// response.output_item.done (the complete item: encrypted reasoning, message id); between them
// response.reasoning_summary_text.delta, response.output_text.delta and
// response.function_call_arguments.delta. It ends with response.completed (usage),
// response.incomplete (incomplete_details.reason, e.g. max_output_tokens) or response.failed
// (error); an `event: error` mid-stream arrives from the SDK (6.x) as an event of type "error".
import type OpenAI from "openai";
import { createOpenAIClient, reasoningEffort, type OpenAIClientOptions } from "./openai-client.js";
import { classifyFault, classifyOpenAIError, responseFailure } from "./openai-errors.js";
import { encodeTextSignature, RESPONSES_API, toResponsesInput, toResponsesTools } from "./openai-responses-convert.js";
import { pumpEvents } from "./event-pump.js";
import { PartialMessage } from "./partial.js";
import { StreamWatch } from "./stream-watch.js";
import { ProviderError, type Provider, type StreamEvent, type StreamRequest } from "./types.js";
import { makeUsage, type RawUsage } from "./usage.js";

export interface OpenAIResponsesOptions extends OpenAIClientOptions {
  /** the configured provider's name: replies are stored under it, and only its own replies give their reasoning back */
  name?: string;
  /** abort a stream that sends nothing for this long (a hung connection) */
  idleTimeoutMs?: number;
  /**
   * the reasoning summaries asked of reasoning models (the thinking text pith shows); null asks
   * for none (OpenAI gives them only to verified organizations for some models). Default "auto".
   */
  reasoningSummary?: "auto" | "concise" | "detailed" | null;
}

type Event = OpenAI.Responses.ResponseStreamEvent;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

/** usage in pith's terms: input_tokens counts the cached (and cache-written) tokens too */
function usageOf(u: OpenAI.Responses.ResponseUsage): RawUsage {
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  const written = u.input_tokens_details?.cache_write_tokens ?? 0;
  return { input: Math.max(0, (u.input_tokens ?? 0) - cached - written), output: u.output_tokens ?? 0, cacheRead: cached, cacheWrite: written };
}

/** Turns events into the message and its events (pushed to `out`: no generator per event, the hot path). */
class EventReader {
  usage: RawUsage = {};
  /** the final response, once response.completed or response.incomplete arrived */
  final: OpenAI.Responses.Response | undefined;
  hasToolCalls = false;
  /** output_index -> content index (items pith does not keep leave no hole) */
  private readonly blocks = new Map<number, number>();
  private readonly argsStreamed = new Set<number>();
  private next = 0;

  constructor(private readonly partial: PartialMessage) {}

  read(ev: Event, out: StreamEvent[]): void {
    switch (ev.type) {
      case "response.output_item.added":
        this.added(ev.output_index, ev.item, out);
        break;
      case "response.reasoning_summary_part.added": {
        // summary parts are paragraphs of one thinking block
        const index = this.blocks.get(ev.output_index);
        if (index !== undefined && ev.summary_index > 0) out.push(this.partial.thinking(index, "\n\n"));
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const index = this.blocks.get(ev.output_index);
        if (index !== undefined) out.push(this.partial.thinking(index, ev.delta));
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const index = this.blocks.get(ev.output_index);
        if (index !== undefined) out.push(this.partial.text(index, ev.delta));
        break;
      }
      case "response.function_call_arguments.delta": {
        const index = this.blocks.get(ev.output_index);
        if (index === undefined) break;
        this.argsStreamed.add(index);
        out.push(this.partial.toolJsonDelta(index, ev.delta));
        break;
      }
      case "response.output_item.done":
        this.done(ev.output_index, ev.item, out);
        break;
      case "response.completed":
      case "response.incomplete":
        this.final = ev.response;
        if (ev.response.usage) this.usage = usageOf(ev.response.usage);
        break;
      case "response.failed":
        if (ev.response.usage) this.usage = usageOf(ev.response.usage);
        throw responseFailure(ev.response.error);
      case "error":
        // `event: error` (openai 7.x throws it as an APIError instead; so does 6.x for a `data: {"error": ...}` line)
        throw classifyFault({ code: ev.code ?? undefined, message: ev.message });
    }
  }

  private added(outputIndex: number, item: OutputItem, out: StreamEvent[]): void {
    if (item.type !== "reasoning" && item.type !== "message" && item.type !== "function_call") return;
    const index = this.next++;
    this.blocks.set(outputIndex, index);
    if (item.type === "reasoning") this.partial.beginThinking(index);
    else if (item.type === "message") this.partial.beginText(index);
    else {
      this.hasToolCalls = true;
      // Pi's form: both ids, the call id to pair the result, the item id to pair the reasoning
      out.push(this.partial.beginToolCall(index, item.id ? `${item.call_id}|${item.id}` : item.call_id, item.name));
    }
  }

  private done(outputIndex: number, item: OutputItem, out: StreamEvent[]): void {
    const index = this.blocks.get(outputIndex);
    if (index === undefined) return;
    const block = this.partial.message.content[index];
    if (item.type === "reasoning" && block?.type === "thinking") {
      if (!block.thinking) block.thinking = (item.summary ?? []).map((s) => s.text).join("\n\n");
      // the whole item, encrypted reasoning included: it goes back as it came
      block.thinkingSignature = JSON.stringify(item);
    } else if (item.type === "message" && block?.type === "text") {
      if (!block.text) block.text = item.content.map((c) => (c.type === "output_text" ? c.text : c.refusal)).join("");
      block.textSignature = encodeTextSignature(item.id, item.phase);
    } else if (item.type === "function_call" && block?.type === "toolCall") {
      // a server that sends the arguments only whole
      if (!this.argsStreamed.has(index) && item.arguments) out.push(this.partial.toolJsonDelta(index, item.arguments));
      const end = this.partial.endBlock(index);
      if (end) out.push(end);
    }
  }
}

export class OpenAIResponsesProvider implements Provider {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly idleTimeoutMs: number;
  private readonly reasoningSummary: "auto" | "concise" | "detailed" | null;
  private readonly log;

  constructor(options: OpenAIResponsesOptions = {}) {
    this.name = options.name ?? "openai";
    this.log = options.logger;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.reasoningSummary = options.reasoningSummary === undefined ? "auto" : options.reasoningSummary;
    this.client = createOpenAIClient(options);
  }

  /** The request body for a stream call (exposed for tests). */
  buildParams(request: StreamRequest): OpenAI.Responses.ResponseCreateParamsStreaming {
    const { input, notes } = toResponsesInput(request.messages, { provider: this.name, model: request.model.id });
    for (const note of notes) this.log?.warn({ provider: this.name, model: request.model.id }, `request repaired: ${note}`);
    const effort = reasoningEffort(request.model, request.thinkingLevel);
    // a model that does not reason refuses the reasoning parameters
    const reasoning = request.model.thinking !== "none";
    return {
      model: request.model.id,
      input,
      ...(request.systemPrompt ? { instructions: request.systemPrompt } : {}),
      ...(request.tools.length > 0 ? { tools: toResponsesTools(request.tools) } : {}),
      max_output_tokens: request.maxTokens,
      store: false,
      stream: true,
      ...(reasoning
        ? {
            reasoning: { ...(effort ? { effort } : {}), ...(this.reasoningSummary ? { summary: this.reasoningSummary } : {}) },
            include: ["reasoning.encrypted_content"],
          }
        : {}),
    };
  }

  stream(request: StreamRequest): AsyncIterableIterator<StreamEvent, undefined> {
    return pumpEvents(() => {
      const partial = new PartialMessage({ ...request.model, provider: this.name }, RESPONSES_API);
      const watch = new StreamWatch(request.signal, this.idleTimeoutMs);
      const reader = new EventReader(partial);
      return {
        start: () => partial.start(),
        open: async () => this.client.responses.create(this.buildParams(request), { signal: watch.signal }),
        read(ev: Event, out: StreamEvent[]) {
          watch.throwIfStopped();
          watch.touch();
          reader.read(ev, out);
        },
        end(out: StreamEvent[]) {
          // the SDK ends an aborted stream quietly
          const stopped = watch.stopError();
          if (stopped) throw stopped;
          partial.message.usage = makeUsage(reader.usage, request.model.pricing);
          const final = reader.final;
          if (!final) throw new ProviderError({ errorClass: "transient", message: "the stream ended before the response was complete" });
          const incomplete = final.status === "incomplete" ? (final.incomplete_details?.reason ?? "unknown") : undefined;
          if (incomplete === "content_filter") throw new ProviderError({ errorClass: "fatal", message: "the content filter stopped the reply (incomplete: content_filter)" });
          partial.message.stopReason = incomplete ? "length" : reader.hasToolCalls ? "toolUse" : "stop";
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
