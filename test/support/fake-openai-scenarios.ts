// Builders for the fake OpenAI-compatible server's scenarios (see fake-openai.ts for what each
// does). Plain data in, plain data out: a test can also write the objects by hand.
import type { FakeBlock, ReplySpec } from "./fake-openai-frames.js";
import type { EndlessOptions } from "./endless-stream.js";
import type { CutScenario, EndlessScenario, HangScenario, HttpErrorScenario, ReplyScenario, StreamErrorScenario } from "./fake-openai.js";

type ReplyOptions = Omit<ReplySpec, "content">;

export function reply(content: FakeBlock[], options: ReplyOptions = {}): ReplyScenario {
  return { kind: "reply", content, ...options };
}

/** a text reply that never ends until the client cuts it (either route) */
export function endlessReply(options: EndlessOptions = {}): EndlessScenario {
  return { kind: "endless", ...options };
}

export function textReply(text: string, options: ReplyOptions = {}): ReplyScenario {
  return reply([{ type: "text", text }], options);
}

/** one tool call (finish tool_calls), optionally after some text */
export function toolCallReply(name: string, args: unknown, options: ReplyOptions & { text?: string; id?: string } = {}): ReplyScenario {
  const { text, id, ...rest } = options;
  const blocks: FakeBlock[] = text !== undefined ? [{ type: "text", text }] : [];
  blocks.push({ type: "tool_call", name, arguments: args, ...(id !== undefined ? { id } : {}) });
  return reply(blocks, rest);
}

/** reasoning, then text */
export function reasoningReply(reasoning: string, text: string, options: ReplyOptions = {}): ReplyScenario {
  return reply(
    [
      { type: "reasoning", text: reasoning },
      { type: "text", text },
    ],
    options,
  );
}

function httpError(status: number, body: unknown, headers: Record<string, string> = {}): HttpErrorScenario {
  return { kind: "http_error", status, body, headers };
}

/** 429 rate_limit_exceeded, with retry-after (seconds) */
export function rateLimited(retryAfter = 5): HttpErrorScenario {
  return httpError(
    429,
    { error: { message: "Rate limit reached for gpt-4o in organization org-fake on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000. Please try again in 8s.", type: "tokens", param: null, code: "rate_limit_exceeded" } },
    { "retry-after": String(retryAfter) },
  );
}

/** 401 invalid_api_key */
export function authError(): HttpErrorScenario {
  return httpError(401, { error: { message: "Incorrect API key provided: sk-fake. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
}

/** 500 server_error */
export function serverError(): HttpErrorScenario {
  return httpError(500, { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } });
}

/** some frames, then an error inside the stream */
export function streamError(error: StreamErrorScenario["error"] = { message: "The server had an error while processing your request.", code: "server_error" }, options: Omit<StreamErrorScenario, "kind" | "error"> = {}): StreamErrorScenario {
  return { kind: "stream_error", error, ...options };
}

export function cutConnection(options: Omit<CutScenario, "kind"> = {}): CutScenario {
  return { kind: "cut", ...options };
}

export function hang(options: Omit<HangScenario, "kind"> = {}): HangScenario {
  return { kind: "hang", ...options };
}
