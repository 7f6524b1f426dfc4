import assert from "node:assert/strict";
import { test } from "node:test";
import { contextTokens, estimateMessageTokens, estimateTextTokens } from "../../src/compaction/index.js";
import { SessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, call, result, usage, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";
import { charsOver4, estimatorError, usageDeltas } from "../support/usage-deltas.js";

test("on the real Pi session, the estimator tracks real usage far better than chars/4", { skip: fixtureSkip }, (t) => {
  const s = SessionFile.open(copyFixture(tempDir(t)), { readOnly: true });
  t.after(() => s.close());
  const deltas = usageDeltas(s.buildContext().messages);
  assert.ok(deltas.length > 400, `${deltas.length} usage deltas`);
  const ours = estimatorError(deltas, estimateMessageTokens);
  const pi = estimatorError(deltas, charsOver4);
  t.diagnostic(`pith estimator: MAPE ${(ours.mape * 100).toFixed(1)}%, median ${(ours.medianApe * 100).toFixed(1)}%, sum ratio ${ours.sumRatio.toFixed(3)}`);
  t.diagnostic(`chars/4:        MAPE ${(pi.mape * 100).toFixed(1)}%, median ${(pi.medianApe * 100).toFixed(1)}%, sum ratio ${pi.sumRatio.toFixed(3)}`);
  assert.ok(pi.sumRatio < 0.75, "chars/4 undercounts this session by a quarter or more");
  assert.ok(ours.sumRatio > 0.9 && ours.sumRatio < 1.1, `our total within 10% (${ours.sumRatio})`);
  assert.ok(ours.medianApe < pi.medianApe / 3, "typical error a third of chars/4's or less");
  assert.ok(ours.mape < pi.mape / 2);
});

test("JSON counts more per character than prose; images and tool calls carry framing", () => {
  const prose = "The quick brown fox jumps over the lazy dog and keeps running through the field.";
  const json = JSON.stringify({ a: [1, 2, 3], b: { c: "d", e: null }, f: [{ g: 1 }, { h: 2 }] });
  assert.ok(estimateTextTokens(json) / json.length > estimateTextTokens(prose) / prose.length);
  assert.ok(estimateTextTokens("日本語のテキスト") >= 8, "non-ASCII characters are about a token each");
  const withImage = estimateMessageTokens({ role: "user", content: [{ type: "image", data: "", mimeType: "image/png" }], timestamp: 0 });
  assert.ok(withImage >= 1000);
  assert.ok(estimateMessageTokens(assistant("", [call("c", "read", { path: "a" })])) > estimateMessageTokens(assistant("read a")));
});

test("context tokens: the last reliable usage plus estimates after it; stale, zero and aborted usage do not count", () => {
  const msgs = [user("hi"), assistant("one", [], usage(1000, 50, 0, 0)), user("more"), assistant("two", [], usage(500, 20, 4000, 100)), result("x", "read", "out")];
  const c = contextTokens(msgs);
  assert.equal(c.usageIndex, 3);
  assert.equal(c.usageTokens, 4620);
  assert.equal(c.tokens, 4620 + estimateMessageTokens(msgs[4]));

  const aborted = { ...assistant("partial", [], usage(9999, 1)), stopReason: "aborted" as const };
  const zero = assistant("zero", [], usage(0, 0));
  const c2 = contextTokens([...msgs, aborted, zero]);
  assert.equal(c2.usageIndex, 3, "aborted and zero usage fall back to the one before");

  // after a compaction (freshFrom = 2): usage of kept messages is from the old, larger context
  const compacted = [{ role: "compactionSummary" as const, summary: "S", tokensBefore: 9, timestamp: 0 }, assistant("kept", [], usage(150000, 10)), user("new")];
  const c3 = contextTokens(compacted, 2);
  assert.equal(c3.usageTokens, 0);
  assert.equal(c3.tokens, compacted.reduce((a, m) => a + estimateMessageTokens(m), 0));
});
