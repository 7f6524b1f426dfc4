// The daemon flows of compaction: at the threshold inside a run, on overflow (then the retried
// call), and on request with instructions.
import assert from "node:assert/strict";
import { test } from "node:test";
import { promptTooLong, textReply, toolUseReply } from "./fake-anthropic.js";
import { asEvent, asMessage, bigText, byType, orphanCalls, seqProblems, shape, SMALL_MODEL, textOf } from "./daemon-client.js";
import type { FlowSessions } from "./flow-sessions.js";

/** Threshold, overflow and manual compaction, over the transport. */
export function registerCompactionFlowTests(flow: FlowSessions): void {
  test(`${flow.transport}: threshold compaction inside a run (small model, usage past the window): compaction_start/end between turns, agent_end last`, () => thresholdCompactionInARun(flow));
  test(`${flow.transport}: overflow recovery: prompt too long, then a compaction (willRetry), then the retried call succeeds`, () => overflowRecovery(flow));
  test(`${flow.transport}: manual compact {instructions}: the instructions reach the summarizer; result and events agree`, () => manualCompactWithInstructions(flow));
}

async function thresholdCompactionInARun(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId, state } = await flow.newSession({ model: SMALL_MODEL.id });
  assert.equal(state.model.id, SMALL_MODEL.id);
  assert.equal(state.contextWindow, SMALL_MODEL.contextWindow, "the settings' model window");
  const first = await flow.exchange(sessionId, "hello there", textReply("hi, what do you need?"));
  assert.equal(byType(first, "compaction_start").length, 0);
  const firstRequest = fake.requests.length;
  const events = await flow.exchange(
    sessionId,
    bigText("PROMPT-TWO"),
    toolUseReply("read", { path: "a.txt" }, { usage: { input_tokens: 30_000 } }),
    textReply("SUMMARY-T: the user said hello, then asked a long question."),
    textReply("Finished after the compaction."),
  );
  assert.deepEqual(
    shape(events),
    [
      "agent_start", "message_start", "message_end",
      "turn_start", "message_start", "message_update+", "message_end", "tool_execution_start", "tool_execution_end", "turn_end",
      "compaction_start", "compaction_update+", "compaction_end", "usage_update",
      "turn_start", "message_start", "message_update+", "message_end", "turn_end",
      "usage_update", "agent_end",
    ],
  );
  assert.deepEqual(seqProblems(events), []);
  const start = byType(events, "compaction_start")[0];
  const end = byType(events, "compaction_end")[0];
  assert.equal(start.reason, "threshold");
  assert.ok(start.tokensBefore > SMALL_MODEL.contextWindow - 16_384, `tokensBefore ${start.tokensBefore} is past the threshold`);
  assert.equal(end.reason, "threshold");
  assert.equal(end.aborted, false);
  assert.equal(end.willRetry, false);
  assert.equal(end.error, undefined);
  assert.match(end.result!.summary, /SUMMARY-T/);
  const userTwo = byType(events, "message_end").find((e) => e.message.role === "user")!;
  assert.equal(end.result!.firstKeptEntryId, userTwo.entryId, "the cut keeps the big prompt and what followed");
  assert.equal(end.result!.tokensBefore, start.tokensBefore);
  const usageAfter = asEvent(events[events.indexOf(end) + 1], "usage_update");
  assert.ok(usageAfter.contextTokens < start.tokensBefore, "usage_update after the compaction shows a smaller context");

  // the summarizer's request went to the fake server too: no tools, the history in it
  const sent = fake.requests.slice(firstRequest);
  assert.equal(sent.length, 3);
  assert.ok(!sent[1].body.tools || sent[1].body.tools.length === 0, "the summarizer request has no tools");
  assert.match(sent[1].rawBody, /hello there/);
  assert.doesNotMatch(JSON.stringify(sent[2].body.messages), /what do you need/, "the next model call no longer carries the summarized history");
  assert.match(JSON.stringify(sent[2].body.messages), /SUMMARY-T/);

  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["compactionSummary", "user", "assistant", "toolResult", "assistant"]);
  assert.equal(asMessage(messages[0], "compactionSummary").summary, end.result!.summary);
  assert.deepEqual(orphanCalls(messages), []);
  const tree = await peer.request("getTree", { sessionId });
  assert.equal(tree.entries.filter((e) => e.type === "compaction").length, 1);
  const after = await peer.request("getState", { sessionId });
  assert.equal(after.messageCount, 5);
  assert.ok(after.contextTokens < SMALL_MODEL.contextWindow - 16_384, `context ${after.contextTokens} is under the threshold again`);
  assert.equal(fake.remaining(), 0);
}

async function overflowRecovery(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  await flow.exchange(sessionId, "hello there", textReply("hi", { usage: { input_tokens: 100_000 } }));
  const firstRequest = fake.requests.length;
  const events = await flow.exchange(sessionId, bigText("PROMPT-OVERFLOW"), promptTooLong(), textReply("SUMMARY-O: a greeting happened."), textReply("Recovered after the compaction."));
  assert.deepEqual(seqProblems(events), []);
  assert.equal(events.at(-1)!.type, "agent_end");
  const start = byType(events, "compaction_start");
  const end = byType(events, "compaction_end");
  assert.equal(start.length, 1);
  assert.equal(end.length, 1);
  assert.equal(start[0].reason, "overflow");
  assert.equal(end[0].reason, "overflow");
  assert.equal(end[0].aborted, false);
  assert.equal(end[0].willRetry, true, "compaction_end says the call is retried");
  assert.match(end[0].result!.summary, /SUMMARY-O/);
  const retried = byType(events, "message_end").filter((e) => e.willRetry);
  assert.equal(retried.length, 1, "the failed attempt ends with willRetry");
  assert.equal(retried[0].entryId, undefined, "and is not stored");
  assert.ok(events.indexOf(end[0]) < events.indexOf(retried[0]), "the compaction comes before the failed attempt's message_end");
  const stored = byType(events, "message_end").filter((e) => e.message.role === "assistant" && e.entryId);
  assert.equal(stored.length, 1);
  assert.equal(textOf(stored[0].message), "Recovered after the compaction.");
  assert.ok(events.indexOf(stored[0]) > events.indexOf(retried[0]));
  assert.equal(byType(events, "error").length, 0, "no error event: the run recovered");
  assert.equal(byType(events, "turn_start").length, 1, "the retry is the same turn");

  const sent = fake.requests.slice(firstRequest);
  assert.equal(sent.length, 3);
  assert.match(sent[1].rawBody, /hello there/, "the summarizer saw the history");
  assert.match(JSON.stringify(sent[2].body.messages), /SUMMARY-O/, "the retried call carries the summary");
  assert.match(JSON.stringify(sent[2].body.messages), /PROMPT-OVERFLOW/, "and the kept prompt");

  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["compactionSummary", "user", "assistant"]);
  assert.equal(asMessage(messages[2], "assistant").stopReason, "stop");
  assert.equal(fake.remaining(), 0);
}

async function manualCompactWithInstructions(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  // a long first reply: the summarized span is worth compacting even with the system prompt and tools counted
  await flow.exchange(sessionId, "hello there", textReply(`hi ${"and welcome ".repeat(400)}`));
  const second = await flow.exchange(sessionId, bigText("PROMPT-MANUAL"), textReply("noted"));
  const userTwo = byType(second, "message_end").find((e) => e.message.role === "user")!;
  const firstRequest = fake.requests.length;
  fake.enqueue(textReply("SUMMARY-M: greeting, then a long request."));
  const from = peer.mark();
  const result = await peer.request("compact", { sessionId, instructions: "Keep the ZEBRA-42 detail" });
  assert.match(result.summary, /SUMMARY-M/);
  assert.equal(result.firstKeptEntryId, userTwo.entryId);
  assert.ok(result.tokensBefore > 0 && result.tokensAfter > 0, JSON.stringify(result));
  assert.ok(result.tokensAfter < result.tokensBefore, `tokensAfter ${result.tokensAfter} < tokensBefore ${result.tokensBefore}`);
  assert.ok(Array.isArray(result.details.readFiles) && Array.isArray(result.details.modifiedFiles), JSON.stringify(result.details));
  assert.deepEqual(result.details.userMessages, ["hello there"]);

  const all = peer.sessionEvents(sessionId, from);
  assert.deepEqual(seqProblems([second.at(-1)!, ...all]), []);
  const events = all.filter((e) => e.type !== "compaction_update");
  assert.deepEqual(events.map((e) => e.type), ["compaction_start", "compaction_end", "usage_update"], "every event came before the answer");
  const [start, end, usage] = [asEvent(events[0], "compaction_start"), asEvent(events[1], "compaction_end"), asEvent(events[2], "usage_update")];
  assert.equal(start.reason, "manual");
  assert.equal(start.tokensBefore, result.tokensBefore);
  assert.equal(end.reason, "manual");
  assert.equal(end.aborted, false);
  assert.equal(end.willRetry, false);
  assert.deepEqual(end.result, result);
  // the summary streamed between start and end, under the same compactionId
  const updates = byType(all, "compaction_update");
  assert.equal(typeof start.compactionId, "string");
  assert.ok(updates.every((u) => u.compactionId === start.compactionId && u.reason === "manual"));
  assert.deepEqual([...new Set(updates.map((u) => u.phase))], ["summarizing", "chunk", "applying"]);
  assert.equal(end.compactionId, start.compactionId);
  const streamed = updates.map((u) => u.delta ?? "").join("");
  assert.equal(streamed, "SUMMARY-M: greeting, then a long request.", "the deltas make the model's summary");
  assert.ok(result.summary.startsWith(streamed), "which opens the stored summary (pith's own sections follow)");

  const sent = fake.requests.slice(firstRequest);
  assert.equal(sent.length, 1);
  assert.match(sent[0].rawBody, /ZEBRA-42/, "the instructions are in the summarizer request");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["compactionSummary", "user", "assistant"]);
  assert.equal(asMessage(messages[0], "compactionSummary").summary, result.summary);
  const state = await peer.request("getState", { sessionId });
  assert.equal(state.contextTokens, usage.contextTokens);
  assert.equal(fake.remaining(), 0);
}
