// The Anthropic provider with the real SDK against the fake Messages API on 127.0.0.1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnthropicProvider } from "../../src/llm/anthropic.js";
import { BUILTIN_MODELS, ModelRegistry } from "../../src/llm/models.js";
import type { ModelInfo, StreamEvent, StreamRequest } from "../../src/llm/types.js";
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";
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
} from "../support/fake-anthropic.js";
import { assistant, call, result, user } from "../support/messages.js";

const registry = new ModelRegistry();
const sonnet = registry.resolve("claude-sonnet-5-5");
const budgetModel = registry.resolve("claude-haiku-4-5");

async function withServer(t: { after(fn: () => Promise<void> | void): void }): Promise<{ server: FakeAnthropic; provider: AnthropicProvider }> {
  const server = await startFakeAnthropic();
  t.after(() => server.close());
  return { server, provider: new AnthropicProvider({ apiKey: "test-key", baseURL: server.url, idleTimeoutMs: 2000 }) };
}

async function collect(provider: AnthropicProvider, req: Partial<StreamRequest> & { messages: AgentMessage[] }, model: ModelInfo = sonnet): Promise<{ events: StreamEvent[]; final: AssistantMessage; error?: Extract<StreamEvent, { type: "error" }>["error"] }> {
  const events: StreamEvent[] = [];
  for await (const ev of provider.stream({ model, systemPrompt: "sys", tools: [], maxTokens: 4096, signal: new AbortController().signal, ...req })) events.push(ev);
  const last = events.at(-1)!;
  assert.ok(last.type === "done" || last.type === "error", "the stream ends with done or error");
  return { events, final: last.message, error: last.type === "error" ? last.error : undefined };
}

test("a streamed text reply: deltas, final message, usage with cache figures and cost", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(textReply("Hello there, friend.", { usage: { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 5000, cache_creation_input_tokens: 200 }, chunkSize: 4 }));
  const { events, final } = await collect(provider, { messages: [user("hi")] });
  assert.equal(events[0].type, "start");
  const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.delta : ""));
  assert.ok(deltas.length >= 4);
  assert.equal(deltas.join(""), "Hello there, friend.");
  assert.equal(final.stopReason, "stop");
  assert.deepEqual(final.content, [{ type: "text", text: "Hello there, friend." }]);
  assert.equal(final.provider, "anthropic");
  assert.equal(final.model, "claude-sonnet-5-5");
  assert.equal(final.usage.input, 100);
  assert.equal(final.usage.output, 7);
  assert.equal(final.usage.cacheRead, 5000);
  assert.equal(final.usage.cacheWrite, 200);
  assert.equal(final.usage.totalTokens, 5307);
  assert.ok(Math.abs(final.usage.cost.total - (100 * 2 + 7 * 10 + 5000 * 0.2 + 200 * 2.5) / 1e6) < 1e-12);
});

test("tool calls: arguments assembled from streamed JSON, stop reason toolUse", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(toolUseReply("edit", { path: "src/a.ts", oldText: "x = 1", newText: "x = 2\n// ünïcode ✓" }, { text: "Editing.", chunkSize: 3 }));
  const { events, final } = await collect(provider, { messages: [user("fix it")] });
  assert.equal(final.stopReason, "toolUse");
  const callBlock = final.content.find((b) => b.type === "toolCall");
  assert.ok(callBlock && callBlock.type === "toolCall");
  assert.deepEqual(callBlock.arguments, { path: "src/a.ts", oldText: "x = 1", newText: "x = 2\n// ünïcode ✓" });
  assert.ok(events.some((e) => e.type === "toolcall_start" && e.name === "edit"));
  assert.ok(events.filter((e) => e.type === "toolcall_delta").length > 3);
  assert.ok(events.some((e) => e.type === "toolcall_end" && e.toolCall.id === callBlock.id));
});

test("thinking keeps its signature and goes back to the API with it", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(thinkingReply("Let me think about this.", "sig-abc123", "The answer is 4."), textReply("ok"));
  const first = await collect(provider, { messages: [user("2+2?")], thinkingLevel: "high" });
  assert.deepEqual(first.final.content[0], { type: "thinking", thinking: "Let me think about this.", thinkingSignature: "sig-abc123" });
  await collect(provider, { messages: [user("2+2?"), first.final, user("and 3+3?")], thinkingLevel: "high" });
  const sent = server.requests[1].body;
  assert.deepEqual(sent.messages[1].content[0], { type: "thinking", thinking: "Let me think about this.", signature: "sig-abc123" });
  // adaptive models take an effort; budget models a token budget below max_tokens
  assert.deepEqual(server.requests[0].body.thinking, { type: "adaptive" });
  assert.deepEqual(server.requests[0].body.output_config, { effort: "high" });
  server.enqueue(textReply("ok"));
  await collect(provider, { messages: [user("x")], thinkingLevel: "medium" }, budgetModel);
  assert.deepEqual(server.requests[2].body.thinking, { type: "enabled", budget_tokens: 3072 });
});

test("the request: cached system prompt and tools, paired tool results, summaries and images as user content", async (t) => {
  const { server, provider } = await withServer(t);
  const messages: AgentMessage[] = [
    { role: "compactionSummary", summary: "## Goal\nship it", tokensBefore: 9000, timestamp: 1 },
    user("look at this"),
    { role: "user", content: [{ type: "text", text: "and this image" }, { type: "image", data: "aGVsbG8=", mimeType: "image/png" }], timestamp: 2 },
    assistant("", [call("call|1", "read", { path: "a.ts" }), call("call_2", "read", { path: "b.ts" })]),
    result("call|1", "read", "A"),
    result("call_2", "read", "B", true),
    { role: "bashExecution", command: "ls", output: "a.ts", exitCode: 1, cancelled: false, truncated: false, timestamp: 3 },
    { role: "bashExecution", command: "secret", output: "x", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 4 },
    { ...assistant(""), stopReason: "aborted" },
  ];
  await collect(provider, { messages, tools: [{ name: "read", description: "reads", inputSchema: { type: "object", properties: { path: { type: "string" } } } }] });
  const body = server.requests[0].body;
  assert.equal(body.model, "claude-sonnet-5-5");
  assert.equal(body.max_tokens, 4096);
  assert.equal(body.stream, true);
  assert.deepEqual(body.system, [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
  assert.deepEqual(body.tools[0].cache_control, { type: "ephemeral" });
  assert.equal(server.requests[0].headers.authorization, "Bearer test-key");
  const m = body.messages;
  assert.deepEqual(m.map((x: { role: string }) => x.role), ["user", "assistant", "user"]);
  // summary, then the two user messages merged into one turn (image included)
  assert.match(m[0].content[0].text, /<summary>\n## Goal\nship it\n<\/summary>/);
  assert.equal(m[0].content[1].text, "look at this");
  assert.deepEqual(m[0].content[3].source, { type: "base64", media_type: "image/png", data: "aGVsbG8=" });
  assert.deepEqual(m[0].content[3].cache_control, { type: "ephemeral" }, "the turn before the latest is a breakpoint too");
  // tool ids the API would refuse are made safe, the same way on both sides
  assert.deepEqual(m[1].content.map((b: { id: string }) => b.id), ["call_1", "call_2"]);
  assert.deepEqual(m[2].content.slice(0, 2).map((b: { tool_use_id: string; is_error?: boolean }) => [b.tool_use_id, b.is_error ?? false]), [["call_1", false], ["call_2", true]]);
  assert.match(m[2].content[2].text, /The user ran `ls`[\s\S]*Exit code: 1/);
  assert.equal(m[2].content.length, 3, "the excluded bash run and the empty aborted reply are left out");
  // the latest user turn is a cache breakpoint
  assert.deepEqual(m[2].content.at(-1).cache_control, { type: "ephemeral" });
});

test("a history cut short by a crash is repaired at the boundary, and the repair is logged", async (t) => {
  const { server, provider } = await withServer(t);
  const messages: AgentMessage[] = [user("a"), assistant("", [call("c1", "bash", { command: "x" })]), user("b"), result("ghost", "bash", "orphan")];
  await collect(provider, { messages });
  const m = server.requests[0].body.messages;
  assert.equal(m[2].content[0].type, "tool_result");
  assert.equal(m[2].content[0].tool_use_id, "c1");
  assert.equal(m[2].content[0].is_error, true);
  assert.ok(!JSON.stringify(m).includes("ghost"));
});

test("every error class, from real SDK errors", async (t) => {
  const { server, provider } = await withServer(t);
  const cases: [unknown, string, (e: NonNullable<Awaited<ReturnType<typeof collect>>["error"]>) => void][] = [
    [promptTooLong(), "overflow", (e) => assert.match(e.message, /prompt is too long: 219898 tokens > 200000 maximum/)],
    [overloaded({ retryAfter: 3 }), "transient", (e) => (assert.equal(e.status, 529), assert.equal(e.retryAfterMs, 3000))],
    [rateLimited({ retryAfter: 7 }), "transient", (e) => (assert.equal(e.status, 429), assert.equal(e.retryAfterMs, 7000))],
    [serverError(), "transient", (e) => assert.equal(e.status, 500)],
    [streamError(), "transient", (e) => (assert.equal(e.status, undefined), assert.equal(e.type, "overloaded_error"))],
    [cutConnection({ afterFrames: 3 }), "transient", (e) => assert.match(e.message, /connection lost/)],
    [cutConnection({ beforeHeaders: true }), "transient", () => undefined],
    [authError(), "auth", (e) => assert.equal(e.status, 401)],
    [permissionError(), "auth", (e) => assert.equal(e.status, 403)],
    [badRequest(), "fatal", (e) => assert.equal(e.status, 400)],
    [reply([{ type: "text", text: "partial" }], { stopReason: "model_context_window_exceeded" }), "overflow", () => undefined],
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

test("abort during a hang ends the stream at once as aborted; a silent stream times out as transient", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(hang({ afterFrames: 3 }));
  const ac = new AbortController();
  const started = Date.now();
  setTimeout(() => ac.abort(), 100);
  const { final, error } = await collect(provider, { messages: [user("hi")], signal: ac.signal });
  assert.equal(error?.errorClass, "aborted");
  assert.equal(final.stopReason, "aborted");
  assert.ok(Date.now() - started < 1500);
  assert.equal((await server.whenEnded(0)).how, "client_closed");

  server.enqueue(hang({ afterFrames: 2 }));
  const idle = new AnthropicProvider({ apiKey: "k", baseURL: server.url, idleTimeoutMs: 200 });
  const timedOut = await collect(idle, { messages: [user("hi")] });
  assert.equal(timedOut.error?.errorClass, "transient");
  assert.match(timedOut.error!.message, /no data from the API/);
});

test("the model table knows current models and takes overrides for compatible endpoints", () => {
  assert.ok(BUILTIN_MODELS.length >= 6);
  for (const m of BUILTIN_MODELS) assert.ok(m.contextWindow >= 200_000 && m.maxOutputTokens > 0 && m.pricing.input > 0, m.id);
  const r = new ModelRegistry([{ id: "local-llm", contextWindow: 32_000, maxOutputTokens: 4096 }, { id: "claude-sonnet-5-5", contextWindow: 500_000 }]);
  assert.equal(r.resolve("local-llm").contextWindow, 32_000);
  assert.equal(r.resolve("claude-sonnet-5-5").contextWindow, 500_000);
  assert.equal(r.resolve("claude-sonnet-5-5").pricing.output, 10, "an override keeps the other fields");
  assert.equal(r.resolve("unknown-model").provider, "anthropic");
});
