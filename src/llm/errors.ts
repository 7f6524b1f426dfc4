// One place that decides what a failed model call means. It reads the structured parts of an
// error (HTTP status, the API's error type, the body's message, the SDK's error class), never
// just the text of `e.message` (which the SDK formats as "<status> <json>").
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { ProviderError, type OverflowSizes } from "./types.js";

/** How context overflow reads across providers (the status and type are checked first). */
const OVERFLOW_PATTERNS = [
  /prompt is too long/i,
  /input is too long/i,
  /exceeds? the context window/i,
  /context[ _-]?(window|length)[ _-]?(is )?exceeded/i,
  /maximum context length/i,
  /input token count.*exceeds/i,
  /maximum prompt length/i,
  /reduce the length of the messages/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /too large for model with \d+ maximum context length/i,
  /exceeded model token limit/i,
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

/** The first network error code along an error's cause chain. */
function networkCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

const TRANSIENT_TYPES = new Set(["overloaded_error", "rate_limit_error", "api_error", "timeout_error"]);

export function isOverflowText(text: string | null | undefined): boolean {
  return !!text && OVERFLOW_PATTERNS.some((p) => p.test(text));
}

const num = (s: string) => Number(s.replace(/[,_]/g, ""));

/**
 * The sizes an overflow message names, in the phrasings servers use:
 * "prompt is too long: 376156 tokens > 200000 maximum" (Anthropic),
 * "input length and max_tokens exceed context limit: 197602 + 8192 > 200000" (Anthropic),
 * "maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens" (OpenAI-style).
 */
export function overflowSizes(text: string | null | undefined): OverflowSizes | undefined {
  if (!text) return undefined;
  let m = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)/i.exec(text);
  if (m) return { tokens: num(m[1]), maximum: num(m[2]) };
  m = /(\d[\d,]*)\s*\+\s*(\d[\d,]*)\s*>\s*(\d[\d,]*)/.exec(text);
  if (m) return { tokens: num(m[1]) + num(m[2]), maximum: num(m[3]) };
  const maximum = /maximum context length is (\d[\d,]*)/i.exec(text) ?? /(\d[\d,]*)\s*maximum context length/i.exec(text);
  const tokens = /resulted in (\d[\d,]*) tokens/i.exec(text) ?? /requested (\d[\d,]*) tokens/i.exec(text);
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

/** The body's own message, for an APIError (falls back to the SDK's message). */
function apiText(e: APIError): string {
  const body = e.error as { error?: { message?: unknown }; message?: unknown } | undefined;
  const fromBody = typeof body?.error?.message === "string" ? body.error.message : typeof body?.message === "string" ? body.message : undefined;
  return (e.apiMessage ?? fromBody ?? e.message) || "request failed";
}

function apiType(e: APIError): string | undefined {
  const body = e.error as { error?: { type?: unknown }; type?: unknown } | undefined;
  const t = e.type ?? (typeof body?.error?.type === "string" ? body.error.type : undefined);
  return t ?? undefined;
}

/**
 * Classifies anything a model call threw. `signal` tells an abort we asked for from a
 * connection that just broke.
 */
export function classifyError(err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof APIUserAbortError || signal?.aborted || (err as Error)?.name === "AbortError") {
    return new ProviderError({ errorClass: "aborted", message: "request aborted" }, { cause: err });
  }
  if (err instanceof APIConnectionTimeoutError) return new ProviderError({ errorClass: "transient", message: "request timed out" }, { cause: err });
  if (err instanceof APIConnectionError) {
    return new ProviderError({ errorClass: "transient", message: `connection failed: ${(err.cause as Error | undefined)?.message ?? err.message}` }, { cause: err });
  }
  if (err instanceof APIError) {
    const status = err.status;
    const type = apiType(err);
    const message = apiText(err);
    const retryAfter = retryAfterMs(err.headers);
    const base = { status, type, message, retryAfterMs: retryAfter };
    if (status === undefined) {
      // an error event inside an SSE stream: no HTTP status, only the API's error type
      if (type && TRANSIENT_TYPES.has(type)) return new ProviderError({ ...base, errorClass: "transient" }, { cause: err });
      if (type === "invalid_request_error" && isOverflowText(message)) return new ProviderError({ ...base, errorClass: "overflow", overflow: overflowSizes(message) }, { cause: err });
      return new ProviderError({ ...base, errorClass: type ? "fatal" : "transient" }, { cause: err });
    }
    if ((status === 400 || status === 413) && (isOverflowText(message) || type === "request_too_large")) {
      return new ProviderError({ ...base, errorClass: "overflow", overflow: overflowSizes(message) }, { cause: err });
    }
    if (status === 401 || status === 403) return new ProviderError({ ...base, errorClass: "auth" }, { cause: err });
    if (status === 408 || status === 409 || status === 429 || status >= 500) return new ProviderError({ ...base, errorClass: "transient" }, { cause: err });
    return new ProviderError({ ...base, errorClass: "fatal" }, { cause: err });
  }
  // a connection cut mid-body: the SDK gives a bare AnthropicError or undici TypeError("terminated"),
  // with the socket error further down the cause chain
  const code = networkCode(err);
  if (code) return new ProviderError({ errorClass: "transient", message: `connection lost (${code}): ${(err as Error).message}` }, { cause: err });
  return new ProviderError({ errorClass: "fatal", message: err instanceof Error ? err.message : String(err) }, { cause: err });
}

/** A stop reason that means the context overflowed although the call "succeeded". */
export function isOverflowStopReason(stopReason: string | null | undefined): boolean {
  return stopReason === "model_context_window_exceeded";
}
