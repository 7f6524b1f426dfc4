// What a server says about the models it serves. Discovery asks; these are its answers.
import type { ModelInfo } from "../types.js";

/** One model as its server describes it. Only what the server said is set. */
export interface DiscoveredModel {
  id: string;
  /** the window a request can use now (the loaded context, the served max_model_len, ...) */
  contextWindow?: number;
  /**
   * the most the model supports (its training window, LM Studio's max_context_length), when the
   * server says it beside or instead of the window in use; not a window to act on by itself
   */
  maxContextWindow?: number;
  maxOutputTokens?: number;
  /** USD per million tokens, when the server publishes prices (OpenRouter) */
  pricing?: Partial<ModelInfo["pricing"]>;
  /** the server says the model can think (Ollama's "thinking" capability, LM Studio's reasoning) */
  thinking?: boolean;
  vision?: boolean;
  tools?: boolean;
  /** which field the window came from, for `pith models` ("vllm max_model_len", ...) */
  windowFrom?: string;
}

/** The kinds of server discovery tells apart (each states windows in its own field). */
export type ServerKind = "ollama" | "vllm" | "openrouter" | "lmstudio" | "llamacpp" | "openai-compatible";

export type DiscoveryFailure = "network" | "timeout" | "auth" | "http" | "bad_body" | "redirect";

export type DiscoveryResult =
  | { status: "ok"; server: ServerKind; models: DiscoveredModel[]; at: number }
  /** never thrown: remembered, shown, and tried again on refresh */
  | { status: "unreachable"; failure: DiscoveryFailure; reason: string; httpStatus?: number; at: number }
  /** the API has no model listing pith reads (Anthropic): the catalog covers it */
  | { status: "unsupported"; reason: string; at: number };

/** Where to ask, as a provider's settings name it. */
export interface DiscoveryTarget {
  api: "anthropic" | "openai-responses" | "openai-completions" | "ollama";
  /** the provider's base URL (…/v1 for OpenAI-compatible servers, the root for Ollama) */
  baseUrl: string;
  /** sent only to the base URL's own origin */
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface DiscoveryOptions {
  /** per request (default 5000 ms): a hung server must not hang pith */
  timeoutMs?: number;
  /** the whole discovery gives up when this aborts */
  signal?: AbortSignal;
  /** at most this many per-model requests (Ollama /api/show, llama.cpp router /props); default 100 */
  maxDetailRequests?: number;
  /** per-model requests at once (default 4) */
  concurrency?: number;
  now?: () => number;
}
