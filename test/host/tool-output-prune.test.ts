// The host's side of pruning (src/host/compaction/tool-output-prune.ts): a due batch is stored as
// context_edit entries on the session's branch, the context built next carries the placeholders,
// the tool results stay stored whole, and the clock decides whether the cache is cold.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PROMPT_CACHE_TTL_MS } from "../../src/compaction/index.js";
import { pruneToolOutputsBeforeRequest } from "../../src/host/compaction/tool-output-prune.js";
import { SessionFile } from "../../src/session/index.js";
import { assistant, call, result, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

const settings = { enabled: true, keepToolTokens: 2500, minPruneTokens: 2500 };

function sessionWithReads(t: { after(fn: () => unknown): void }, reads: number): SessionFile {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  s.appendMessage(user("go"));
  for (let i = 0; i < reads; i++) {
    s.appendMessage(assistant("", [call(`c${i}`, "read", { path: `f${i}` })]));
    s.appendMessage(result(`c${i}`, "read", `output ${i} ` + "x".repeat(4000)));
  }
  return s;
}

const lastReplyAt = (s: SessionFile) => s.buildContext().messages.findLast((m) => m.role === "assistant")!.timestamp;

test("a due batch is stored as context_edit entries; the next context carries the placeholders; the results stay whole", (t) => {
  const s = sessionWithReads(t, 5);
  const before = s.entries().length;
  const out = pruneToolOutputsBeforeRequest(s, settings, undefined, lastReplyAt(s) + 1000);
  assert.equal(out.entryIds.length, 3);
  assert.equal(s.entries().length, before + 3);
  assert.equal(s.leafId, out.entryIds[2], "appended on the branch like any entry");
  const ctx = s.buildContext();
  const texts = ctx.messages.filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m.content));
  assert.deepEqual(texts.map((x) => /older output of read left out/.test(x)), [true, true, true, false, false]);
  const stored = s.entries().filter((e) => e.type === "message" && e.message.role === "toolResult");
  assert.ok(stored.every((e) => JSON.stringify(e).includes("xxxxxxxx")), "the tool results are not rewritten");
  // the same context again: nothing more
  assert.equal(pruneToolOutputsBeforeRequest(s, settings, undefined, lastReplyAt(s) + 2000).entryIds.length, 0);
});

test("under a batch nothing is stored while the cache is warm; once it is cold, the old outputs go", (t) => {
  const s = sessionWithReads(t, 3);
  const at = lastReplyAt(s);
  assert.equal(pruneToolOutputsBeforeRequest(s, settings, undefined, at + PROMPT_CACHE_TTL_MS - 1000).entryIds.length, 0);
  assert.equal(pruneToolOutputsBeforeRequest(s, { ...settings, enabled: false }, undefined, at + 2 * PROMPT_CACHE_TTL_MS).entryIds.length, 0);
  const out = pruneToolOutputsBeforeRequest(s, settings, undefined, at + PROMPT_CACHE_TTL_MS + 1000);
  assert.equal(out.entryIds.length, 1);
  assert.equal(s.entry(out.entryIds[0])!.type, "context_edit");
});
