// The Responses API provider with the real `openai` SDK against the fake server on 127.0.0.1,
// which streams typed events with `event:` lines as OpenAI does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import { authError, cutConnection, hang, overflowError, rateLimited, reasoningReply, reply, startFakeOpenAI, streamError, textReply, type FakeOpenAI } from "../support/fake-openai.js";
import { result, user } from "../support/messages.js";
import { collect, deltas, testModel } from "../support/stream-collect.js";

type After = { after(fn: () => Promise<void> | void): void };

const gpt = testModel({ id: "gpt-fake", provider: "openai", thinking: "adaptive" });

async function withServer(t: After): Promise<{ server: FakeOpenAI; provider: OpenAIResponsesProvider }> {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  return { server, provider: new OpenAIResponsesProvider({ name: "openai", apiKey: "test-key", baseURL: server.baseURL, idleTimeoutMs: 2000 }) };
}

test("a streamed text reply: deltas, the message id and phase kept as its signature, usage with cached tokens", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(textReply("Hello from the Responses API.", { chunkSize: 5, usage: { input: 3000, output: 12, cached: 2048 }, phase: "final_answer" }));
  const { events, final } = await collect(provider, { messages: [user("hi")] }, testModel({ id: "gpt-fake" }));
  assert.equal(deltas(events, "text_delta").join(""), "Hello from the Responses API.");
  assert.ok(deltas(events, "text_delta").length >= 6, "streamed in pieces");
  assert.deepEqual(final.content, [{ type: "text", text: "Hello from the Responses API.", textSignature: JSON.stringify({ v: 1, id: "msg_fake1_0", phase: "final_answer" }) }]);
  assert.equal(final.stopReason, "stop");
  assert.equal(final.api, "openai-responses");
  assert.equal(final.provider, "openai");
  assert.deepEqual([final.usage.input, final.usage.output, final.usage.cacheRead], [952, 12, 2048]);
  const body = server.requests[0].body;
  assert.equal(server.requests[0].path, "/v1/responses");
  assert.equal(body.store, false);
  assert.equal(body.stream, true);
  assert.equal(body.instructions, "sys");
  assert.equal(body.max_output_tokens, 1024);
  assert.deepEqual(body.input, [{ role: "user", content: "hi" }]);
  assert.equal(body.reasoning, undefined, "a model that does not reason gets no reasoning parameters");
  assert.equal(body.include, undefined);
});

test("reasoning: the summary streams as thinking, the encrypted item is kept and goes back with the ids that pair it", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    reply([
      { type: "reasoning", text: "I should read the file.", encrypted: "gAAAA-secret" },
      { type: "tool_call", name: "read", arguments: { path: "a.ts" }, id: "call_X1" },
    ]),
  );
  const first = await collect(provider, { messages: [user("read a.ts")], thinkingLevel: "medium" }, gpt);
  assert.equal(first.final.stopReason, "toolUse");
  assert.equal(deltas(first.events, "thinking_delta").join(""), "I should read the file.");
  const [thinking, toolCall] = first.final.content;
  assert.ok(thinking.type === "thinking" && thinking.thinking === "I should read the file.", "thinking block");
  assert.deepEqual(JSON.parse(thinking.thinkingSignature!), { id: "rs_fake1_0", type: "reasoning", summary: [{ type: "summary_text", text: "I should read the file." }], encrypted_content: "gAAAA-secret" });
  assert.deepEqual(toolCall, { type: "toolCall", id: "call_X1|fc_fake1_1", name: "read", arguments: { path: "a.ts" } });
  const req = server.requests[0].body;
  assert.deepEqual(req.reasoning, { effort: "medium", summary: "auto" });
  assert.deepEqual(req.include, ["reasoning.encrypted_content"]);

  server.enqueue(textReply("It says hi."));
  await collect(provider, { messages: [user("read a.ts"), first.final, result("call_X1|fc_fake1_1", "read", "hi")] }, gpt);
  assert.deepEqual(server.requests[1].body.input, [
    { role: "user", content: "read a.ts" },
    { id: "rs_fake1_0", type: "reasoning", summary: [{ type: "summary_text", text: "I should read the file." }], encrypted_content: "gAAAA-secret" },
    { type: "function_call", call_id: "call_X1", name: "read", arguments: '{"path":"a.ts"}', id: "fc_fake1_1" },
    { type: "function_call_output", call_id: "call_X1", output: "hi" },
  ]);
  // another model of the same provider: the encrypted reasoning is not its own
  server.enqueue(textReply("ok"));
  await collect(provider, { messages: [user("read a.ts"), first.final, result("call_X1|fc_fake1_1", "read", "hi")] }, { ...gpt, id: "gpt-other" });
  assert.deepEqual(server.requests[2].body.input.slice(1), [
    { type: "function_call", call_id: "call_X1", name: "read", arguments: '{"path":"a.ts"}' },
    { type: "function_call_output", call_id: "call_X1", output: "hi" },
  ]);
});

test("two tool calls in one response, arguments split across events", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    reply(
      [
        { type: "text", text: "Looking." },
        { type: "tool_call", name: "read", arguments: { path: "a.ts" } },
        { type: "tool_call", name: "grep", arguments: { pattern: "x ✓" } },
      ],
      { argsChunkSize: 3 },
    ),
  );
  const { events, final } = await collect(provider, { messages: [user("go")] });
  assert.equal(final.stopReason, "toolUse");
  assert.deepEqual(
    final.content.map((b) => (b.type === "toolCall" ? [b.id, b.name, b.arguments] : b.type)),
    ["text", ["call_fake1_1|fc_fake1_1", "read", { path: "a.ts" }], ["call_fake1_2|fc_fake1_2", "grep", { pattern: "x ✓" }]],
  );
  assert.ok(deltas(events, "toolcall_delta").length > 8, "arguments streamed in pieces");
  assert.equal(events.filter((e) => e.type === "toolcall_end").length, 2);
});

test("max_output_tokens ends the response incomplete: stop reason length; reasoning with no summaries requested", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const provider = new OpenAIResponsesProvider({ apiKey: "k", baseURL: server.baseURL, reasoningSummary: null });
  server.enqueue(reasoningReply("hmm", "cut sh", { finish: "length", usage: { input: 10, output: 50 } }));
  const { final } = await collect(provider, { messages: [user("hi")] }, gpt);
  assert.equal(final.stopReason, "length");
  assert.equal(final.usage.output, 50);
  assert.deepEqual(server.requests[0].body.reasoning, {}, "no summary asked for, no effort for an unset level");
});

test("errors: event: error mid-stream, response.failed, overflow before and inside the stream, 429, 401, a cut stream, abort", async (t) => {
  const { server, provider } = await withServer(t);
  const cases: [unknown, string, (e: NonNullable<Awaited<ReturnType<typeof collect>>["error"]>) => void][] = [
    [streamError(), "transient", (e) => (assert.equal(e.status, undefined), assert.equal(e.type, "server_error"))],
    [streamError({ message: "The model produced invalid content.", code: "invalid_prompt" }, { style: "failed" }), "fatal", (e) => assert.equal(e.type, "invalid_prompt")],
    [streamError({ message: "Your input exceeds the context window of this model. Please adjust your input and try again.", code: "context_length_exceeded" }, { style: "failed" }), "overflow", () => undefined],
    [streamError({ message: "Your input exceeds the context window of this model. Please adjust your input and try again.", code: "context_length_exceeded" }), "overflow", () => undefined],
    [overflowError("openai-responses", 0, 0), "overflow", (e) => assert.equal(e.status, 400)],
    [rateLimited(3), "transient", (e) => assert.equal(e.retryAfterMs, 3000)],
    [authError(), "auth", () => undefined],
    [cutConnection({ afterFrames: 4 }), "transient", () => undefined],
    [cutConnection({ afterFrames: 4, clean: true }), "transient", (e) => assert.match(e.message, /ended before the response was complete/)],
  ];
  for (const [scenario, errorClass, check] of cases) {
    server.enqueue(scenario as never);
    const { final, error } = await collect(provider, { messages: [user("hi")] });
    assert.ok(error, `${JSON.stringify(scenario).slice(0, 80)}: an error`);
    assert.equal(error.errorClass, errorClass, `${JSON.stringify(scenario).slice(0, 80)}: ${error.message}`);
    assert.equal(final.stopReason, "error");
    check(error);
  }
  server.enqueue(hang({ afterFrames: 5 }));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  const aborted = await collect(provider, { messages: [user("hi")], signal: ac.signal });
  assert.equal(aborted.error?.errorClass, "aborted");
  assert.equal(aborted.final.stopReason, "aborted");
});
