// The user's compaction threshold beside Pi's reserveTokens rule: up to 1 a fraction of the window
// in effect, above 1 a token count; whichever of the two comes first fires.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionSettings } from "../../protocol/settings.js";
import { compactionSettings, compactionThreshold, fitToWindow, shouldCompact, shouldPrepare } from "../../src/compaction/index.js";

const PI = 200_000 - 16_384;

test("a fraction is of the window given (the one in effect), a count is tokens; the lower of it and Pi's rule is the trigger", () => {
  assert.equal(compactionThreshold(200_000, compactionSettings()), PI, "no threshold: Pi's rule");
  assert.equal(compactionThreshold(200_000, compactionSettings({ threshold: 0.5 })), 100_000);
  assert.equal(compactionThreshold(50_000, compactionSettings({ threshold: 0.5 })), 25_000, "a learned, smaller window moves a fractional threshold with it");
  assert.equal(compactionThreshold(200_000, compactionSettings({ threshold: 1 })), PI, "1 is the whole window: the reserve comes first");
  assert.equal(compactionThreshold(200_000, compactionSettings({ threshold: 60_000 })), 60_000);
  assert.equal(compactionThreshold(200_000, compactionSettings({ threshold: 190_000 })), PI, "a count past the reserve's trigger: the reserve fires first");
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(compactionThreshold(200_000, compactionSettings({ threshold: bad })), PI, `ignored: ${bad}`);
});

test("shouldCompact and shouldPrepare follow the threshold", () => {
  const s = compactionSettings({ threshold: 0.5 });
  assert.equal(shouldCompact(100_000, 200_000, s), false);
  assert.equal(shouldCompact(100_001, 200_000, s), true, "fires at the set fraction, long before Pi's 183,616");
  assert.equal(shouldCompact(100_001, 200_000, { ...s, enabled: false }), false);
  assert.equal(shouldPrepare(80_001, 200_000, s), true, "the summary ahead of time starts at prepareAt of the user's threshold");
  assert.equal(shouldPrepare(79_999, 200_000, s), false);
});

test("fitToWindow keeps the verbatim part under the user's threshold", () => {
  const fitted = fitToWindow(compactionSettings({ threshold: 10_000 }), 200_000);
  assert.equal(fitted.threshold, 10_000);
  assert.equal(fitted.keepRecentTokens, 4_000, "40% of what lies under the trigger");
  assert.equal(fitToWindow(compactionSettings(), 200_000).keepRecentTokens, 20_000, "unchanged without one");
});

test("the settings file's threshold: positive, a whole number above 1", () => {
  const ok = (v: unknown) => CompactionSettings.partial().safeParse({ threshold: v }).success;
  for (const v of [0.25, 1, 2, 50_000]) assert.ok(ok(v), String(v));
  for (const v of [0, -0.5, -10, 1.5, Number.NaN, "0.5"]) assert.ok(!ok(v), String(v));
});
