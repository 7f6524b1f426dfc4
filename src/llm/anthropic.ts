// The Anthropic provider: the Messages API through @anthropic-ai/sdk, streamed. Works with any
// server that speaks the same API (ANTHROPIC_BASE_URL). No SDK retries: retrying is the
// session host's decision, made from the error class.
import Anthropic from "@anthropic-ai/sdk";
import type { ModelStopReason } from "../../protocol/messages.js";
import type { Logger } from "pino";
import { addCacheBreakpoints, toApiMessages } from "./convert.js";
import { classifyError, isOverflowStopReason } from "./anthropic-errors.js";
import { PartialMessage } from "./partial.js";
import { sdkLogger } from "./sdk-logger.js";
import { toolsForProviders } from "./tool-schema.js";
import { ProviderError, type ModelInfo, type Provider, type StreamEvent, type StreamRequest, type ThinkingLevel } from "./types.js";
import { makeUsage } from "./usage.js";

export interface AnthropicOptions {
  /** the provider's name in settings (default "anthropic") */
  name?: string;
  /** never read from the environment here: the key of one provider must not go to another's URL */
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
  logger?: Logger;
  /** abort a stream that sends nothing for this long (a hung connection) */
  idleTimeoutMs?: number;
}

const BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = { minimal: 1024, low: 4096, medium: 10_000, high: 24_000, xhigh: 32_000 };
const EFFORT: Record<Exclude<ThinkingLevel, "off">, "low" | "medium" | "high" | "xhigh"> = { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "xhigh" };

function thinkingParams(model: ModelInfo, level: ThinkingLevel | undefined, maxTokens: number): Partial<Anthropic.MessageCreateParamsStreaming> {
  if (!level || level === "off" || model.thinking === "none") return {};
  if (model.thinking === "adaptive") return { thinking: { type: "adaptive" }, output_config: { effort: EFFORT[level] } };
  const budget = Math.min(BUDGETS[level], maxTokens - 1024);
  return budget >= 1024 ? { thinking: { type: "enabled", budget_tokens: budget } } : {};
}

function stopReasonOf(reason: string | null | undefined): ModelStopReason {
  if (reason === "tool_use") return "toolUse";
  if (reason === "max_tokens") return "length";
  return "stop";
}

export class AnthropicProvider implements Provider {
  readonly name: string;
  private readonly client: Anthropic;
  private readonly idleTimeoutMs: number;
  private readonly log?: Logger;

  constructor(options: AnthropicOptions = {}) {
    this.name = options.name ?? "anthropic";
    this.log = options.logger;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.client = new Anthropic({
      apiKey: options.apiKey ?? "no-key",
      baseURL: options.baseURL ?? "https://api.anthropic.com",
      ...(options.headers && Object.keys(options.headers).length > 0 ? { defaultHeaders: options.headers } : {}),
      maxRetries: 0,
      logger: sdkLogger(options.logger),
    });
  }

  /** The request body for a stream call (exposed for tests and for counting tokens). */
  buildParams(request: StreamRequest): Anthropic.MessageCreateParamsStreaming {
    const { messages, notes } = toApiMessages(request.messages, request.model.provider);
    for (const note of notes) this.log?.warn({ model: request.model.id }, `request repaired: ${note}`);
    // an earlier request sent again with more after it: its breakpoints where they were
    const prefix = request.cachePrefix;
    addCacheBreakpoints(prefix === undefined ? messages : messages.slice(0, toApiMessages(request.messages.slice(0, prefix), request.model.provider).messages.length));
    const tools: Anthropic.Tool[] = toolsForProviders(request.tools).map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as Anthropic.Tool.InputSchema }));
    if (tools.length > 0) tools[tools.length - 1].cache_control = { type: "ephemeral" };
    return {
      model: request.model.id,
      max_tokens: request.maxTokens,
      system: request.systemPrompt ? [{ type: "text", text: request.systemPrompt, cache_control: { type: "ephemeral" } }] : undefined,
      messages,
      ...(tools.length > 0 ? { tools } : {}),
      ...thinkingParams(request.model, request.thinkingLevel, request.maxTokens),
      stream: true,
    };
  }

  async *stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
    const partial = new PartialMessage(request.model, "anthropic-messages");
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal.addEventListener("abort", onAbort, { once: true });
    if (request.signal.aborted) controller.abort();
    // a stall check a few times per idle period, instead of re-arming a timer on every event
    let lastEvent = Date.now();
    let stalled = false;
    const idle = setInterval(() => {
      if (Date.now() - lastEvent < this.idleTimeoutMs) return;
      stalled = true;
      controller.abort();
    }, Math.max(10, Math.floor(this.idleTimeoutMs / 4)));
    const armIdle = () => {
      lastEvent = Date.now();
    };
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    let stopReason: string | null | undefined;
    try {
      armIdle();
      // create() rather than messages.stream(): the MessageStream helper reads the whole body as
      // fast as it arrives into a queue of its own, however slowly its events are taken, so a
      // reply cut at the cap (reply-cap.ts) would already be held in memory; the raw stream is
      // read only as its events are asked for
      const streamed = this.client.messages.create(this.buildParams(request), { signal: controller.signal });
      // a consumer that stops after `start` never awaits it: its failure must not go unhandled
      streamed.catch(() => {});
      yield partial.start();
      const stream = await streamed;
      for await (const ev of stream) {
        armIdle();
        switch (ev.type) {
          case "message_start":
            usage.input = ev.message.usage.input_tokens ?? 0;
            usage.output = ev.message.usage.output_tokens ?? 0;
            usage.cacheRead = ev.message.usage.cache_read_input_tokens ?? 0;
            usage.cacheWrite = ev.message.usage.cache_creation_input_tokens ?? 0;
            break;
          case "content_block_start": {
            const b = ev.content_block;
            if (b.type === "text") partial.beginText(ev.index);
            else if (b.type === "thinking") partial.beginThinking(ev.index);
            else if (b.type === "redacted_thinking") partial.beginThinking(ev.index, b.data);
            else if (b.type === "tool_use") yield partial.beginToolCall(ev.index, b.id, b.name);
            break;
          }
          case "content_block_delta": {
            const d = ev.delta;
            if (d.type === "text_delta") yield partial.text(ev.index, d.text);
            else if (d.type === "thinking_delta") yield partial.thinking(ev.index, d.thinking);
            else if (d.type === "signature_delta") partial.signature(ev.index, d.signature);
            else if (d.type === "input_json_delta") yield partial.toolJsonDelta(ev.index, d.partial_json);
            break;
          }
          case "content_block_stop": {
            const end = partial.endBlock(ev.index);
            if (end) yield end;
            break;
          }
          case "message_delta": {
            // fields present here are cumulative and replace the message_start values
            const u = ev.usage as Partial<Anthropic.MessageDeltaUsage>;
            if (u.input_tokens != null) usage.input = u.input_tokens;
            if (u.output_tokens != null) usage.output = u.output_tokens;
            if (u.cache_read_input_tokens != null) usage.cacheRead = u.cache_read_input_tokens;
            if (u.cache_creation_input_tokens != null) usage.cacheWrite = u.cache_creation_input_tokens;
            stopReason = ev.delta.stop_reason;
            break;
          }
        }
      }
      // the raw stream ends quietly when its request is aborted (the caller, the idle timer)
      if (controller.signal.aborted) throw new Error("request aborted");
      partial.message.usage = makeUsage(usage, request.model.pricing);
      if (isOverflowStopReason(stopReason)) {
        yield partial.fail(new ProviderError({ errorClass: "overflow", message: "the model's context window was exceeded (stop_reason model_context_window_exceeded)" }));
        return;
      }
      if (stopReason === "refusal") {
        yield partial.fail(new ProviderError({ errorClass: "fatal", message: "the model declined to answer (stop_reason refusal)" }));
        return;
      }
      partial.message.stopReason = stopReasonOf(stopReason);
      yield partial.done();
    } catch (err) {
      partial.message.usage = makeUsage(usage, request.model.pricing);
      const error = stalled
        ? new ProviderError({ errorClass: "transient", message: `no data from the API for ${Math.round(this.idleTimeoutMs / 1000)} s` })
        : classifyError(err, request.signal);
      yield partial.fail(error);
    } finally {
      clearInterval(idle);
      request.signal.removeEventListener("abort", onAbort);
    }
  }
}
