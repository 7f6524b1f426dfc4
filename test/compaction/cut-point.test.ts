import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateMessageTokens, findCutPoint, prepareCompaction, compactionSettings, splitsToolPair } from "../../src/compaction/index.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, call, result, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

const ones = (msgs: AgentMessage[]) => msgs.map(() => 1);

test("walks back to keepRecentTokens and cuts at a user message", () => {
  const msgs = [user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f")];
  assert.deepEqual(findCutPoint(msgs, 0, 2, ones(msgs)), { firstKeptIndex: 4, turnStartIndex: -1, isSplitTurn: false });
  assert.deepEqual(findCutPoint(msgs, 0, 100, ones(msgs)), { firstKeptIndex: 0, turnStartIndex: -1, isSplitTurn: false }, "everything fits: no cut");
});

test("never at a tool result; inside a turn it is a split turn with the turn start", () => {
  const msgs = [user("a"), assistant("", [call("1", "read", { path: "x" })]), result("1", "read", "x"), assistant("", [call("2", "read", { path: "y" })]), result("2", "read", "y"), assistant("done")];
  // budget reached at index 4 (a tool result): the next allowed message is the final assistant one
  const cut = findCutPoint(msgs, 0, 2, ones(msgs));
  assert.deepEqual(cut, { firstKeptIndex: 5, turnStartIndex: 0, isSplitTurn: true });
  // budget reached at the last message, a tool result with nothing allowed after it: cut before it instead
  const tail = msgs.slice(0, 5);
  assert.deepEqual(findCutPoint(tail, 0, 1, ones(tail)), { firstKeptIndex: 3, turnStartIndex: 0, isSplitTurn: true });
});

test("a cut never separates a call from a result that comes later (a steer between them)", () => {
  const msgs: AgentMessage[] = [user("a"), assistant("", [call("1", "bash", { command: "sleep" })]), user("steer: stop that"), result("1", "bash", "skipped"), assistant("ok"), user("next"), assistant("fine")];
  assert.deepEqual(splitsToolPair(msgs), [false, false, true, true, false, false, false]);
  const cut = findCutPoint(msgs, 0, 4, ones(msgs)); // budget reached at index 3
  assert.ok(cut.firstKeptIndex === 4, `cut at ${cut.firstKeptIndex}`);
});

test("the previous summary (index 0) is never cut or summarized", () => {
  const msgs: AgentMessage[] = [{ role: "compactionSummary", summary: "S", tokensBefore: 1, timestamp: 0 }, user("a"), assistant("b")];
  assert.equal(findCutPoint(msgs, 1, 1, ones(msgs)).firstKeptIndex, 2);
  assert.equal(findCutPoint(msgs, 1, 10, ones(msgs)).firstKeptIndex, 1);
});

test("on the real Pi session: a cut at an allowed message about keepRecentTokens from the end", { skip: fixtureSkip }, (t) => {
  const s = SessionFile.open(copyFixture(tempDir(t)), { readOnly: true });
  t.after(() => s.close());
  const ctx = s.buildContext();
  const settings = compactionSettings();
  const out = prepareCompaction({ messages: ctx.messages, entryIds: ctx.entryIds, freshFrom: ctx.freshFrom }, settings, "threshold");
  assert.ok(out.ok);
  const p = out.preparation;
  const kept = ctx.messages.slice(p.firstKeptIndex);
  const keptTokens = kept.reduce((a, m) => a + estimateMessageTokens(m), 0);
  t.diagnostic(`first kept message ${p.firstKeptIndex} of ${ctx.messages.length} (${ctx.messages[p.firstKeptIndex].role}), kept ~${keptTokens} tokens, split turn ${p.isSplitTurn}, history ${p.historyMessages.length} messages, turn prefix ${p.turnPrefixMessages.length}`);
  t.diagnostic(`tokensBefore ${p.tokensBefore}, projected after ${p.projectedTokensAfter}; files read ${p.fileLists.readFiles.length}, modified ${p.fileLists.modifiedFiles.length}; user messages carried ${p.userMessages.length}`);
  assert.notEqual(ctx.messages[p.firstKeptIndex].role, "toolResult");
  assert.ok(keptTokens >= settings.keepRecentTokens && keptTokens < settings.keepRecentTokens + 15000);
  assert.equal(p.tokensBefore, 177657, "the last real usage (Pi reports the same)");
  assert.equal(p.historyMessages.length + p.turnPrefixMessages.length + kept.length, ctx.messages.length);
  assert.ok(p.fileLists.modifiedFiles.length > 0 && p.fileLists.readFiles.length > 0);
  for (const f of p.fileLists.readFiles) assert.ok(!p.fileLists.modifiedFiles.includes(f));
});
