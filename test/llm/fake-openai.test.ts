// The fake OpenAI-compatible server, driven through the real `openai` SDK (6.49.0, the last
// release that runs on Node 20). Besides proving the fake, these tests pin down what the SDK does
// with each kind of answer; the providers (openai-completions.ts, openai-responses.ts) and
// openai-errors.ts rely on it:
// - an abort through the request's signal mid-stream ends the iteration quietly (no throw), but
//   only after the chunks it had already read (stream-watch.ts stops the reply at the abort);
// - a connection cut mid-body throws undici's TypeError("terminated"), a SocketError with code
//   UND_ERR_SOCKET down the cause chain; cut before any byte: APIConnectionError;
// - `data: {"error": ...}` inside a Chat Completions stream throws an APIError with no status,
//   the error object on `e.error`; the Responses API's `event: error` arrives as an event of
//   type "error" (the Responses provider turns it into the failure);
// - an HTTP error's `{"error": {...}}` is on `e.error`; a bare error object (vLLM before 0.10,
//   Mistral) is not, and an array body (Gemini) arrives as it is: pith reshapes both first.
import assert from "node:assert/strict";
import { test } from "node:test";
import OpenAI, { APIConnectionError, APIError, BadRequestError } from "openai";
import { cutConnection, hang, overflowError, reasoningReply, reply, startFakeOpenAI, streamError, textReply } from "../support/fake-openai.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
}

test("Chat Completions: the SDK reads the chunks; usage only when asked for; tool calls by index; reasoning field; a non-streaming reply", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent });
  const chunksOf = async (options: Partial<OpenAI.Chat.ChatCompletionCreateParamsStreaming> = {}) => {
    const out: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const c of await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true, ...options })) out.push(c);
    return out;
  };
  server.enqueue(reply([{ type: "reasoning", text: "hm" }, { type: "tool_call", name: "read", arguments: { path: "a.ts" }, id: "call_1" }], { argsChunkSize: 5, reasoningField: "reasoning", usage: { input: 9, output: 4 } }));
  const chunks = await chunksOf({ stream_options: { include_usage: true } });
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
  assert.equal((chunks[1].choices[0].delta as { reasoning?: string }).reasoning, "hm");
  const calls = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
  assert.deepEqual(calls[0], { index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } });
  assert.equal(calls.map((c) => c.function?.arguments).join(""), '{"path":"a.ts"}');
  assert.ok(calls.length > 3, "arguments in pieces");
  assert.equal(chunks.at(-2)!.choices[0].finish_reason, "tool_calls");
  assert.deepEqual(chunks.at(-1)!.choices, []);
  assert.equal(chunks.at(-1)!.usage?.prompt_tokens, 9);
  server.enqueue(textReply("no usage"));
  assert.ok((await chunksOf()).every((c) => !c.usage), "no usage unless asked");
  server.enqueue(textReply("whole", { usage: { input: 3, output: 1 } }));
  const whole = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
  assert.equal(whole.choices[0].message.content, "whole");
  assert.equal(whole.usage?.prompt_tokens, 3);
});

test("Responses API: typed events with `event:` lines, encrypted reasoning only when included", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent });
  const eventsOf = async (include?: OpenAI.Responses.ResponseIncludable[]) => {
    const out: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await client.responses.create({ model: "m", input: "hi", stream: true, ...(include ? { include } : {}) })) out.push(e);
    return out;
  };
  server.enqueue(reasoningReply("think", "answer"));
  const events = await eventsOf(["reasoning.encrypted_content"]);
  assert.equal(events[0].type, "response.created");
  assert.equal(events.at(-1)!.type, "response.completed");
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  const reasoning = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning");
  assert.ok(reasoning?.type === "response.output_item.done" && reasoning.item.type === "reasoning" && reasoning.item.encrypted_content, "encrypted reasoning");
  server.enqueue(reasoningReply("think", "answer"));
  const plain = await eventsOf();
  assert.ok(!JSON.stringify(plain).includes("encrypted_content"), "none unless included");
  assert.match(server.requests[0].rawBody, /"include":\["reasoning.encrypted_content"\]/);
});

test("what the SDK throws: abort ends quietly, a cut mid-body, a cut before any byte, errors inside the stream, HTTP error bodies", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent });
  const chat = (signal?: AbortSignal) => client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }, { signal });
  const drain = async (s: AsyncIterable<unknown>) => {
    let n = 0;
    for await (const _ of s) n++;
    return n;
  };

  server.enqueue(hang({ afterFrames: 3 }));
  const ac = new AbortController();
  let seen = 0;
  for await (const _ of await chat(ac.signal)) if (++seen === 2) ac.abort();
  assert.ok(seen >= 2 && seen <= 3, `the loop ends without a throw, at most after the frames already sent (${seen})`);

  server.enqueue(cutConnection({ afterFrames: 3 }));
  const cut = await rejection(chat().then(drain));
  assert.equal(cut.message, "terminated");
  assert.equal(cut.cause?.code, "UND_ERR_SOCKET");

  server.enqueue(cutConnection({ beforeHeaders: true }));
  assert.ok((await rejection(chat())) instanceof APIConnectionError, "before any byte");

  server.enqueue(streamError({ message: "the request exceeds the available context size", type: "exceed_context_size_error", code: 500, n_ctx: 256 }));
  const inChat = await rejection(chat().then(drain));
  assert.ok(inChat instanceof APIError && inChat.status === undefined, "no status inside a stream");
  assert.equal(inChat.error.n_ctx, 256);

  server.enqueue(streamError({ message: "Overloaded", code: "server_error" }));
  const responseEvents: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const e of await client.responses.create({ model: "m", input: "x", stream: true })) responseEvents.push(e);
  const errorEvent = responseEvents.at(-1);
  assert.ok(errorEvent?.type === "error", "event: error is handed out as an event");
  assert.equal(errorEvent.code, "server_error");
  assert.equal(errorEvent.message, "Overloaded");

  server.enqueue(overflowError("vllm", 5000, 4096, 1000));
  const bare = await rejection(chat());
  assert.ok(bare instanceof BadRequestError, "400");
  assert.equal(bare.error, undefined, "a bare error object is not on e.error: pith wraps it (openai-client.ts)");

  server.enqueue(overflowError("gemini", 5000, 4096));
  const array = await rejection(new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent }).chat.completions.create({ model: "m", messages: [], stream: true }));
  assert.ok(array instanceof BadRequestError, "400");
  assert.equal(array.error, undefined, "nor is an array body");
});

test("other routes: the model list, 404 in OpenAI's error shape; each request recorded and its end reported", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setModels([{ id: "qwen3-coder", max_model_len: 32768 }]);
  const list = await (await fetch(`${server.baseURL}/models`)).json();
  assert.deepEqual(list.data[0], { object: "model", created: 1_767_225_600, owned_by: "fake", id: "qwen3-coder", max_model_len: 32768 });
  const missing = await fetch(`${server.baseURL}/embeddings`, { method: "POST", body: "{}" });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "not_found");
  assert.equal((await server.whenEnded(1)).how, "completed");
  assert.equal(server.requests[1].path, "/v1/embeddings");
});

test("a responder computes the reply from the request when the queue is empty; the queue comes first, undefined falls to the default", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0, logger: silent });
  const ask = async (content: string) => {
    const r = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content }] });
    return r.choices[0]?.message.content;
  };
  server.setResponder((body, req) => (body.messages[0].content === "pass" ? undefined : textReply(`echo ${body.messages[0].content} via ${req.path}`)));
  server.enqueue(textReply("queued"));
  assert.equal(await ask("one"), "queued");
  assert.equal(await ask("two"), "echo two via /v1/chat/completions");
  assert.equal(await ask("pass"), "ok");
  server.setResponder(undefined);
  assert.equal(await ask("three"), "ok");
});
