// Builders for the fake Anthropic server's scenarios (see fake-anthropic.ts for what each does).
// Plain data in, plain data out: a test can also write the objects by hand.
import type { EndlessOptions } from "./endless-stream.js";
import type {
  CutScenario,
  EndlessScenario,
  FakeBlock,
  HangScenario,
  HttpErrorScenario,
  ReplyScenario,
  ReplySpec,
  StreamErrorScenario,
} from "./fake-anthropic.js";

type ReplyOptions = Omit<ReplySpec, "content">;

/** a reply with the given blocks */
export function reply(content: FakeBlock[], options: ReplyOptions = {}): ReplyScenario {
  return { kind: "reply", content, ...options };
}

/** a reply whose one block (text, thinking or a bash call's arguments) never ends until the client cuts it */
export function endlessReply(block: EndlessScenario["block"], options: EndlessOptions = {}): EndlessScenario {
  return { kind: "endless", block, ...options };
}

/** a one-block text reply */
export function textReply(text: string, options: ReplyOptions = {}): ReplyScenario {
  return reply([{ type: "text", text }], options);
}

/** a reply that calls one tool (stop_reason tool_use), optionally after some text */
export function toolUseReply(name: string, input: unknown, options: ReplyOptions & { text?: string; id?: string; chunkSize?: number } = {}): ReplyScenario {
  const { text, id, chunkSize, ...rest } = options;
  const blocks: FakeBlock[] = [];
  if (text !== undefined) blocks.push({ type: "text", text });
  blocks.push({ type: "tool_use", name, input, ...(id !== undefined ? { id } : {}), ...(chunkSize !== undefined ? { chunkSize } : {}) });
  return reply(blocks, rest);
}

/** a thinking block (with its signature) followed by text */
export function thinkingReply(thinking: string, signature: string, text: string, options: ReplyOptions = {}): ReplyScenario {
  return reply(
    [
      { type: "thinking", thinking, signature },
      { type: "text", text },
    ],
    options,
  );
}

// ---- HTTP errors, in the real API's shapes ----

export interface HttpErrorOptions {
  /** seconds, sent as the retry-after header */
  retryAfter?: number;
  headers?: Record<string, string>;
  requestId?: string;
}

export function httpError(status: number, type: string, message: string, options: HttpErrorOptions = {}): HttpErrorScenario {
  const headers: Record<string, string> = { ...options.headers };
  if (options.retryAfter !== undefined) headers["retry-after"] = String(options.retryAfter);
  return { kind: "http_error", status, type, message, headers, ...(options.requestId ? { requestId: options.requestId } : {}) };
}

/** 400 invalid_request_error "prompt is too long: 219898 tokens > 200000 maximum" */
export function promptTooLong(tokens = 219898, maximum = 200000, options: HttpErrorOptions = {}): HttpErrorScenario {
  return httpError(400, "invalid_request_error", `prompt is too long: ${tokens} tokens > ${maximum} maximum`, options);
}

/** 529 overloaded_error, with retry-after (default 1 s; null for none) */
export function overloaded(options: Omit<HttpErrorOptions, "retryAfter"> & { retryAfter?: number | null } = {}): HttpErrorScenario {
  const { retryAfter = 1, ...rest } = options;
  return httpError(529, "overloaded_error", "Overloaded", { ...rest, ...(retryAfter !== null ? { retryAfter } : {}) });
}

/** 429 rate_limit_error, with retry-after (default 5 s; null for none) */
export function rateLimited(options: Omit<HttpErrorOptions, "retryAfter"> & { retryAfter?: number | null } = {}): HttpErrorScenario {
  const { retryAfter = 5, ...rest } = options;
  return httpError(
    429,
    "rate_limit_error",
    "This request would exceed the rate limit for your organization of 30,000 input tokens per minute.",
    { ...rest, ...(retryAfter !== null ? { retryAfter } : {}) },
  );
}

/** 500 api_error */
export function serverError(options: HttpErrorOptions = {}): HttpErrorScenario {
  return httpError(500, "api_error", "Internal server error", options);
}

/** 401 authentication_error */
export function authError(options: HttpErrorOptions = {}): HttpErrorScenario {
  return httpError(401, "authentication_error", "invalid x-api-key", options);
}

/** 403 permission_error */
export function permissionError(options: HttpErrorOptions = {}): HttpErrorScenario {
  return httpError(403, "permission_error", "Your API key does not have permission to use the specified resource.", options);
}

/** 400 invalid_request_error, other than an overflow */
export function badRequest(message = "messages: roles must alternate between \"user\" and \"assistant\"", options: HttpErrorOptions = {}): HttpErrorScenario {
  return httpError(400, "invalid_request_error", message, options);
}

// ---- failures during a stream ----

/** some frames, then `event: error` (default overloaded_error "Overloaded") and the end */
export function streamError(options: { reply?: ReplySpec; afterFrames?: number; type?: string; message?: string } = {}): StreamErrorScenario {
  const { reply: r, afterFrames, type = "overloaded_error", message = "Overloaded" } = options;
  return { kind: "stream_error", error: { type, message }, ...(r ? { reply: r } : {}), ...(afterFrames !== undefined ? { afterFrames } : {}) };
}

/** some frames, then the socket destroyed */
export function cutConnection(options: { reply?: ReplySpec; afterFrames?: number; beforeHeaders?: boolean } = {}): CutScenario {
  return { kind: "cut", ...options };
}

/** headers (and afterFrames frames), then silence until the client leaves or the server closes */
export function hang(options: { reply?: ReplySpec; afterFrames?: number; beforeHeaders?: boolean } = {}): HangScenario {
  return { kind: "hang", ...options };
}
