// What every provider's error classification shares: how an overflow reads on each server, the
// sizes it names, retry-after headers, and the network codes of a broken connection. The
// SDK-specific parts (which error classes an SDK throws, where it puts the body) live beside
// each provider: errors.ts (Anthropic), openai-errors.ts (OpenAI and compatible servers).
import type { OverflowSizes } from "./types.js";

/** How context overflow reads across servers (status, code and type are checked first where they exist). */
const OVERFLOW_PATTERNS = [
  /prompt is too long/i, // Anthropic
  /input is too long/i, // Bedrock
  /exceeds? the context window/i, // OpenAI Responses: "Your input exceeds the context window of this model"
  /context[ _-]?(window|length)[ _-]?(is )?exceeded/i,
  /maximum context length/i, // OpenAI, vLLM, DeepSeek, OpenRouter ("This endpoint's maximum context length"), Mistral
  /input token count.*exceeds/i, // Gemini
  /maximum prompt length/i,
  /reduce the length of the messages/i, // Groq, OpenAI
  /exceeds the available context size/i, // llama.cpp
  /context size has been exceeded/i, // llama.cpp (500 while generating), LM Studio MLX
  /greater than the context length/i, // LM Studio
  /n_keep\W*\d+\W*>=\s*n_ctx/i, // LM Studio / llama.cpp: "n_keep (15028) >= n_ctx (7424)"
  /context length of only \d+ tokens/i, // LM Studio (older)
  /too large for model with \d+ maximum context length/i, // Mistral
  /exceeded model token limit/i, // Kimi
  /too many tokens/i,
  /token limit exceeded/i,
];

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * ProviderError.type of a call that never reached the server (refused, no such host, timed out
 * connecting): the host words it with the provider's name and URL, and what to check.
 */
export const UNREACHABLE = "unreachable";

/** The first network error code along an error's cause chain. */
export function networkCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

export function isOverflowText(text: string | null | undefined): boolean {
  return !!text && OVERFLOW_PATTERNS.some((p) => p.test(text));
}

const num = (s: string) => Number(s.replace(/[,_]/g, ""));
const N = String.raw`(\d[\d,]*)`;

/** Phrasings that name both sizes, most specific first: [pattern, tokens from the groups, maximum group]. */
const SIZE_FORMS: [RegExp, (m: RegExpExecArray) => number, number][] = [
  // Anthropic: "prompt is too long: 376156 tokens > 200000 maximum"
  [new RegExp(`${N}\\s*tokens?\\s*>\\s*${N}`, "i"), (m) => num(m[1]), 2],
  // Anthropic: "input length and max_tokens exceed context limit: 197602 + 8192 > 200000"
  [new RegExp(`${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`), (m) => num(m[1]) + num(m[2]), 3],
  // vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens"
  [new RegExp(`too large: ${N}\\..*?maximum context length is ${N} tokens and your request has ${N} input tokens`, "i"), (m) => num(m[1]) + num(m[3]), 2],
  // llama.cpp: "request (25837 tokens) exceeds the available context size (25088 tokens)"
  [new RegExp(`\\(${N} tokens?\\) exceeds the available context size \\(${N} tokens?\\)`, "i"), (m) => num(m[1]), 2],
  // Gemini: "The input token count (132478) exceeds the maximum number of tokens allowed (131072)."
  [new RegExp(`input token count \\(${N}\\).*?allowed \\(${N}\\)`, "i"), (m) => num(m[1]), 2],
  // LM Studio: "(n_keep: 13055>= n_ctx: 4096)"; llama.cpp-based: "n_keep (15028) >= n_ctx (7424)"
  [new RegExp(`n_keep\\W*${N}\\W*>=\\s*n_ctx\\W*${N}`, "i"), (m) => num(m[1]), 2],
  // LM Studio (older): "Trying to keep the first 15857 tokens ... context length of only 7866 tokens"
  [new RegExp(`keep the first ${N} tokens.*?context length of only ${N}`, "i"), (m) => num(m[1]), 2],
  // Mistral: "Prompt contains 40385 tokens ..., too large for model with 32768 maximum context length"
  [new RegExp(`contains ${N} tokens.*?too large for model with ${N}`, "i"), (m) => num(m[1]), 2],
  // Kimi: "exceeded model token limit: 262144 (requested: 300000)"
  [new RegExp(`token limit: ${N} \\(requested: ${N}\\)`, "i"), (m) => num(m[2]), 1],
];

/**
 * The sizes an overflow message names, in the phrasings servers use (see SIZE_FORMS), then the
 * OpenAI-style pair "maximum context length is 128000 tokens. However, your messages resulted in
 * 130000 tokens" / "you requested (about) 130000 tokens" (OpenAI, vLLM, DeepSeek, OpenRouter).
 * `tokens` is the request as the server counted it, output reservation included where it says so.
 */
export function overflowSizes(text: string | null | undefined): OverflowSizes | undefined {
  if (!text) return undefined;
  for (const [pattern, tokensOf, maxGroup] of SIZE_FORMS) {
    const m = pattern.exec(text);
    if (m) return { tokens: tokensOf(m), maximum: num(m[maxGroup]) };
  }
  const maximum = /maximum context length is (\d[\d,]*)/i.exec(text) ?? /(\d[\d,]*)\s*maximum context length/i.exec(text);
  const tokens = /resulted in (\d[\d,]*) tokens/i.exec(text) ?? /requested (?:about )?(\d[\d,]*) tokens/i.exec(text);
  if (maximum || tokens) return { ...(tokens ? { tokens: num(tokens[1]) } : {}), ...(maximum ? { maximum: num(maximum[1]) } : {}) };
  return undefined;
}

/** retry-after-ms, or retry-after in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | Record<string, string | undefined> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()])) ?? undefined;
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = get("retry-after");
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
