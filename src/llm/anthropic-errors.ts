// What a failed Anthropic call means. It reads the structured parts of an error (HTTP status,
// the API's error type, the body's message, the SDK's error class), never just the text of
// `e.message` (which the SDK formats as "<status> <json>"). The patterns every provider shares
// (overflow phrasings and sizes, retry-after, network codes) are in error-patterns.ts.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { isOverflowText, networkCode, overflowSizes, retryAfterMs, UNREACHABLE } from "./error-patterns.js";
import { ProviderError } from "./types.js";

export { isOverflowText, overflowSizes, retryAfterMs } from "./error-patterns.js";

const TRANSIENT_TYPES = new Set(["overloaded_error", "rate_limit_error", "api_error", "timeout_error"]);

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
  if (err instanceof APIConnectionTimeoutError) return new ProviderError({ errorClass: "transient", type: UNREACHABLE, message: "request timed out" }, { cause: err });
  if (err instanceof APIConnectionError) {
    return new ProviderError({ errorClass: "transient", type: UNREACHABLE, message: `connection failed: ${(err.cause as Error | undefined)?.message ?? err.message}` }, { cause: err });
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
