// A reply whose reported input is far below what pith sent means the endpoint cut the prompt.
import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateMessagesTokens } from "../../src/compaction/index.js";
import { detectTruncation } from "../../src/host/compaction/silent-truncation.js";
import { assistant, usage, user } from "../support/messages.js";

const big = user("word ".repeat(8000)); // ~10k tokens by pith's estimate

test("a report below 70% of the estimate is a cut prompt, with the window it implies", () => {
  const sent = estimateMessagesTokens([big]) + 500;
  const cut = detectTruncation([big, assistant("ok", [], usage(4000, 96))], 500);
  assert.ok(cut);
  assert.deepEqual([cut.reportedTokens, cut.estimatedTokens, cut.impliedWindow], [4000, sent, 4096]);
});

test("a report near the estimate, cache reads counted, is not a cut", () => {
  const sent = estimateMessagesTokens([big]);
  assert.equal(detectTruncation([big, assistant("ok", [], usage(Math.round(sent * 0.2), 10, Math.round(sent * 0.75)))], 0), undefined);
  assert.equal(detectTruncation([big, assistant("ok", [], usage(Math.round(sent * 0.94), 10))], 0), undefined);
});

test("small prompts, replies without usage and failed replies are never judged", () => {
  assert.equal(detectTruncation([user("hi"), assistant("hello", [], usage(3, 2))], 0), undefined);
  assert.equal(detectTruncation([big, assistant("ok", [], usage(0, 0))], 0), undefined);
  const failed = { ...assistant("", [], usage(100, 0)), stopReason: "error" as const };
  assert.equal(detectTruncation([big, failed], 0), undefined);
  assert.equal(detectTruncation([big], 0), undefined);
});

test("the newest reply is judged against only what preceded it", () => {
  const first = assistant("first", [], usage(10_500, 5));
  const later = user("short follow-up");
  assert.equal(detectTruncation([big, first, later, assistant("second", [], usage(10_600, 5))], 0), undefined);
  assert.ok(detectTruncation([big, first, later, assistant("second", [], usage(3000, 5))], 0));
});
