// What a failed call through the `openai` SDK means, for OpenAI and every compatible server.
// The SDK gives: an APIError subclass by HTTP status, with the body's `error` object on
// `e.error` (its code and type also on `e.code` / `e.type`); an APIError with no status for an
// error inside the stream (a `data: {"error": ...}` chunk, or the Responses API's `event:
// error`); APIConnectionError / APIConnectionTimeoutError before any response; APIUserAbortError
// for our own abort. Bodies in other shapes are reshaped before the SDK reads them
// (openai-client.ts). The phrasings of overflow on each server are in error-patterns.ts.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { isOverflowText, networkCode, overflowSizes, retryAfterMs, UNREACHABLE } from "./error-patterns.js";
import { ProviderError, type OverflowSizes } from "./types.js";

/** An API's complaint, from an HTTP error or from inside a stream. */
export interface ApiFault {
  /** HTTP status; undefined for an error that arrived inside a 200 stream */
  status?: number;
  /** the error's code or type ("context_length_exceeded", "exceed_context_size_error", "server_error", ...) */
  code?: string;
  message: string;
  retryAfterMs?: number;
  /** sizes the body states as fields (llama.cpp's n_prompt_tokens / n_ctx) */
  sizes?: OverflowSizes;
}

const OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error", "request_too_large"]);
/** codes of failures that a later attempt can get past */
const TRANSIENT_CODES = new Set(["server_error", "internal_error", "api_error", "rate_limit_exceeded", "rate_limit_error", "overloaded_error", "server_is_overloaded", "slow_down", "timeout", "timeout_error", "service_unavailable"]);
/** codes of requests that will fail the same way every time */
const FATAL_CODES = new Set(["invalid_request_error", "invalid_prompt", "invalid_value", "model_not_found", "insufficient_quota", "billing_hard_limit_reached", "BadRequestError"]);

/** Decides the class of a fault. Statuses first, then codes, then the message. */
export function classifyFault(fault: ApiFault, cause?: unknown): ProviderError {
  const { status, code, message } = fault;
  const base = { status, type: code, message, retryAfterMs: fault.retryAfterMs };
  const make = (errorClass: ProviderError["errorClass"], extra: { overflow?: OverflowSizes } = {}) => new ProviderError({ ...base, errorClass, ...extra }, { cause });
  // 429 bodies talk about tokens too ("Request too large for gpt-4o ... tokens per min"): that is a rate limit
  const mayOverflow = status === undefined || ![401, 403, 404, 429].includes(status);
  if (mayOverflow && ((code && OVERFLOW_CODES.has(code)) || status === 413 || isOverflowText(message))) {
    const sizes = { ...overflowSizes(message), ...fault.sizes };
    return make("overflow", Object.keys(sizes).length > 0 ? { overflow: sizes } : {});
  }
  if (status === 401 || status === 403) return make("auth");
  // out of credit or quota: no retry brings it back (OpenAI sends it as a 429)
  if (status === 402 || code === "insufficient_quota" || code === "billing_hard_limit_reached") return make("fatal");
  if (status !== undefined) return make(status === 408 || status === 409 || status === 425 || status === 429 || status >= 500 ? "transient" : "fatal");
  // inside a stream: the connection worked and the server failed on the way, unless it says the request itself is wrong
  if (code && FATAL_CODES.has(code) && !TRANSIENT_CODES.has(code)) return make("fatal");
  return make("transient");
}

type ErrorObject = { message?: unknown; code?: unknown; type?: unknown; metadata?: { raw?: unknown }; n_prompt_tokens?: unknown; n_ctx?: unknown };

/** The body's own words: its message, plus what a gateway (OpenRouter) passed on from the server behind it. */
function bodyText(e: APIError): string {
  const body = e.error as ErrorObject | string | undefined;
  if (typeof body === "string") return body;
  let text = typeof body?.message === "string" ? body.message : e.message;
  const raw = body?.metadata?.raw;
  if (raw !== undefined) text += `\n${typeof raw === "string" ? raw : JSON.stringify(raw)}`;
  return text || "request failed";
}

function bodyFault(e: APIError): ApiFault {
  const body = (typeof e.error === "object" && e.error ? e.error : {}) as ErrorObject;
  const str = (v: unknown) => (typeof v === "string" && v && v !== "error" ? v : undefined);
  // llama.cpp puts the HTTP status in `code`; inside a stream that is the only status there is
  const statusInBody = typeof body.code === "number" && body.code >= 400 ? body.code : undefined;
  const sizes: OverflowSizes = {};
  if (typeof body.n_prompt_tokens === "number") sizes.tokens = body.n_prompt_tokens;
  if (typeof body.n_ctx === "number") sizes.maximum = body.n_ctx;
  return {
    status: e.status ?? statusInBody,
    code: str(e.code) ?? str(body.code) ?? str(e.type) ?? str(body.type),
    message: bodyText(e),
    retryAfterMs: retryAfterMs(e.headers),
    ...(Object.keys(sizes).length > 0 ? { sizes } : {}),
  };
}

/**
 * Classifies anything a call through the SDK threw. `signal` tells an abort we asked for from
 * a connection that just broke.
 */
export function classifyOpenAIError(err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof APIUserAbortError || signal?.aborted || (err as Error)?.name === "AbortError") {
    return new ProviderError({ errorClass: "aborted", message: "request aborted" }, { cause: err });
  }
  if (err instanceof APIConnectionTimeoutError) return new ProviderError({ errorClass: "transient", type: UNREACHABLE, message: "request timed out" }, { cause: err });
  if (err instanceof APIConnectionError) {
    return new ProviderError({ errorClass: "transient", type: UNREACHABLE, message: `connection failed: ${(err.cause as Error | undefined)?.message ?? err.message}` }, { cause: err });
  }
  if (err instanceof APIError) return classifyFault(bodyFault(err), err);
  // a connection cut mid-body: undici's TypeError("terminated"), the socket error down the cause chain
  const code = networkCode(err);
  if (code) return new ProviderError({ errorClass: "transient", message: `connection lost (${code}): ${(err as Error).message}` }, { cause: err });
  return new ProviderError({ errorClass: "fatal", message: err instanceof Error ? err.message : String(err) }, { cause: err });
}

/** A Responses API `response.failed`: the error object the response carries. */
export function responseFailure(error: { code?: string | null; message?: string | null } | null | undefined): ProviderError {
  return classifyFault({ code: error?.code ?? undefined, message: error?.message || "the response failed" });
}
