// Compaction over a session Pi 1.5.2 edited: the span summarized is the edited context, as in Pi
// 1.5.2's prepareCompaction (which works on its projection): a message left out is neither
// summarized nor a place to cut, a replaced one is summarized with its replacement, and the
// context after the compaction keeps the edits of the kept part. Branch summaries read edits too.
import assert from "node:assert/strict";
import { test } from "node:test";
import { appendCompaction, compactionInputOf, compactionSettings, prepareBranchSummary, prepareCompaction } from "../../src/compaction/index.js";
import { SessionFile } from "../../src/session/index.js";
import { copyContextEditFixture } from "../support/context-edit-fixtures.js";
import { tempDir } from "../support/tmp.js";

const text = (m: unknown) => JSON.stringify((m as { content: unknown }).content);

test("the span of a compaction is the edited context: the left-out message is not summarized, the replaced one is, replaced", (t) => {
  const s = SessionFile.open(copyContextEditFixture("omit-and-replace", tempDir(t)));
  t.after(() => s.close());
  const out = prepareCompaction(compactionInputOf(s), compactionSettings({ keepRecentTokens: 5, minSavingsFraction: 0 }), "manual");
  assert.ok(out.ok, out.ok ? "" : out.message);
  const p = out.preparation;
  // what Pi 1.5.2's prepareCompaction makes of the same file with keepRecentTokens 5
  assert.equal(p.firstKeptEntryId, "e0000006");
  assert.equal(p.isSplitTurn, true);
  assert.deepEqual(p.historyMessages.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.deepEqual(p.turnPrefixMessages.map((m) => m.role), ["user"]);
  assert.match(text(p.historyMessages[2]), /2 lines, left out/);
  const all = JSON.stringify([...p.historyMessages, ...p.turnPrefixMessages, ...p.keptMessages]);
  assert.doesNotMatch(all, /export const a = 1/, "the replaced output is not summarized");
  assert.doesNotMatch(all, /It exports a constant/, "the left-out message is not summarized");

  // after the compaction, the edits of the kept part still apply
  appendCompaction(s, { summary: "## Goal\nread a.ts", firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore, details: { readFiles: [], modifiedFiles: [], userMessages: [] } });
  assert.deepEqual(s.buildContext().messages.map((m) => m.role), ["compactionSummary", "assistant"]);
});

test("a cut never lands on a left-out message: with the cut given at it, the compaction refuses", (t) => {
  const s = SessionFile.open(copyContextEditFixture("omit-and-replace", tempDir(t)), { readOnly: true });
  t.after(() => s.close());
  const out = prepareCompaction(compactionInputOf(s), compactionSettings({ minSavingsFraction: 0 }), "manual", { firstKeptEntryId: "e0000004" });
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.code, "cut_not_found");
});

test("a branch summary reads the branch's own edits: the edited messages are summarized as edited", (t) => {
  const s = SessionFile.open(copyContextEditFixture("last-edit-wins", tempDir(t)), { readOnly: true });
  t.after(() => s.close());
  // leaving the edited tip for e0000004: e0000005 and e0000006 (each replaced) and the edits are left
  const prep = prepareBranchSummary(s.branchPath(s.leafId), s.branchPath("e0000004"), 10_000);
  assert.ok(prep);
  assert.equal(prep.commonAncestorId, "e0000004");
  assert.deepEqual(prep.messages.map(text), [JSON.stringify("and what does b.ts export?"), JSON.stringify([{ type: "text", text: "b.ts has no exports." }])]);
});
