// The pure context builder, on hand-built paths: Pi's rules for compactions, summaries, settings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext, type SessionEntry } from "../../src/session/index.js";
import { assistant, user } from "../support/messages.js";

let n = 0;
function entry<T extends Record<string, unknown>>(fields: T): SessionEntry {
  n++;
  return { id: `e${n}`, parentId: null, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), ...fields } as unknown as SessionEntry;
}
const msg = (m: unknown) => entry({ type: "message", message: m });

test("without a compaction every message-bearing entry is emitted in path order", () => {
  const path = [
    msg(user("a")),
    entry({ type: "custom", customType: "state", data: 1 }),
    entry({ type: "label", targetId: "e1", label: "x" }),
    entry({ type: "custom_message", customType: "c", content: "hi", display: false }),
    entry({ type: "branch_summary", fromId: "e1", summary: "" }), // empty summaries are skipped
    entry({ type: "branch_summary", fromId: "e1", summary: "went elsewhere" }),
    msg(assistant("b")),
  ];
  const ctx = buildSessionContext(path);
  assert.deepEqual(ctx.messages.map((m) => m.role), ["user", "custom", "branchSummary", "assistant"]);
  assert.deepEqual(ctx.entryIds, [path[0].id, path[3].id, path[5].id, path[6].id]);
  const custom = ctx.messages[1] as { timestamp: number; display: boolean };
  assert.equal(custom.timestamp, Date.parse(path[3].timestamp), "entry timestamps become epoch ms");
  assert.equal(custom.display, false);
});

test("the latest compaction wins; its kept span starts at firstKeptEntryId", () => {
  const a = msg(user("a"));
  const b = msg(assistant("b"));
  const c1 = entry({ type: "compaction", summary: "S1", firstKeptEntryId: a.id, tokensBefore: 1 });
  const d = msg(user("d"));
  const c2 = entry({ type: "compaction", summary: "S2", firstKeptEntryId: d.id, tokensBefore: 2 });
  const e = msg(assistant("e"));
  const ctx = buildSessionContext([a, b, c1, d, c2, e]);
  assert.deepEqual(ctx.messages.map((m) => (m.role === "compactionSummary" ? m.summary : m.role)), ["S2", "user", "assistant"]);
  assert.deepEqual(ctx.entryIds, [c2.id, d.id, e.id]);
  assert.equal(ctx.freshFrom, 2, "e came after the latest compaction");
});

test("a firstKeptEntryId that is not on the path keeps nothing before the compaction", () => {
  const a = msg(user("a"));
  const c = entry({ type: "compaction", summary: "S", firstKeptEntryId: "elsewhere", tokensBefore: 1 });
  const b = msg(assistant("b"));
  assert.deepEqual(buildSessionContext([a, c, b]).messages.map((m) => m.role), ["compactionSummary", "assistant"]);
});

test("model from the last model_change or assistant message; thinking level from the last change", () => {
  const path = [
    entry({ type: "thinking_level_change", thinkingLevel: "high" }),
    msg(assistant("x")),
    entry({ type: "model_change", provider: "openai", modelId: "gpt" }),
    entry({ type: "thinking_level_change", thinkingLevel: "low" }),
  ];
  const ctx = buildSessionContext(path);
  assert.deepEqual(ctx.model, { provider: "openai", modelId: "gpt" });
  assert.equal(ctx.thinkingLevel, "low");
  assert.deepEqual(buildSessionContext([]), { messages: [], entryIds: [], model: null, thinkingLevel: "off", freshFrom: 0 });
});
