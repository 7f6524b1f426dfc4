// The `openai` SDK client both OpenAI providers use, set up for pith:
// - nothing comes from the environment: the SDK would otherwise read OPENAI_API_KEY,
//   OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID by itself, and a configured provider
//   pointing at some other server must never receive the user's OpenAI key or organization.
//   The caller resolves the key (settings name the variable that holds it).
// - no SDK retries (retrying is the session host's decision, made from the error class);
// - its logger goes to pino (its default is console, which prints to stdout);
// - error bodies in the shapes some compatible servers send are reshaped to OpenAI's
//   {"error": {...}} before the SDK reads them, which otherwise keeps nothing of them.
import OpenAI from "openai";
import type { Logger } from "pino";
import type { ReasoningEffort } from "openai/resources/shared";
import { sdkLogger } from "./sdk-logger.js";
import type { ModelInfo, ThinkingLevel } from "./types.js";

const OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIClientOptions {
  /** the key, already resolved; none for a local server (a placeholder is sent) */
  apiKey?: string;
  /** default OpenAI's own endpoint */
  baseURL?: string;
  /** extra request headers (a gateway's own keys, OpenRouter's attribution, ...) */
  headers?: Record<string, string>;
  logger?: Logger;
}

/**
 * Error bodies as servers send them, reshaped to {"error": {...}}:
 * - a JSON array of errors (Gemini's OpenAI-compatible endpoint): the first one;
 * - an error object at the top level (vLLM before 0.10, Mistral: {"object":"error","message":...}):
 *   wrapped (openai 6.x leaves such a body off the error; 7.x wraps it too, but needs Node 22);
 * - FastAPI's {"detail": "..."}: wrapped as the message.
 * Anything else (OpenAI's shape, a string `error` as LM Studio sends, plain text) is left alone.
 */
export function normalizeErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (Array.isArray(body)) body = body.find((e) => e && typeof e === "object");
  if (!body || typeof body !== "object") return text;
  const o = body as Record<string, unknown>;
  if ("error" in o) return JSON.stringify(o);
  if (typeof o.message === "string") return JSON.stringify({ error: o });
  if (typeof o.detail === "string") return JSON.stringify({ error: { message: o.detail } });
  return text;
}

/** fetch, with error bodies reshaped (successful responses pass untouched, streams included) */
const normalizingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.ok) return res;
  const text = await res.text();
  return new Response(normalizeErrorBody(text), { status: res.status, statusText: res.statusText, headers: res.headers });
};

export function createOpenAIClient(options: OpenAIClientOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey || "no-key",
    baseURL: options.baseURL ?? OPENAI_BASE_URL,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    defaultHeaders: options.headers,
    maxRetries: 0,
    logger: sdkLogger(options.logger),
    fetch: normalizingFetch,
  });
}

/** OpenAI's own endpoint (which wants max_completion_tokens and takes reasoning_effort) */
export function isOpenAIEndpoint(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

const EFFORT: Record<Exclude<ThinkingLevel, "off">, ReasoningEffort> = { minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "xhigh" };

/**
 * The reasoning effort for a thinking level, for models that take one (ModelInfo.thinking not
 * "none"; a model that does not reason refuses the parameter). "off" sends nothing: the model's
 * own default applies, since older reasoning models refuse "none".
 */
export function reasoningEffort(model: ModelInfo, level: ThinkingLevel | undefined): ReasoningEffort | undefined {
  if (model.thinking === "none" || !level || level === "off") return undefined;
  return EFFORT[level];
}
