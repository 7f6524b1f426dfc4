// The web UI's reply model (clients/web/src/stream.ts): message_start's message plus every
// message_update delta gives the reply so far; pure, so it runs without a browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage } from "../../protocol/index.js";
import { StreamingMessage, compactionThreshold, fileListsFromSummary } from "../../clients/web/src/stream.js";

function start(): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "scripted",
    provider: "scripted",
    model: "scripted",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: 1,
  };
}

test("text, thinking and tool call deltas rebuild the reply", () => {
  const original = start();
  const s = new StreamingMessage(original);
  s.apply({ type: "thinking", contentIndex: 0, text: "Let me " });
  s.apply({ type: "thinking", contentIndex: 0, text: "look." });
  s.apply({ type: "text", contentIndex: 1, text: "I'll read " });
  s.apply({ type: "text", contentIndex: 1, text: "the notes." });
  s.apply({ type: "toolcall_start", contentIndex: 2, toolCallId: "tc1", toolName: "read" });
  assert.equal(s.receivingArgs(2), true);
  s.apply({ type: "toolcall_delta", contentIndex: 2, text: '{"path":"no' });
  assert.equal(s.rawArgs.get(2), '{"path":"no');
  s.apply({ type: "toolcall_delta", contentIndex: 2, text: 'tes.md"}' });
  s.apply({ type: "toolcall_end", contentIndex: 2, toolCallId: "tc1", toolName: "read" });
  assert.equal(s.receivingArgs(2), false);
  assert.deepEqual(s.message.content, [
    { type: "thinking", thinking: "Let me look." },
    { type: "text", text: "I'll read the notes." },
    { type: "toolCall", id: "tc1", name: "read", arguments: { path: "notes.md" } },
  ]);
  assert.deepEqual(s.takeDirty().sort(), [0, 1, 2]);
  assert.deepEqual(s.takeDirty(), []);
  assert.deepEqual(original.content, [], "message_start's message is not changed");
});

test("a tool call whose arguments are not valid JSON keeps empty arguments", () => {
  const s = new StreamingMessage(start());
  s.apply({ type: "toolcall_start", contentIndex: 0, toolCallId: "tc1", toolName: "bash" });
  s.apply({ type: "toolcall_delta", contentIndex: 0, text: '{"command": "ls' });
  s.apply({ type: "toolcall_end", contentIndex: 0 });
  assert.deepEqual(s.message.content[0], { type: "toolCall", id: "tc1", name: "bash", arguments: {} });
});

test("file lists come out of a summary's sections; the threshold follows the daemon's fitting", () => {
  const summary = "## Goal\n- x\n\n<read-files>\na.ts\nb.ts\n</read-files>\n\n<modified-files>\nnotes.md\n</modified-files>";
  assert.deepEqual(fileListsFromSummary(summary), { readFiles: ["a.ts", "b.ts"], modifiedFiles: ["notes.md"] });
  assert.deepEqual(fileListsFromSummary("no lists"), { readFiles: [], modifiedFiles: [] });
  assert.equal(compactionThreshold(32_000, 16_384), 16_000, "reserve fitted to half a small window");
  assert.equal(compactionThreshold(200_000, 16_384), 183_616);
  assert.equal(compactionThreshold(200_000), 183_616);
});
