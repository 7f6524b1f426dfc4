// The Chat Completions provider with the real `openai` SDK against the fake OpenAI-compatible
// server on 127.0.0.1, streaming the way each server streams.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OpenAICompletionsProvider, type OpenAICompletionsOptions } from "../../src/llm/openai-completions.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { authError, cutConnection, hang, overflowError, rateLimited, reply, serverError, startFakeOpenAI, streamError, textReply, toolCallReply, type FakeOpenAI } from "../support/fake-openai.js";
import { call, result, user } from "../support/messages.js";
import { collect, deltas, testModel } from "../support/stream-collect.js";

type After = { after(fn: () => Promise<void> | void): void };

async function withServer(t: After, options: Partial<OpenAICompletionsOptions> = {}): Promise<{ server: FakeOpenAI; provider: OpenAICompletionsProvider }> {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  return { server, provider: new OpenAICompletionsProvider({ name: "local", apiKey: "test-key", baseURL: server.baseURL, idleTimeoutMs: 2000, ...options }) };
}

test("a streamed text reply: deltas, the final message, usage from the last chunk with cached tokens as cacheRead, cost", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(textReply("Hello there, friend. ✓", { chunkSize: 3, usage: { input: 1200, output: 9, cached: 1000 } }));
  const { events, final } = await collect(provider, { messages: [user("hi")] });
  assert.equal(events[0].type, "start");
  assert.ok(deltas(events, "text_delta").length >= 7, "streamed in pieces");
  assert.equal(deltas(events, "text_delta").join(""), "Hello there, friend. ✓");
  assert.deepEqual(final.content, [{ type: "text", text: "Hello there, friend. ✓" }]);
  assert.equal(final.stopReason, "stop");
  assert.equal(final.api, "openai-completions");
  assert.equal(final.provider, "local", "stored under the configured provider's name");
  assert.equal(final.model, "fake-model");
  assert.deepEqual([final.usage.input, final.usage.output, final.usage.cacheRead, final.usage.cacheWrite, final.usage.totalTokens], [200, 9, 1000, 0, 1209]);
  assert.ok(Math.abs(final.usage.cost.total - (200 * 1 + 9 * 2 + 1000 * 0.1) / 1e6) < 1e-12, `cost ${final.usage.cost.total}`);
  const req = server.requests[0];
  assert.equal(req.path, "/v1/chat/completions");
  assert.equal(req.headers.authorization, "Bearer test-key");
  assert.equal(req.body.stream, true);
  assert.deepEqual(req.body.stream_options, { include_usage: true });
  assert.equal(req.body.max_tokens, 1024, "a compatible server gets max_tokens");
  assert.equal(req.body.max_completion_tokens, undefined);
  assert.deepEqual(req.body.messages, [
    { role: "system", content: "sys" },
    { role: "user", content: "hi" },
  ]);
  assert.equal(req.body.reasoning_effort, undefined);
});

test("a tool call whose arguments arrive split across chunks", async (t) => {
  const { server, provider } = await withServer(t);
  const args = { path: "src/a.ts", oldText: "x = 1", newText: "x = 2\n// ünïcode ✓" };
  server.enqueue(toolCallReply("edit", args, { text: "Editing.", argsChunkSize: 3, id: "call_abc" }));
  const { events, final } = await collect(provider, { messages: [user("fix it")], tools: [{ name: "edit", description: "edits", inputSchema: { type: "object" } }] });
  assert.equal(final.stopReason, "toolUse");
  assert.deepEqual(final.content, [
    { type: "text", text: "Editing." },
    { type: "toolCall", id: "call_abc", name: "edit", arguments: args },
  ]);
  assert.ok(deltas(events, "toolcall_delta").length > 10, "arguments streamed in pieces");
  assert.equal(deltas(events, "toolcall_delta").join(""), JSON.stringify(args));
  const start = events.find((e) => e.type === "toolcall_start");
  assert.ok(start?.type === "toolcall_start" && start.id === "call_abc" && start.name === "edit" && start.contentIndex === 1, JSON.stringify(start));
  const end = events.find((e) => e.type === "toolcall_end");
  assert.ok(end?.type === "toolcall_end" && end.toolCall.id === "call_abc", "toolcall_end");
  assert.deepEqual(server.requests[0].body.tools, [{ type: "function", function: { name: "edit", description: "edits", parameters: { type: "object", properties: {} } } }], "the top level always has properties (tool-schema.ts)");
});

test("two parallel tool calls interleaved by index come apart into two calls", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    reply(
      [
        { type: "tool_call", name: "read", arguments: { path: "a.ts" }, id: "call_1" },
        { type: "tool_call", name: "grep", arguments: { pattern: "TODO", path: "src" }, id: "call_2" },
      ],
      { interleaveToolCalls: true, argsChunkSize: 4 },
    ),
  );
  const { events, final } = await collect(provider, { messages: [user("look")] });
  assert.equal(final.stopReason, "toolUse");
  assert.deepEqual(final.content, [
    { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.ts" } },
    { type: "toolCall", id: "call_2", name: "grep", arguments: { pattern: "TODO", path: "src" } },
  ]);
  // the deltas really alternated
  const order = events.flatMap((e) => (e.type === "toolcall_delta" ? [e.contentIndex] : []));
  assert.ok(order.indexOf(1) < order.lastIndexOf(0), `interleaved: ${order.join(",")}`);
  assert.deepEqual(
    events.flatMap((e) => (e.type === "toolcall_end" ? [e.toolCall.id] : [])),
    ["call_1", "call_2"],
  );
});

test("reasoning in either field becomes thinking (its signature names the field: no opaque token), and goes back in the field it came in", async (t) => {
  const { server, provider } = await withServer(t);
  for (const field of ["reasoning_content", "reasoning"] as const) {
    server.enqueue(reply([{ type: "reasoning", text: "Let me think." }, { type: "text", text: "4" }, { type: "tool_call", name: "calc", arguments: { e: "2+2" }, id: "call_r" }], { reasoningField: field }));
    const first = await collect(provider, { messages: [user("2+2?")] });
    assert.deepEqual(first.final.content[0], { type: "thinking", thinking: "Let me think.", thinkingSignature: field });
    assert.equal(deltas(first.events, "thinking_delta").join(""), "Let me think.");
    // DeepSeek refuses a tool-calling history without its reasoning_content; Groq refuses the other field
    server.enqueue(textReply("done"));
    await collect(provider, { messages: [user("2+2?"), first.final, result("call_r", "calc", "4"), user("thanks")] });
    const sent = server.requests.at(-1)!.body.messages[2];
    assert.equal(sent.role, "assistant");
    assert.equal(sent[field], "Let me think.");
    assert.equal(sent[field === "reasoning" ? "reasoning_content" : "reasoning"], undefined);
    // another provider's reply keeps its text and calls but not its reasoning
    server.enqueue(textReply("done"));
    const other = new OpenAICompletionsProvider({ name: "other", apiKey: "k", baseURL: server.baseURL });
    await collect(other, { messages: [user("2+2?"), first.final, result("call_r", "calc", "4"), user("thanks")] });
    const foreign = server.requests.at(-1)!.body.messages[2];
    assert.equal(foreign[field], undefined);
    assert.equal(foreign.content, "4");
  }
});

test("servers' quirks: usage on the finish chunk (llama.cpp), DeepSeek's cache fields, keep-alive comments, whole tool calls with finish stop, no [DONE]", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(textReply("llama", { usageIn: "finish", usage: { input: 50, output: 3, cached: 20 } }));
  const llama = await collect(provider, { messages: [user("hi")] });
  assert.deepEqual([llama.final.usage.input, llama.final.usage.output, llama.final.usage.cacheRead], [30, 3, 20]);
  server.enqueue(textReply("deep", { cacheStyle: "deepseek", usage: { input: 500, output: 4, cached: 384 }, keepAlive: 3, done: false }));
  const deep = await collect(provider, { messages: [user("hi")] });
  assert.equal(deep.final.stopReason, "stop");
  assert.deepEqual([deep.final.usage.input, deep.final.usage.cacheRead], [116, 384]);
  server.enqueue(reply([{ type: "tool_call", name: "ls", arguments: { path: "." } }], { toolCallsWhole: true, finish: "stop" }));
  const whole = await collect(provider, { messages: [user("hi")] });
  assert.equal(whole.final.stopReason, "toolUse", "a server that says stop after tool calls still asked for them");
  assert.deepEqual((whole.final.content[0] as { arguments: unknown }).arguments, { path: "." });
  // deltas without an index: the id tells the calls apart, and pieces without one continue the last call
  server.enqueue(reply([{ type: "tool_call", name: "ls", arguments: { path: "a" }, id: "g1" }, { type: "tool_call", name: "ls", arguments: { path: "b" }, id: "g2" }], { omitToolIndex: true, argsChunkSize: 3 }));
  const noIndex = await collect(provider, { messages: [user("hi")] });
  assert.deepEqual(noIndex.final.content.map((b) => (b.type === "toolCall" ? [b.id, b.arguments] : b.type)), [["g1", { path: "a" }], ["g2", { path: "b" }]]);
});

test("finish reasons: length, content_filter; a stream that ends without one is an error", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(textReply("cut sh", { finish: "length" }));
  assert.equal((await collect(provider, { messages: [user("hi")] })).final.stopReason, "length");
  server.enqueue(textReply("no", { finish: "content_filter" }));
  const filtered = await collect(provider, { messages: [user("hi")] });
  assert.equal(filtered.error?.errorClass, "fatal");
  assert.match(filtered.error!.message, /content filter/);
  server.enqueue(cutConnection({ reply: { content: [{ type: "text", text: "partial" }] } }));
  const cut = await collect(provider, { messages: [user("hi")] });
  assert.equal(cut.error?.errorClass, "transient");
  assert.equal(cut.final.stopReason, "error");
  // a server that just stops: no finish_reason, no closing usage
  server.enqueue(cutConnection({ reply: { content: [{ type: "text", text: "partial" }] }, clean: true }));
  const stopped = await collect(provider, { messages: [user("hi")] });
  assert.equal(stopped.error?.errorClass, "transient");
  assert.match(stopped.error!.message, /no finish_reason/);
  assert.deepEqual(stopped.final.content, [{ type: "text", text: "partial" }]);
});

test("abort mid-stream ends it at once as an aborted message; a silent stream times out as transient", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(hang({ reply: { content: [{ type: "text", text: "some words before the pause" }], chunkSize: 4 }, afterFrames: 4 }));
  const ac = new AbortController();
  const seen: string[] = [];
  const events = [];
  for await (const ev of provider.stream({ model: testModel(), systemPrompt: "", tools: [], maxTokens: 100, messages: [user("hi")], signal: ac.signal })) {
    events.push(ev);
    if (ev.type === "text_delta") {
      seen.push(ev.delta);
      if (seen.length === 2) ac.abort();
    }
  }
  const last = events.at(-1)!;
  assert.ok(last.type === "error", last.type);
  assert.equal(last.error.errorClass, "aborted");
  assert.equal(last.message.stopReason, "aborted");
  assert.deepEqual(last.message.content, [{ type: "text", text: "some wor" }], "what arrived before the abort is kept");
  assert.equal((await server.whenEnded(0)).how, "client_closed");

  server.enqueue(hang({ afterFrames: 2 }));
  const idle = new OpenAICompletionsProvider({ apiKey: "k", baseURL: server.baseURL, idleTimeoutMs: 200 });
  const timedOut = await collect(idle, { messages: [user("hi")] });
  assert.equal(timedOut.error?.errorClass, "transient");
  assert.match(timedOut.error!.message, /no data from the API/);
});

test("errors: mid-stream error chunk, 429 with retry-after, 401, 500, a cut before any byte, an overflow body", async (t) => {
  const { server, provider } = await withServer(t);
  const cases: [unknown, string, (e: NonNullable<Awaited<ReturnType<typeof collect>>["error"]>) => void][] = [
    [streamError(), "transient", (e) => (assert.equal(e.status, undefined), assert.equal(e.type, "server_error"))],
    [rateLimited(7), "transient", (e) => (assert.equal(e.status, 429), assert.equal(e.retryAfterMs, 7000))],
    [authError(), "auth", (e) => assert.equal(e.status, 401)],
    [serverError(), "transient", (e) => assert.equal(e.status, 500)],
    [cutConnection({ beforeHeaders: true }), "transient", (e) => assert.match(e.message, /connection/)],
    [overflowError("vllm", 19591, 16384, 10000), "overflow", (e) => assert.deepEqual(e.overflow, { tokens: 19591, maximum: 16384 })],
  ];
  for (const [scenario, errorClass, check] of cases) {
    server.enqueue(scenario as never);
    const { final, error } = await collect(provider, { messages: [user("hi")] });
    assert.ok(error, `${JSON.stringify(scenario).slice(0, 80)}: an error`);
    assert.equal(error.errorClass, errorClass, `${JSON.stringify(scenario).slice(0, 80)}: ${error.message}`);
    assert.equal(final.stopReason, "error");
    assert.equal(final.errorMessage, error.message);
    check(error);
  }
});

test("the request: max_completion_tokens for OpenAI's models, reasoning_effort only for models that reason, history with tool results and images", async (t) => {
  const { server, provider } = await withServer(t, { maxTokensField: "max_completion_tokens" });
  const messages: AgentMessage[] = [
    { role: "compactionSummary", summary: "## Goal\nship it", tokensBefore: 9000, timestamp: 1 },
    user("look at this"),
    { role: "user", content: [{ type: "text", text: "and this image" }, { type: "image", data: "aGVsbG8=", mimeType: "image/png" }], timestamp: 2 },
    { role: "assistant", content: [call("call_1", "read", { path: "a.png" })], api: "openai-completions", provider: "local", model: "fake-model", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 3 },
    { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "image", data: "cG5n", mimeType: "image/png" }], isError: false, timestamp: 4 },
  ];
  await collect(provider, { messages, thinkingLevel: "high" }, testModel({ thinking: "adaptive" }));
  const body = server.requests[0].body;
  assert.equal(body.max_completion_tokens, 1024);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.reasoning_effort, "high");
  assert.deepEqual(body.messages.map((m: { role: string }) => m.role), ["system", "user", "assistant", "tool", "user"]);
  assert.match(body.messages[1].content[0].text, /<summary>\n## Goal\nship it\n<\/summary>/);
  assert.deepEqual(body.messages[1].content.at(-1), { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } });
  assert.equal(body.messages[3].content, "(the image follows)");
  assert.deepEqual(body.messages[4].content[1], { type: "image_url", image_url: { url: "data:image/png;base64,cG5n" } });
  await collect(provider, { messages: [user("x")], thinkingLevel: "high" }, testModel({ thinking: "none" }));
  assert.equal(server.requests[1].body.reasoning_effort, undefined, "a model that does not reason refuses the parameter");
});

test("nothing comes from the environment: no OPENAI_API_KEY, OPENAI_BASE_URL or OPENAI_ORG_ID reaches a configured server; its own headers do", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL, org: process.env.OPENAI_ORG_ID };
  process.env.OPENAI_API_KEY = "sk-users-real-key";
  process.env.OPENAI_BASE_URL = "http://127.0.0.1:1/v1";
  process.env.OPENAI_ORG_ID = "org-users-own";
  t.after(() => {
    for (const [name, value] of [["OPENAI_API_KEY", saved.key], ["OPENAI_BASE_URL", saved.url], ["OPENAI_ORG_ID", saved.org]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  const provider = new OpenAICompletionsProvider({ name: "local", baseURL: server.baseURL, headers: { "X-Title": "pith" } });
  const { final } = await collect(provider, { messages: [user("hi")] });
  assert.equal(final.stopReason, "stop");
  const headers = server.requests[0].headers;
  assert.equal(headers["x-title"], "pith", "the provider's configured headers are sent");
  assert.equal(headers.authorization, "Bearer no-key", "the user's OpenAI key went to another server");
  assert.equal(headers["openai-organization"], undefined);
});
