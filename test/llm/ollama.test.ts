// The Ollama provider against a fake Ollama on 127.0.0.1 that streams real NDJSON.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { OllamaProvider } from "../../src/llm/ollama.js";
import type { ModelInfo, StreamEvent, StreamRequest } from "../../src/llm/types.js";
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";
import { ollamaHttpError, ollamaStreamError, ollamaText, ollamaThinking, ollamaToolCalls, startFakeOllama, type FakeOllama } from "../support/fake-ollama.js";
import { assistant, call, result, user } from "../support/messages.js";

const qwen: ModelInfo = { id: "qwen3:8b", provider: "box", contextWindow: 40_960, maxOutputTokens: 32_768, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, thinking: "adaptive" };
const plain: ModelInfo = { ...qwen, id: "llama3.1:8b", contextWindow: 131_072, thinking: "none" };

async function withServer(t: { after(fn: () => Promise<void> | void): void }, opts: { idleTimeoutMs?: number; firstLineTimeoutMs?: number } = {}): Promise<{ server: FakeOllama; provider: OllamaProvider }> {
  const server = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, arch: "qwen3" }, { name: "llama3.1:8b", contextLength: 131_072 }] });
  t.after(() => server.close());
  return { server, provider: new OllamaProvider({ name: "box", baseURL: server.url, idleTimeoutMs: opts.idleTimeoutMs ?? 2000, firstLineTimeoutMs: opts.firstLineTimeoutMs }) };
}

type Collected = { events: StreamEvent[]; final: AssistantMessage; error?: Extract<StreamEvent, { type: "error" }>["error"] };

async function collect(provider: OllamaProvider, req: Partial<StreamRequest> & { messages: AgentMessage[] }, model: ModelInfo = qwen): Promise<Collected> {
  const events: StreamEvent[] = [];
  for await (const ev of provider.stream({ model, systemPrompt: "sys", tools: [], maxTokens: 4096, signal: new AbortController().signal, ...req })) events.push(ev);
  const last = events.at(-1)!;
  assert.ok(last.type === "done" || last.type === "error", "the stream ends with done or error");
  assert.equal(events.filter((e) => e.type === "done" || e.type === "error").length, 1, "exactly one final event");
  return { events, final: last.message, error: last.type === "error" ? last.error : undefined };
}

const deltas = (events: StreamEvent[], type: "text_delta" | "thinking_delta") => events.filter((e) => e.type === type).map((e) => (e as { delta: string }).delta);

test("text streams in deltas; the request carries num_ctx (the model's window), num_predict, truncate: false and shift: false", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(ollamaText("Hello there, friend. ünïcode ✓", { promptEvalCount: 1234, evalCount: 9, chunkSize: 3, splitWrites: true }));
  const { events, final } = await collect(provider, { messages: [user("hi")], maxTokens: 8000 });
  assert.equal(events[0].type, "start");
  assert.equal(deltas(events, "text_delta").join(""), "Hello there, friend. ünïcode ✓");
  assert.deepEqual(final.content, [{ type: "text", text: "Hello there, friend. ünïcode ✓" }]);
  assert.equal(final.stopReason, "stop");
  assert.equal(final.provider, "box");
  assert.equal(final.api, "ollama-chat");
  assert.equal(final.usage.input, 1234);
  assert.equal(final.usage.output, 9);
  assert.equal(final.usage.cacheRead, 0);
  const body = server.chatRequests[0].body;
  assert.equal(body.model, "qwen3:8b");
  assert.equal(body.stream, true);
  assert.equal(body.options.num_ctx, 40_960);
  assert.equal(body.options.num_predict, 8000);
  assert.equal(body.truncate, false);
  assert.equal(body.shift, false);
  assert.deepEqual(body.messages, [{ role: "system", content: "sys" }, { role: "user", content: "hi" }]);
  assert.equal(body.think, undefined, "no thinking level asked: the server's default");
});

test("deltas that arrive in one read become one event; deltas that arrive apart stay apart", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(ollamaText("a".repeat(400), { chunkSize: 2, writeAll: true }), ollamaText("abcdef", { chunkSize: 2, delayMs: 30 }));
  const together = await collect(provider, { messages: [user("x")] });
  assert.equal(deltas(together.events, "text_delta").join(""), "a".repeat(400));
  assert.ok(deltas(together.events, "text_delta").length < 20, `${deltas(together.events, "text_delta").length} events for 200 lines sent at once`);
  const apart = await collect(provider, { messages: [user("x")] });
  assert.deepEqual(deltas(apart.events, "text_delta"), ["ab", "cd", "ef"]);
});

test("num_predict is capped to the room the prompt leaves in the window", async (t) => {
  const { server, provider } = await withServer(t);
  const small: ModelInfo = { ...qwen, contextWindow: 2048 };
  await collect(provider, { messages: [user("x".repeat(6000))], maxTokens: 4096 }, small);
  const opts = server.chatRequests[0].body.options;
  assert.equal(opts.num_ctx, 2048);
  assert.ok(opts.num_predict < 2048 - 1400 && opts.num_predict > 0, `num_predict ${opts.num_predict}`);
});

test("thinking arrives as its own block before the text; think follows the thinking level", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(ollamaThinking("Let me count the letters.", "Three."));
  const { events, final } = await collect(provider, { messages: [user("how many r in strawberry?")], thinkingLevel: "high" });
  assert.equal(deltas(events, "thinking_delta").join(""), "Let me count the letters.");
  assert.deepEqual(final.content, [
    { type: "thinking", thinking: "Let me count the letters." },
    { type: "text", text: "Three." },
  ]);
  assert.equal(server.chatRequests[0].body.think, true, "a level only for gpt-oss: Ollama before 0.20 refuses one for other models");
  await collect(provider, { messages: [user("x")], thinkingLevel: "off" });
  assert.equal(server.chatRequests[1].body.think, false, "off is sent: Ollama thinks by default with a thinking model");
  server.setModels([]);
  await collect(provider, { messages: [user("x")], thinkingLevel: "xhigh" }, { ...qwen, id: "gpt-oss:20b" });
  assert.equal(server.chatRequests[2].body.think, "high");
  await collect(provider, { messages: [user("x")], thinkingLevel: "minimal" }, { ...qwen, id: "gpt-oss:120b" });
  assert.equal(server.chatRequests[3].body.think, "low");
  await collect(provider, { messages: [user("x")], thinkingLevel: "medium" }, plain);
  assert.equal(server.chatRequests[4].body.think, undefined, "a model that cannot think is not asked to (Ollama answers 400)");
});

test("tool calls arrive whole: start, arguments and end at once; stop reason toolUse; ids kept or made", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    ollamaToolCalls([
      { name: "read", arguments: { path: "src/a.ts" } },
      { name: "bash", arguments: { command: "ls -la", timeout: 5 }, id: null },
    ], { content: "Looking." }),
  );
  const tools = [{ name: "read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
  const { events, final } = await collect(provider, { messages: [user("look")], tools });
  assert.equal(final.stopReason, "toolUse");
  const calls = final.content.filter((b) => b.type === "toolCall");
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0], { type: "toolCall", id: "call_fake0", name: "read", arguments: { path: "src/a.ts" } });
  assert.equal(calls[1].type === "toolCall" && calls[1].name, "bash");
  assert.deepEqual(calls[1].type === "toolCall" && calls[1].arguments, { command: "ls -la", timeout: 5 });
  assert.match(calls[1].type === "toolCall" ? calls[1].id : "", /^call_[0-9a-f]{12}$/, "an id is made when Ollama sends none");
  const kinds = events.map((e) => e.type).filter((k) => k.startsWith("toolcall"));
  assert.deepEqual(kinds, ["toolcall_start", "toolcall_delta", "toolcall_end", "toolcall_start", "toolcall_delta", "toolcall_end"]);
  assert.deepEqual(server.chatRequests[0].body.tools, [{ type: "function", function: { name: "read", description: "Read a file", parameters: tools[0].inputSchema } }]);
});

test("the history goes over as Ollama messages: tool calls with object arguments, tool results named, images in `images`, summaries as user text", async (t) => {
  const { server, provider } = await withServer(t);
  const image = { role: "user" as const, content: [{ type: "text" as const, text: "what is this?" }, { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 1 };
  const messages: AgentMessage[] = [
    { role: "compactionSummary", summary: "We fixed the parser.", tokensBefore: 5000, timestamp: 0 },
    user("read it"),
    assistant("Reading.", [call("t1", "read", { path: "a.ts" }), call("t2", "read", { path: "b.ts" })]),
    result("t1", "read", "export const a = 1;"),
    image,
  ];
  await collect(provider, { messages });
  const sent = server.chatRequests[0].body.messages;
  assert.equal(sent[0].role, "system");
  assert.match(sent[1].content, /summarized[\s\S]*We fixed the parser\./);
  assert.deepEqual(sent[3], { role: "assistant", content: "Reading.", tool_calls: [{ id: "t1", function: { name: "read", arguments: { path: "a.ts" } } }, { id: "t2", function: { name: "read", arguments: { path: "b.ts" } } }] });
  assert.deepEqual(sent[4], { role: "tool", content: "export const a = 1;", tool_name: "read", tool_call_id: "t1" });
  assert.equal(sent[5].role, "tool", "the call the history never answered gets a stand-in result");
  assert.equal(sent[5].tool_call_id, "t2");
  assert.match(sent[5].content, /No result was recorded/);
  assert.deepEqual(sent[6], { role: "user", content: "what is this?", images: ["iVBORw0KGgo="] });
});

test("usage: prompt_eval_count is the whole prompt; a cached count splits it, or adds to it when larger; absent gives 0", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    ollamaText("a", { promptEvalCount: 5000, promptEvalCachedCount: 4000, evalCount: 3 }),
    ollamaText("b", { promptEvalCount: 100, promptEvalCachedCount: 30_000, evalCount: 3 }),
    ollamaText("c", { omitPromptEvalCount: true, evalCount: 3 }),
  );
  const split = (await collect(provider, { messages: [user("x")] })).final.usage;
  assert.deepEqual([split.input, split.cacheRead, split.output, split.totalTokens], [1000, 4000, 3, 5003]);
  const apart = (await collect(provider, { messages: [user("x")] })).final.usage;
  assert.deepEqual([apart.input, apart.cacheRead, apart.totalTokens], [100, 30_000, 30_103]);
  const absent = (await collect(provider, { messages: [user("x")] })).final.usage;
  assert.deepEqual([absent.input, absent.cacheRead, absent.output], [0, 0, 3]);
});

test("done_reason length ends with stop reason length", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(ollamaText("cut sh", { doneReason: "length", evalCount: 2 }));
  const { final } = await collect(provider, { messages: [user("write a lot")], maxTokens: 2 });
  assert.equal(final.stopReason, "length");
  assert.equal(final.usage.output, 2);
});

test("an error line mid-stream ends the stream with an error, keeping the text so far", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(ollamaStreamError("an error was encountered while running the model", 2, { content: "partial answer", chunkSize: 7 }));
  const { final, error } = await collect(provider, { messages: [user("go")] });
  assert.equal(error?.errorClass, "transient");
  assert.match(error!.message, /error was encountered while running the model/);
  assert.equal(final.stopReason, "error");
  assert.deepEqual(final.content, [{ type: "text", text: "partial answer" }]);
});

test("a model the server lacks: a clear message telling to ollama pull it", async (t) => {
  const { provider } = await withServer(t);
  const { error, final } = await collect(provider, { messages: [user("hi")] }, { ...qwen, id: "qwen3-coder:30b" });
  assert.equal(error?.errorClass, "fatal");
  assert.equal(error?.status, 404);
  assert.equal(error?.type, "model_not_found");
  assert.match(error!.message, /ollama pull qwen3-coder:30b/);
  assert.equal(final.stopReason, "error");
});

test("HTTP errors: overflow with its sizes, 500 transient, 401 auth, a model that cannot think", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue(
    ollamaHttpError(400, '{"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}}'),
    ollamaHttpError(500, "llama runner process has terminated: exit status 2"),
    ollamaHttpError(401, "unauthorized"),
    ollamaHttpError(400, '"llama3.1:8b" does not support thinking'),
  );
  const overflow = await collect(provider, { messages: [user("huge")] });
  assert.equal(overflow.error?.errorClass, "overflow");
  assert.deepEqual(overflow.error?.overflow, { tokens: 9412, maximum: 8192 });
  assert.equal((await collect(provider, { messages: [user("x")] })).error?.errorClass, "transient");
  assert.equal((await collect(provider, { messages: [user("x")] })).error?.errorClass, "auth");
  const think = await collect(provider, { messages: [user("x")] });
  assert.equal(think.error?.errorClass, "fatal");
  assert.equal(think.error?.type, "thinking_unsupported");
});

test("nothing listening: transient, asking whether Ollama runs at that address", async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const provider = new OllamaProvider({ baseURL: `http://127.0.0.1:${port}` });
  const { error } = await collect(provider, { messages: [user("hi")] });
  assert.equal(error?.errorClass, "transient");
  assert.match(error!.message, new RegExp(`cannot reach Ollama at http://127\\.0\\.0\\.1:${port}: is Ollama running\\?`));
});

test("abort during a hang ends at once as aborted and closes the connection; a silent stream times out as transient", async (t) => {
  const { server, provider } = await withServer(t, { idleTimeoutMs: 150, firstLineTimeoutMs: 150 });
  server.enqueue({ kind: "hang", afterLines: 1, reply: { content: "abcdefgh" } });
  const ac = new AbortController();
  const events: StreamEvent[] = [];
  for await (const ev of provider.stream({ model: qwen, systemPrompt: "", messages: [user("x")], tools: [], maxTokens: 100, signal: ac.signal })) {
    events.push(ev);
    if (ev.type === "text_delta") ac.abort();
  }
  const last = events.at(-1)!;
  assert.equal(last.type, "error");
  assert.equal(last.type === "error" && last.error.errorClass, "aborted");
  assert.equal(last.type === "error" && last.message.stopReason, "aborted");

  server.enqueue({ kind: "hang", beforeHeaders: true });
  const silent = await collect(provider, { messages: [user("x")] });
  assert.equal(silent.error?.errorClass, "transient");
  assert.match(silent.error!.message, /no answer from Ollama/);

  server.enqueue({ kind: "hang", afterLines: 1, reply: { content: "abcdefgh" } });
  const stalled = await collect(provider, { messages: [user("x")] });
  assert.equal(stalled.error?.errorClass, "transient");
  assert.match(stalled.error!.message, /no data from Ollama/);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(server.clientClosed, 3, "every hung connection was closed by the client");
});

test("a cut connection before the final line is transient", async (t) => {
  const { server, provider } = await withServer(t);
  server.enqueue({ kind: "cut", afterLines: 2, reply: { content: "abcdefghijkl" } });
  const { error, final } = await collect(provider, { messages: [user("x")] });
  assert.equal(error?.errorClass, "transient");
  assert.equal(final.stopReason, "error");
});

test("the API key and extra headers go with the request", async (t) => {
  const server = await startFakeOllama();
  t.after(() => server.close());
  const provider = new OllamaProvider({ baseURL: `${server.url}/`, apiKey: "sekrit", headers: { "x-team": "core" } });
  await collect(provider, { messages: [user("hi")] });
  assert.equal(server.chatRequests[0].headers.authorization, "Bearer sekrit");
  assert.equal(server.chatRequests[0].headers["x-team"], "core");
});

test("a signal aborted before the call: aborted at once, nothing sent", async (t) => {
  const { server, provider } = await withServer(t);
  const ac = new AbortController();
  ac.abort();
  const { error, final } = await collect(provider, { messages: [user("x")], signal: ac.signal });
  assert.equal(error?.errorClass, "aborted");
  assert.equal(final.stopReason, "aborted");
  assert.equal(server.chatRequests.length, 0);
});

test("a server that answers something other than NDJSON: a fatal error naming what came", async (t) => {
  const { startJsonServer } = await import("../support/fake-json-server.js");
  const server = await startJsonServer({ "POST /api/chat": { raw: '{"model":"m","message":{"role":"assistant","content":"hi"},"done":false}\n<html>proxy error</html>\n' } });
  t.after(() => server.close());
  const { error, final } = await collect(new OllamaProvider({ baseURL: server.url }), { messages: [user("x")] });
  assert.equal(error?.errorClass, "fatal");
  assert.match(error!.message, /not JSON: <html>proxy error/);
  assert.deepEqual(final.content, [{ type: "text", text: "hi" }], "the text before the bad line is kept");
});
