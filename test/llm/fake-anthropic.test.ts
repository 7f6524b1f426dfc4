// The fake Messages API server, driven through the real @anthropic-ai/sdk (1.12.0). Besides proving
// the fake, these tests pin down exactly which error classes and fields the SDK produces for each
// failure: the provider's error classifier is written against what is asserted here.
//
// What the SDK gives (maxRetries 0, Node 20 fetch = undici):
// - HTTP error status -> an APIError subclass chosen by status: 400 BadRequestError,
//   401 AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 429 RateLimitError,
//   500 InternalServerError, 529 OverloadedError (a subclass of InternalServerError). Fields:
//   `status` (number), `type` (the body's error.type, e.g. "invalid_request_error"), `apiMessage`
//   (the body's error.message, e.g. "prompt is too long: 219898 tokens > 200000 maximum"),
//   `error` (the whole parsed body {type:"error", error:{type, message}, request_id}),
//   `headers` (a Headers: `headers.get("retry-after")`), `requestID` (the request-id header),
//   `message` = "<status> <body JSON>" (do not parse it).
// - `event: error` mid-stream -> exactly `APIError` (constructor === APIError, no subclass) with
//   `status` undefined; the type is on `type` ("overloaded_error") and on `error.error.type`
//   (`error` is the parsed data {type:"error", error:{type, message}}); `apiMessage` "Overloaded";
//   `headers`/`requestID` are those of the 200 SSE response; `message` is the data JSON text.
// - connection cut after the headers, mid-body:
//     through `messages.stream()`: a plain `AnthropicError` (NOT an APIError, so no status/type),
//       message "terminated", `cause` = TypeError("terminated") whose `cause` is undici's
//       SocketError("other side closed", code "UND_ERR_SOCKET");
//     through `messages.create()` (with or without stream: true, iterating the raw Stream): the
//       undici TypeError("terminated") itself, not wrapped at all (cause: SocketError UND_ERR_SOCKET).
// - connection cut before any response byte -> `APIConnectionError` (status undefined, type null,
//   message "Connection error."), `cause` = TypeError("fetch failed") with cause SocketError
//   UND_ERR_SOCKET.
// - the caller's AbortSignal (or stream.abort()) -> `APIUserAbortError` ("Request was aborted.",
//   status undefined, type null); the MessageStream emits "abort", not "error".
// - no headers within the request `timeout` -> `APIConnectionTimeoutError` ("Request timed out.",
//   a subclass of APIConnectionError).
// - CAUTION: the SDK's `timeout` only covers the wait for the response headers. A stream that
//   stalls after its headers is ended only by undici's bodyTimeout (300 s), as an AnthropicError
//   "terminated" with cause.cause a BodyTimeoutError (code UND_ERR_BODY_TIMEOUT). The provider
//   needs its own idle timer that aborts through the signal.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import {
  authError,
  badRequest,
  cutConnection,
  hang,
  overloaded,
  permissionError,
  promptTooLong,
  rateLimited,
  reply,
  serverError,
  startFakeAnthropic,
  streamError,
  textReply,
  thinkingReply,
  toolUseReply,
  type FakeAnthropic,
  type HttpErrorScenario,
} from "../support/fake-anthropic.js";

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const MODEL = "claude-opus-4-5";

function makeClient(server: FakeAnthropic): Anthropic {
  return new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0, logger: silentLogger });
}

function params(text = "hi"): Anthropic.MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 256, messages: [{ role: "user", content: text }] };
}

/** the rejection of `p`, failing if it resolves */
async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
}

/** the causes of an error, outermost first */
function causes(e: unknown): any[] {
  const out: any[] = [];
  for (let c = (e as any)?.cause; c && out.length < 5; c = c.cause) out.push(c);
  return out;
}

let server: FakeAnthropic;
let client: Anthropic;

before(async () => {
  server = await startFakeAnthropic();
  client = makeClient(server);
});
after(async () => {
  await server.close();
});
beforeEach(() => {
  assert.equal(server.remaining(), 0, "a previous test left scenarios queued");
});

describe("replies", () => {
  test("a streamed text reply: deltas, final message, stop reason, usage", async () => {
    const text = "Hello there — a streamed answer with ünïcode 🎉 in it.";
    server.enqueue(
      textReply(text, {
        chunkSize: 5,
        id: "msg_scripted",
        usage: { input_tokens: 120, output_tokens: 42, cache_creation_input_tokens: 10, cache_read_input_tokens: 300 },
      }),
    );
    const stream = client.messages.stream(params());
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    const message = await stream.finalMessage();

    assert.ok(deltas.length >= Array.from(text).length / 5, `expected several deltas, got ${deltas.length}`);
    assert.ok(deltas.every((d) => Array.from(d).length <= 5));
    assert.equal(deltas.join(""), text);
    assert.equal(message.id, "msg_scripted");
    assert.equal(message.model, MODEL, "the request's model is echoed");
    assert.equal(message.role, "assistant");
    assert.deepEqual(message.content, [{ type: "text", text }]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.stop_sequence, null);
    assert.equal(message.usage.input_tokens, 120);
    assert.equal(message.usage.output_tokens, 42);
    assert.equal(message.usage.cache_creation_input_tokens, 10);
    assert.equal(message.usage.cache_read_input_tokens, 300);
  });

  test("message_delta usage replaces the fields it carries; absent ones keep message_start's", async () => {
    server.enqueue(
      textReply("usage check", {
        startUsage: { input_tokens: 50, cache_creation_input_tokens: 7, cache_read_input_tokens: 100, output_tokens: 1 },
        deltaUsage: { output_tokens: 30, cache_read_input_tokens: 100 },
      }),
    );
    const message = await client.messages.stream(params()).finalMessage();
    assert.equal(message.usage.input_tokens, 50, "absent from message_delta: kept");
    assert.equal(message.usage.cache_creation_input_tokens, 7, "absent from message_delta: kept");
    assert.equal(message.usage.cache_read_input_tokens, 100, "present in both: replaced, not added (not 200)");
    assert.equal(message.usage.output_tokens, 30, "output_tokens 1 at message_start replaced");
  });

  test("every stop reason comes through", async () => {
    for (const stopReason of ["max_tokens", "model_context_window_exceeded", "stop_sequence", "end_turn"] as const) {
      server.enqueue(textReply("cut short", { stopReason, ...(stopReason === "stop_sequence" ? { stopSequence: "###" } : {}) }));
      const message = await client.messages.stream(params()).finalMessage();
      assert.equal(message.stop_reason, stopReason);
      assert.equal(message.stop_sequence, stopReason === "stop_sequence" ? "###" : null);
    }
  });

  test("a tool_use reply: the input assembled from input_json_delta chunks equals the scripted input", async () => {
    const input = { path: "src/ünï/côde.ts", lines: [1, 2, 3], options: { recursive: true, pattern: "a\"b\\c\n" }, empty: {} };
    server.enqueue(toolUseReply("read_file", input, { text: "Let me look.", id: "toolu_01", chunkSize: 3 }));
    const stream = client.messages.stream(params());
    const partials: string[] = [];
    stream.on("inputJson", (partial) => partials.push(partial));
    const message = await stream.finalMessage();

    assert.ok(partials.length > 10, `expected many input_json_delta chunks, got ${partials.length}`);
    assert.equal(partials.join(""), JSON.stringify(input));
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.content.length, 2);
    assert.deepEqual(message.content[0], { type: "text", text: "Let me look." });
    const tool = message.content[1];
    assert.equal(tool?.type, "tool_use");
    if (tool?.type !== "tool_use") return;
    assert.equal(tool.id, "toolu_01");
    assert.equal(tool.name, "read_file");
    assert.deepEqual(tool.input, input);
  });

  test("a tool with an empty input and two tool calls in one reply", async () => {
    server.enqueue(
      reply([
        { type: "tool_use", name: "list", input: {} },
        { type: "tool_use", name: "grep", input: { q: "x" } },
      ]),
    );
    const message = await client.messages.stream(params()).finalMessage();
    assert.equal(message.stop_reason, "tool_use");
    const tools = message.content.filter((b) => b.type === "tool_use");
    assert.deepEqual(
      tools.map((t) => [t.name, t.input]),
      [
        ["list", {}],
        ["grep", { q: "x" }],
      ],
    );
    assert.notEqual(tools[0]?.id, tools[1]?.id, "generated tool ids are distinct");
  });

  test("thinking blocks with signatures (and redacted thinking) survive into finalMessage", async () => {
    server.enqueue(
      reply([
        { type: "thinking", thinking: "First, consider the question carefully.", signature: "sig_abc123==" },
        { type: "redacted_thinking", data: "EncryptedOpaqueBlob==" },
        { type: "text", text: "The answer is 4." },
      ]),
    );
    const stream = client.messages.stream({ ...params(), thinking: { type: "enabled", budget_tokens: 1024 } });
    const thoughts: string[] = [];
    stream.on("thinking", (d) => thoughts.push(d));
    const message = await stream.finalMessage();
    assert.equal(thoughts.join(""), "First, consider the question carefully.");
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: "First, consider the question carefully.", signature: "sig_abc123==" },
      { type: "redacted_thinking", data: "EncryptedOpaqueBlob==" },
      { type: "text", text: "The answer is 4." },
    ]);
    assert.deepEqual(server.requests.at(-1)?.body.thinking, { type: "enabled", budget_tokens: 1024 });
  });

  test("a non-streaming request gets the same reply as one JSON message", async () => {
    server.enqueue(thinkingReply("hmm", "sig_1", "done", { usage: { input_tokens: 9, output_tokens: 3 } }));
    const message = await client.messages.create(params());
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: "hmm", signature: "sig_1" },
      { type: "text", text: "done" },
    ]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.input_tokens, 9);
    assert.equal(message.usage.output_tokens, 3);
    assert.equal(server.requests.at(-1)?.body.stream, undefined);
  });

  test("scenarios are consumed in order, then the default", async () => {
    server.enqueue(textReply("one"), textReply("two"));
    assert.equal(server.remaining(), 2);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) texts.push(await client.messages.stream(params()).finalText());
    assert.deepEqual(texts, ["one", "two", "ok"]);
    server.setDefault(textReply("new default"));
    try {
      assert.equal(await client.messages.stream(params()).finalText(), "new default");
    } finally {
      server.setDefault(textReply("ok"));
    }
  });

  test("delays between frames and extra pings", async () => {
    server.enqueue(textReply("abcdefghij", { chunkSize: 2, delayMs: 15, pings: 2, pingEvery: 1 }));
    const started = Date.now();
    const stream = client.messages.stream(params());
    const arrivals: number[] = [];
    stream.on("text", () => arrivals.push(Date.now()));
    assert.equal(await stream.finalText(), "abcdefghij");
    // message_start + 2 pings + start + 5 deltas + interleaved pings + stop + delta + stop, 15 ms each
    assert.ok(Date.now() - started >= 15 * 12, `took only ${Date.now() - started} ms`);
    assert.equal(arrivals.length, 5);
    assert.ok(arrivals[4]! - arrivals[0]! >= 15 * 4 * 2 - 30, "deltas were spread out in time");
  });
});

describe("the wire format", () => {
  test("SSE frames exactly as the real API: order, shapes, headers", async () => {
    server.enqueue(toolUseReply("t", { a: 1 }, { text: "hi", chunkSize: 100, usage: { input_tokens: 11, output_tokens: 5 }, requestId: "req_wire" }));
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...params(), stream: true }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(res.headers.get("request-id"), "req_wire");
    const raw = await res.text();
    const frames = raw.split("\n\n").filter(Boolean);
    assert.ok(raw.endsWith("\n\n"));
    const parsed = frames.map((f) => {
      const m = /^event: (\w+)\ndata: (.*)$/s.exec(f);
      assert.ok(m, `malformed frame ${JSON.stringify(f)}`);
      const data = JSON.parse(m[2]!);
      assert.equal(data.type, m[1], "data.type matches the event name");
      return data;
    });
    assert.deepEqual(
      parsed.map((d) => (d.type === "content_block_delta" ? `delta:${d.delta.type}` : d.type)),
      [
        "message_start",
        "ping",
        "content_block_start",
        "delta:text_delta",
        "content_block_stop",
        "content_block_start",
        "delta:input_json_delta",
        "delta:input_json_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    const start = parsed[0].message;
    assert.deepEqual(start.content, []);
    assert.equal(start.role, "assistant");
    assert.equal(start.model, MODEL);
    assert.equal(start.stop_reason, null);
    assert.deepEqual(
      { i: start.usage.input_tokens, cc: start.usage.cache_creation_input_tokens, cr: start.usage.cache_read_input_tokens, o: start.usage.output_tokens },
      { i: 11, cc: 0, cr: 0, o: 1 },
    );
    assert.deepEqual(parsed[6].delta, { type: "input_json_delta", partial_json: "" }, "an empty first json delta, as the API sends");
    const delta = parsed[9];
    assert.deepEqual(delta.delta, { stop_reason: "tool_use", stop_sequence: null });
    assert.equal(delta.usage.output_tokens, 5, "message_delta always carries usage");
  });

  test("unknown routes get a 404 in the Anthropic error shape", async () => {
    const res = await fetch(`${server.url}/v1/models`);
    assert.equal(res.status, 404);
    const body: any = await res.json();
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "not_found_error");
    const e = await rejection(client.models.list());
    assert.ok(e instanceof Anthropic.NotFoundError);
    assert.equal(e.status, 404);
    assert.equal(e.type, "not_found_error");
  });
});

describe("HTTP errors", () => {
  const cases: Array<{ name: string; scenario: HttpErrorScenario; cls: new (...a: any[]) => Error; status: number; type: string; retryAfter: string | null; message: RegExp }> = [
    { name: "prompt too long", scenario: promptTooLong(), cls: Anthropic.BadRequestError, status: 400, type: "invalid_request_error", retryAfter: null, message: /^prompt is too long: 219898 tokens > 200000 maximum$/ },
    { name: "overloaded", scenario: overloaded({ retryAfter: 3 }), cls: Anthropic.OverloadedError, status: 529, type: "overloaded_error", retryAfter: "3", message: /^Overloaded$/ },
    { name: "rate limited", scenario: rateLimited({ retryAfter: 17 }), cls: Anthropic.RateLimitError, status: 429, type: "rate_limit_error", retryAfter: "17", message: /rate limit/ },
    { name: "server error", scenario: serverError(), cls: Anthropic.InternalServerError, status: 500, type: "api_error", retryAfter: null, message: /Internal server error/ },
    { name: "authentication", scenario: authError(), cls: Anthropic.AuthenticationError, status: 401, type: "authentication_error", retryAfter: null, message: /x-api-key/ },
    { name: "permission", scenario: permissionError(), cls: Anthropic.PermissionDeniedError, status: 403, type: "permission_error", retryAfter: null, message: /permission/ },
    { name: "other bad request", scenario: badRequest(), cls: Anthropic.BadRequestError, status: 400, type: "invalid_request_error", retryAfter: null, message: /roles must alternate/ },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.cls.name} with status ${c.status}`, async () => {
      server.enqueue({ ...c.scenario, requestId: `req_${c.status}` });
      const e = await rejection(client.messages.stream(params()).finalMessage());
      assert.ok(e instanceof c.cls, `got ${e?.constructor?.name}`);
      assert.ok(e instanceof Anthropic.APIError);
      assert.equal(e.status, c.status);
      assert.equal(e.type, c.type);
      assert.match(String(e.apiMessage), c.message);
      assert.equal(e.error.type, "error");
      assert.equal(e.error.error.type, c.type);
      assert.equal(e.headers.get("retry-after"), c.retryAfter);
      assert.equal(e.requestID, `req_${c.status}`);
      assert.ok(e.message.startsWith(`${c.status} `), "message is '<status> <json>'");
    });
  }

  test("529 is an InternalServerError too; non-streaming create gets the same classes", async () => {
    server.enqueue(overloaded(), promptTooLong(300000, 200000));
    const e1 = await rejection(client.messages.create(params()));
    assert.ok(e1 instanceof Anthropic.OverloadedError);
    assert.ok(e1 instanceof Anthropic.InternalServerError);
    assert.equal(e1.headers.get("retry-after"), "1");
    const e2 = await rejection(client.messages.create(params()));
    assert.ok(e2 instanceof Anthropic.BadRequestError);
    assert.equal(e2.apiMessage, "prompt is too long: 300000 tokens > 200000 maximum");
  });
});

describe("failures during a stream", () => {
  test("a mid-stream error event: a bare APIError, status undefined, type overloaded_error", async () => {
    server.enqueue(streamError({ reply: { content: [{ type: "text", text: "partial text" }], requestId: "req_mid" } }));
    const stream = client.messages.stream(params());
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    const e = await rejection(stream.finalMessage());
    assert.equal(deltas.join(""), "partial text", "frames before the error arrived");
    assert.equal(e.constructor, Anthropic.APIError, `got ${e?.constructor?.name}, not a subclass`);
    assert.equal(e.status, undefined);
    // the type is carried by `type` and by `error.error.type` (error = the parsed event data)
    assert.equal(e.type, "overloaded_error");
    assert.deepEqual(e.error, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    assert.equal(e.apiMessage, "Overloaded");
    assert.equal(e.message, JSON.stringify(e.error));
    assert.equal(e.requestID, "req_mid", "headers are those of the 200 SSE response");
    assert.match(e.headers.get("content-type"), /text\/event-stream/);
  });

  test("a mid-stream error of another type, right after message_start", async () => {
    server.enqueue(streamError({ afterFrames: 1, type: "api_error", message: "Internal server error" }));
    const e = await rejection(client.messages.stream(params()).finalMessage());
    assert.equal(e.constructor, Anthropic.APIError);
    assert.equal(e.status, undefined);
    assert.equal(e.type, "api_error");
    assert.equal(e.apiMessage, "Internal server error");
  });

  test("a mid-stream error through the raw stream of create({stream: true}) is the same APIError", async () => {
    server.enqueue(streamError());
    const s = await client.messages.create({ ...params(), stream: true });
    const e = await rejection(
      (async () => {
        for await (const _ of s) void _;
      })(),
    );
    assert.equal(e.constructor, Anthropic.APIError);
    assert.equal(e.type, "overloaded_error");
  });

  test("a cut connection mid-stream: a plain AnthropicError 'terminated' caused by undici's SocketError", async () => {
    server.enqueue(cutConnection({ reply: { content: [{ type: "text", text: "half an answ" }], chunkSize: 4 } }));
    const stream = client.messages.stream(params());
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    const e = await rejection(stream.finalMessage());
    assert.equal(deltas.join(""), "half an answ");
    assert.equal(e.constructor, Anthropic.AnthropicError, `got ${e?.constructor?.name}`);
    assert.ok(!(e instanceof Anthropic.APIError), "not an APIError: no status, no type");
    assert.equal(e.message, "terminated");
    const [c1, c2] = causes(e);
    assert.ok(c1 instanceof TypeError);
    assert.equal(c1.message, "terminated");
    assert.equal(c2?.code, "UND_ERR_SOCKET");
    assert.equal((await server.whenEnded(server.requests.length - 1)).how, "cut");
  });

  test("a cut connection through create(): the undici TypeError itself, unwrapped", async () => {
    server.enqueue(cutConnection(), cutConnection());
    const e1 = await rejection(client.messages.create(params()));
    assert.equal(e1.constructor, TypeError);
    assert.equal(e1.message, "terminated");
    assert.equal(e1.cause?.code, "UND_ERR_SOCKET");
    const s = await client.messages.create({ ...params(), stream: true });
    const e2 = await rejection(
      (async () => {
        for await (const _ of s) void _;
      })(),
    );
    assert.equal(e2.constructor, TypeError);
    assert.equal(e2.cause?.code, "UND_ERR_SOCKET");
  });

  test("a connection cut before the headers: APIConnectionError", async () => {
    server.enqueue(cutConnection({ beforeHeaders: true }));
    const e = await rejection(client.messages.stream(params()).finalMessage());
    assert.equal(e.constructor, Anthropic.APIConnectionError);
    assert.equal(e.status, undefined);
    assert.equal(e.type, null);
    assert.equal(e.message, "Connection error.");
    const [c1, c2] = causes(e);
    assert.equal(c1?.message, "fetch failed");
    assert.equal(c2?.code, "UND_ERR_SOCKET");
  });

  test("a hang is aborted by an AbortSignal -> APIUserAbortError, and the server sees the socket close", async () => {
    server.enqueue(hang({ afterFrames: 4 }));
    const ac = new AbortController();
    const stream = client.messages.stream(params(), { signal: ac.signal });
    let aborted = false;
    stream.on("abort", () => (aborted = true));
    stream.on("text", () => setTimeout(() => ac.abort(), 20)); // abort once the stream is flowing
    const started = Date.now();
    const e = await rejection(stream.finalMessage());
    assert.equal(e.constructor, Anthropic.APIUserAbortError);
    assert.equal(e.status, undefined);
    assert.equal(e.message, "Request was aborted.");
    assert.ok(aborted, "the stream emitted abort");
    const end = await server.whenEnded(server.requests.length - 1);
    assert.equal(end.how, "client_closed");
    assert.ok(Date.now() - started < 2000);
  });

  test("a hang before the headers with a request timeout -> APIConnectionTimeoutError", async () => {
    server.enqueue(hang({ beforeHeaders: true }));
    const e = await rejection(client.messages.stream(params(), { timeout: 150 }).finalMessage());
    assert.equal(e.constructor, Anthropic.APIConnectionTimeoutError);
    assert.ok(e instanceof Anthropic.APIConnectionError);
    assert.equal(e.message, "Request timed out.");
    assert.equal((await server.whenEnded(server.requests.length - 1)).how, "client_closed");
  });

  test("close() ends hung connections: the client sees the cut, no timer is left", async () => {
    const own = await startFakeAnthropic();
    const ownClient = makeClient(own);
    own.enqueue(hang({ afterFrames: 3 }), hang({ beforeHeaders: true }), textReply("slow", { delayMs: 60_000 }));
    const results: Array<Promise<string>> = [];
    for (let i = 0; i < 3; i++) {
      // one at a time, so each request takes the scenario meant for it
      const call = i === 1 ? ownClient.messages.create(params()) : ownClient.messages.stream(params()).finalMessage();
      results.push(call.then(() => "resolved", (e: any) => e?.constructor?.name as string));
      while (own.requests.length <= i) await new Promise((r) => setTimeout(r, 2));
    }
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await own.close();
    assert.ok(Date.now() - started < 500, "close() does not wait for hung clients");
    assert.deepEqual(
      own.requests.map((r) => r.end?.how),
      ["server_closed", "server_closed", "server_closed"],
    );
    const outcomes = await Promise.all(results);
    assert.deepEqual(outcomes, ["AnthropicError", "APIConnectionError", "AnthropicError"]);
  });
});

describe("recorded requests", () => {
  test("method, path, headers and the parsed JSON body", async () => {
    const before = server.requests.length;
    const tools: Anthropic.Tool[] = [
      { name: "read", description: "read a file", input_schema: { type: "object", properties: { path: { type: "string" } } }, cache_control: { type: "ephemeral" } },
    ];
    await client.messages
      .stream({
        model: MODEL,
        max_tokens: 1234,
        system: [{ type: "text", text: "You are pith.", cache_control: { type: "ephemeral" } }],
        messages: [
          { role: "user", content: "read it" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "text", cache_control: { type: "ephemeral" } }] },
        ],
        tools,
        thinking: { type: "enabled", budget_tokens: 1024 },
      })
      .finalMessage();
    assert.equal(server.requests.length, before + 1);
    const r = server.requests.at(-1)!;
    assert.equal(r.method, "POST");
    assert.equal(r.path, "/v1/messages");
    // SDK 1.12 sends the apiKey as `authorization: Bearer <key>` (no x-api-key header) and
    // anthropic-version 2026-10-21 (not 2023-06-01)
    assert.equal(r.headers.authorization, "Bearer test-key");
    assert.equal(r.headers["x-api-key"], undefined);
    assert.match(String(r.headers["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(r.headers["x-stainless-helper-method"], "stream");
    assert.match(String(r.headers["content-type"]), /application\/json/);
    assert.ok(typeof r.time === "number" && r.time <= Date.now());
    assert.equal(r.body.stream, true);
    assert.equal(r.body.model, MODEL);
    assert.equal(r.body.max_tokens, 1234);
    assert.deepEqual(r.body.system, [{ type: "text", text: "You are pith.", cache_control: { type: "ephemeral" } }]);
    assert.deepEqual(r.body.tools, tools);
    assert.equal(r.body.messages.length, 3);
    assert.deepEqual(r.body.messages[2].content[0].cache_control, { type: "ephemeral" });
    assert.deepEqual(r.body.thinking, { type: "enabled", budget_tokens: 1024 });
    assert.equal(JSON.parse(r.rawBody).max_tokens, 1234);
    assert.equal(r.scenario?.kind, "reply");
    assert.equal((await server.whenEnded(server.requests.length - 1)).how, "completed");
  });

  test("count_tokens: an estimate from the body length, or scripted", async () => {
    const body = { model: MODEL, messages: [{ role: "user" as const, content: "x".repeat(400) }] };
    const estimated = await client.messages.countTokens(body);
    const r = server.requests.at(-1)!;
    assert.equal(r.path, "/v1/messages/count_tokens");
    assert.equal(estimated.input_tokens, Math.ceil(r.rawBody.length / 4));
    server.enqueueCountTokens(219898, promptTooLong());
    assert.equal((await client.messages.countTokens(body)).input_tokens, 219898);
    const e = await rejection(client.messages.countTokens(body));
    assert.ok(e instanceof Anthropic.BadRequestError);
    assert.equal(server.remaining(), 0, "count_tokens does not consume message scenarios");
  });
});
