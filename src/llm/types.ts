// The model port: what the agent asks of a provider and what comes back, in the stored shapes.
import type { ThinkingLevel, ErrorClass } from "../../protocol/messages.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../messages/types.js";

/** Where a model's window came from (listModels' `windowSource`): the most trustworthy first. */
export type WindowSource = "settings" | "discovered" | "catalog" | "learned" | "default";

export interface ModelInfo {
  id: string;
  /** the provider's name (a built-in "anthropic" / "openai", a settings entry's key, "scripted" offline) */
  provider: string;
  /** the API that provider speaks (absent: the scripted provider's, or Anthropic's for old callers) */
  api?: "anthropic" | "openai-responses" | "openai-completions" | "ollama";
  /** how the window was learned; absent: the model table's */
  windowSource?: WindowSource;
  name?: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens */
  pricing: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** how the model takes a thinking level: adaptive (effort), a token budget, or not at all */
  thinking: "adaptive" | "budget" | "none";
}

/** The protocol's vocabulary (protocol/messages.ts): one definition. */
export type { ThinkingLevel } from "../../protocol/messages.js";

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the input object */
  inputSchema: Record<string, unknown>;
}

export interface StreamRequest {
  model: ModelInfo;
  systemPrompt: string;
  messages: readonly AgentMessage[];
  tools: readonly ToolSpec[];
  maxTokens: number;
  thinkingLevel?: ThinkingLevel;
  signal: AbortSignal;
  /**
   * The first `cachePrefix` messages are an earlier request's, sent again to read it from the
   * prompt cache (a summary in conversation framing): the cache breakpoints go where that request
   * had them, none after, so its prefix is sent byte for byte as it was.
   */
  cachePrefix?: number;
}

/** Why a request failed, in the terms the session host acts on. */
export type { ErrorClass } from "../../protocol/messages.js";

export interface ProviderErrorInfo {
  errorClass: ErrorClass;
  message: string;
  status?: number;
  /** the server's retry-after, when it gave one */
  retryAfterMs?: number;
  /** the API's error type (overloaded_error, rate_limit_error, ...) */
  type?: string;
  /** for an overflow: the sizes the error names, when it names them (see overflowSizes) */
  overflow?: OverflowSizes;
}

/** What an overflow error says about the request and the limit. */
export interface OverflowSizes {
  /** the request's size in tokens, as the server counted it */
  tokens?: number;
  /** the window the server enforces */
  maximum?: number;
}

export class ProviderError extends Error implements ProviderErrorInfo {
  readonly errorClass: ErrorClass;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly type?: string;
  readonly overflow?: OverflowSizes;
  constructor(info: ProviderErrorInfo, options?: { cause?: unknown }) {
    super(info.message, options);
    this.name = "ProviderError";
    this.errorClass = info.errorClass;
    this.status = info.status;
    this.retryAfterMs = info.retryAfterMs;
    this.type = info.type;
    if (info.overflow) this.overflow = info.overflow;
  }
  get retryable(): boolean {
    return this.errorClass === "transient";
  }
}

export type StreamEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; id: string; name: string; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  /** the final message: stopReason stop | length | toolUse */
  | { type: "done"; message: AssistantMessage }
  /** the final message with stopReason error | aborted, and why */
  | { type: "error"; message: AssistantMessage; error: ProviderError };

export interface Provider {
  readonly name: string;
  /** Streams one model call. Never throws: failures end the stream with an `error` event. */
  stream(request: StreamRequest): AsyncIterable<StreamEvent>;
}
