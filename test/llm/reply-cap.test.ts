// The reply cap around a provider (src/llm/reply-cap.ts), over the offline scripted provider: a
// reply within the cap passes untouched; one past it is cut, truncated on a character boundary,
// marked as cut; a caller's abort stays an abort; tool calls count their arguments.
import assert from "node:assert/strict";
import { test } from "node:test";
import { capReplies, REPLY_TOO_LARGE, truncateToBytes } from "../../src/llm/reply-cap.js";
import { SCRIPTED_MODEL } from "../../src/llm/models.js";
import { ScriptedProvider, type ScriptTurn } from "../../src/llm/scripted.js";
import type { StreamEvent } from "../../src/llm/types.js";
import type { AssistantMessage } from "../../src/messages/types.js";

async function run(turn: ScriptTurn, maxBytes: number, signal = new AbortController().signal): Promise<StreamEvent[]> {
  const provider = capReplies(new ScriptedProvider({ turns: [turn] }), maxBytes);
  const events: StreamEvent[] = [];
  for await (const ev of provider.stream({ model: SCRIPTED_MODEL, systemPrompt: "", messages: [], tools: [], maxTokens: 1000, signal })) events.push(ev);
  return events;
}

test("a reply within the cap passes as it came", async () => {
  const events = await run({ text: "hello world", chunkSize: 3 }, 11);
  const last = events.at(-1)!;
  assert.equal(last.type, "done");
  assert.equal(last.type === "done" && last.message.content[0]?.type === "text" && last.message.content[0].text, "hello world");
});

test("past the cap the stream is cut: no delta past it, the text kept up to it, an error of type reply_too_large", async () => {
  const events = await run({ text: "x".repeat(1000), chunkSize: 10 }, 95);
  const deltas = events.filter((e) => e.type === "text_delta");
  assert.equal(deltas.length, 9, "the deltas within the cap, none after");
  const last = events.at(-1)!;
  assert.equal(last.type, "error");
  if (last.type !== "error") return;
  assert.equal(last.error.type, REPLY_TOO_LARGE);
  assert.equal(last.error.errorClass, "fatal");
  assert.equal(last.message.stopReason, "error");
  assert.match(last.message.errorMessage ?? "", /cut/);
  const block = last.message.content[0];
  assert.equal(block?.type === "text" && block.text.length, 95);
});

test("tool-call arguments count; a call cut before its end is left out", async () => {
  const events = await run({ toolCalls: [{ name: "write", arguments: { content: "y".repeat(500) } }], jsonChunkSize: 20 }, 200);
  const last = events.at(-1)!;
  assert.equal(last.type, "error");
  assert.equal(last.type === "error" && last.error.type, REPLY_TOO_LARGE);
  assert.deepEqual(last.type === "error" && last.message.content, []);
  assert.equal(events.filter((e) => e.type === "toolcall_end").length, 0);
});

test("a caller's abort stays an abort, not a cut", async () => {
  const ac = new AbortController();
  ac.abort();
  const events = await run({ text: "x".repeat(100) }, 10, ac.signal);
  const last = events.at(-1)!;
  assert.equal(last.type, "error");
  assert.equal(last.type === "error" && last.error.errorClass, "aborted");
});

test("truncation never splits a character, and a shortened thinking block loses its signature", () => {
  const message: AssistantMessage = {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "ééé", thinkingSignature: "sig" },
      { type: "text", text: "tail" },
    ],
    api: "x",
    provider: "x",
    model: "x",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "error",
    timestamp: 0,
  };
  truncateToBytes(message, 5);
  assert.deepEqual(message.content, [{ type: "thinking", thinking: "éé" }]);
});
