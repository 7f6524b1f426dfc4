// The prune batch rule (src/compaction/prune.ts), pure: nothing until minPruneTokens can be freed
// from the outputs older than the newest keepToolTokens, then all of them at once; an output
// already left out is never edited again, so the next batch waits until enough new old output
// has piled up.
import assert from "node:assert/strict";
import { test } from "node:test";
import { planPrune, prunePlaceholder, pruneToolOutputs } from "../../src/compaction/index.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { assistant, call, result, user } from "../support/messages.js";

/** `rounds` tool calls, each output about `tokens` estimated tokens (4 characters a token) */
function history(rounds: number, tokens: number, from = 0): AgentMessage[] {
  const out: AgentMessage[] = from === 0 ? [user("go")] : [];
  for (let i = from; i < from + rounds; i++) {
    out.push(assistant("", [call(`c${i}`, "read", { path: `f${i}` })]));
    out.push(result(`c${i}`, "read", `output ${i} ` + "x".repeat(tokens * 4)));
  }
  return out;
}

const settings = { enabled: true, keepToolTokens: 2500, minPruneTokens: 2500 };

test("nothing is pruned until the old outputs free minPruneTokens; then all of them at once, oldest first", () => {
  // 3 outputs of ~1000: the newest two are kept, the oldest would free < 2500
  assert.deepEqual(planPrune(history(3, 1000), settings), { edits: [], freedTokens: 0 });
  // 5 outputs: the newest two kept, the three older go together
  const messages = history(5, 1000);
  const plan = planPrune(messages, settings);
  assert.deepEqual(plan.edits.map((e) => e.index), [2, 4, 6]);
  assert.ok(plan.freedTokens >= 2500, String(plan.freedTokens));
  assert.ok(plan.edits.every((e) => e.toolName === "read" && e.tokens > 1000 && e.text === prunePlaceholder("read", e.tokens)));
});

test("the newest keepToolTokens stay; everything older goes even if it would fit", () => {
  // newest 2000, then 1000 (over the 2500 kept), then a small 100 that would fit the remainder
  const messages = [user("go"), ...history(1, 100, 0).slice(1), ...history(1, 1000, 1), ...history(1, 2000, 2), ...history(1, 2000, 3)];
  const plan = planPrune(messages, { enabled: true, keepToolTokens: 2500, minPruneTokens: 0 });
  const pruned = plan.edits.map((e) => (messages[e.index] as { toolCallId: string }).toolCallId);
  assert.deepEqual(pruned, ["c0", "c1", "c2"]);
});

test("an output already left out is not edited again: the next batch waits for enough new old output", () => {
  const first = pruneToolOutputs(history(5, 1000), settings);
  assert.equal(first.prunedCount, 3);
  assert.equal(planPrune(first.messages, settings).edits.length, 0, "the same context: nothing more to do");
  // two more outputs push two kept ones out: ~2000 < 2500, still nothing
  const more = [...first.messages, ...history(2, 1000, 5)];
  assert.equal(planPrune(more, settings).edits.length, 0);
  // a third: three newly old outputs free enough, and only they are edited
  const enough = [...more, ...history(1, 1000, 7)];
  const plan = planPrune(enough, settings);
  assert.deepEqual(plan.edits.map((e) => (enough[e.index] as { toolCallId: string }).toolCallId), ["c3", "c4", "c5"]);
});

test("an output not much bigger than its placeholder is left alone", () => {
  assert.equal(planPrune(history(30, 40), { enabled: true, keepToolTokens: 100, minPruneTokens: 0 }).edits.length, 0);
});

test("outputs the model has not seen yet (after its last reply) stay, however big", () => {
  const messages = history(3, 5000);
  const plan = planPrune(messages, { enabled: true, keepToolTokens: 1000, minPruneTokens: 0 });
  assert.deepEqual(plan.edits.map((e) => e.index), [2, 4], "the newest (index 6) is the model's next input");
});

test("off, or too little to free: no edits; the placeholder says what was left out and how to get it back", () => {
  assert.equal(planPrune(history(10, 1000), { ...settings, enabled: false }).edits.length, 0);
  assert.equal(planPrune(history(10, 1000), { ...settings, minPruneTokens: 10 ** 6 }).edits.length, 0);
  assert.equal(prunePlaceholder("read", 1234), "[older output of read left out to save context (about 1234 tokens); read the file again if it is needed]");
  assert.match(prunePlaceholder("bash", 9), /output of bash .*run the command again/);
  assert.match(prunePlaceholder("grep", 9), /output of grep .*call grep again/);
});

test("a cold cache (no request for its life) prunes without waiting for a full batch", () => {
  const messages = history(3, 1000); // the oldest output alone: under minPruneTokens
  assert.equal(planPrune(messages, settings).edits.length, 0);
  assert.equal(planPrune(messages, settings, { cacheCold: false }).edits.length, 0);
  assert.deepEqual(planPrune(messages, settings, { cacheCold: true }).edits.map((e) => e.index), [2]);
  assert.equal(planPrune(history(2, 1000), settings, { cacheCold: true }).edits.length, 0, "what is kept stays kept");
});
