// A reply cut at maxReplyMB is stored whole up to the cap; what it adds to the model's context
// (the provider request, the token estimate, compaction's transcript and fallback) is its first
// CUT_REPLY_VIEW_BYTES and a note (messages/cut-reply.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateMessageTokens, estimateTextTokens } from "../../src/compaction/estimate.js";
import { extractiveSummary } from "../../src/compaction/fallback.js";
import { serializeMessage } from "../../src/compaction/serialize.js";
import { CUT_REPLY_VIEW_BYTES, modelView, modelViews } from "../../src/messages/cut-reply.js";
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";
import { assistant, user } from "../support/messages.js";

const CUT_MESSAGE = "the model's reply passed the 2 MiB cap on one reply (maxReplyMB): the stream was cut and the reply kept up to the cap";

function cutReply(text: string, thinking?: string): AssistantMessage {
  const m = assistant(text) as AssistantMessage;
  if (thinking !== undefined) m.content = [{ type: "thinking", thinking, thinkingSignature: "sig" }, ...m.content];
  return { ...m, stopReason: "error", errorMessage: CUT_MESSAGE };
}

test("a cut reply's view: its first 16 KiB and a note; the stored message is left as it is", () => {
  const text = "endless reply. ".repeat((2 << 20) / 15);
  const m = cutReply(text);
  const view = modelView(m) as AssistantMessage;
  const shown = view.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  assert.ok(Buffer.byteLength(shown) <= CUT_REPLY_VIEW_BYTES + 200, `${Buffer.byteLength(shown)} bytes shown`);
  assert.ok(shown.startsWith("endless reply. endless reply."));
  assert.match(shown, /\[the reply was cut at 2 MiB: the rest is left out\]/);
  assert.equal((m.content[0] as { text: string }).text, text, "nothing stored is changed");
  assert.equal(modelView(m), view, "the same view each time (estimates stay cached)");
  assert.ok(estimateMessageTokens(m) < estimateTextTokens(text) / 50, "estimated as its view");
  const block = serializeMessage(m, { maxBlockChars: 2000 }).join("");
  assert.ok(block.length < CUT_REPLY_VIEW_BYTES + 1000, `serialized to ${block.length} characters`);
  assert.ok(extractiveSummary([user("go on"), m], undefined, "failed").length < 8000);
});

test("a shortened thinking block loses its signature; other messages, and errors of other kinds, are untouched", () => {
  const m = cutReply("", "x".repeat(CUT_REPLY_VIEW_BYTES * 2));
  const view = modelView(m) as AssistantMessage;
  const thinking = view.content[0];
  assert.ok(thinking?.type === "thinking" && thinking.thinkingSignature === undefined && thinking.thinking.length === CUT_REPLY_VIEW_BYTES);

  const other: AgentMessage = { ...(assistant("a long reply") as AssistantMessage), stopReason: "error", errorMessage: "overloaded" };
  const list = [user("hi"), other, assistant("ok")];
  assert.equal(modelView(other), other);
  assert.equal(modelViews(list), list, "the same array when no reply was cut");
  const withCut = [...list, cutReply("y".repeat(CUT_REPLY_VIEW_BYTES + 10))];
  const views = modelViews(withCut);
  assert.notEqual(views, withCut);
  assert.equal(views[1], other);
  assert.notEqual(views[3], withCut[3]);
});
