// The daemon flows of an abort during a compaction, threshold or manual: it ends aborted and
// nothing is stored.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hang, textReply, toolUseReply } from "./fake-anthropic.js";
import { agentEnd, asEvent, bigText, byType, orphanCalls, poll, seqProblems, SMALL_MODEL } from "./daemon-client.js";
import type { FlowSessions } from "./flow-sessions.js";

/** Aborts during a threshold and a manual compaction, over the transport. */
export function registerAbortCompactionFlowTests(flow: FlowSessions): void {
  test(`${flow.transport}: abort during a threshold compaction (the summarizer hangs): compaction_end aborted, agent_end aborted last, nothing stored`, () => abortDuringThresholdCompaction(flow));
  test(`${flow.transport}: abort during a manual compaction: compact fails with -32016, compaction_end aborted, nothing stored`, () => abortDuringManualCompaction(flow));
}

async function abortDuringThresholdCompaction(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession({ model: SMALL_MODEL.id });
  await flow.exchange(sessionId, "hello there", textReply("hi"));
  const summarizer = fake.requests.length + 1;
  fake.enqueue(toolUseReply("read", { path: "a.txt" }, { usage: { input_tokens: 30_000 } }), hang());
  const from = peer.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: bigText("PROMPT-ABORT-COMPACTION") });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "compaction_start", "compaction_start", from);
  await poll(() => (fake.requests.length > summarizer ? true : undefined), "the summarizer request");
  const busy = await peer.request("getState", { sessionId });
  assert.equal(busy.isCompacting, true);
  assert.equal(busy.isRunning, true);
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: true });
  const events = await peer.runEvents(sessionId, runId, from);
  assert.deepEqual(seqProblems(events), []);
  const ends = byType(events, "compaction_end");
  assert.equal(ends.length, 1);
  assert.equal(ends[0].reason, "threshold");
  assert.equal(ends[0].aborted, true);
  assert.equal(ends[0].willRetry, false);
  assert.equal(ends[0].result, undefined);
  assert.equal(events.at(-1)!.type, "agent_end");
  assert.equal(agentEnd(events).stopReason, "aborted");
  assert.equal(byType(events.slice(events.indexOf(ends[0])), "turn_start").length, 0, "no model call after the abort");
  assert.equal((await fake.whenEnded(summarizer)).how, "client_closed");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user", "assistant", "toolResult"]);
  assert.deepEqual(orphanCalls(messages), []);
  const tree = await peer.request("getTree", { sessionId });
  assert.equal(tree.entries.filter((e) => e.type === "compaction").length, 0);
  const state = await peer.request("getState", { sessionId });
  assert.equal(state.isCompacting, false);
  assert.equal(state.isRunning, false);
  assert.equal(fake.remaining(), 0);
}

async function abortDuringManualCompaction(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  await flow.exchange(sessionId, "hello there", textReply("hi"));
  await flow.exchange(sessionId, bigText("PROMPT-MANUAL-ABORT"), textReply("noted"));
  const summarizer = fake.requests.length;
  fake.enqueue(hang());
  const from = peer.mark();
  const compacting = peer.call("compact", { sessionId });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "compaction_start", "compaction_start", from);
  await poll(() => (fake.requests.length > summarizer ? true : undefined), "the summarizer request");
  await peer.expectError("prompt", { sessionId, text: "while compacting" }, -32011);
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: true });
  const answer = await compacting;
  assert.equal(answer.error?.code, -32016, JSON.stringify(answer));
  const events = peer.sessionEvents(sessionId, from).filter((e) => e.type !== "compaction_update");
  assert.deepEqual(events.map((e) => e.type), ["compaction_start", "compaction_end"]);
  assert.equal(asEvent(events[1], "compaction_end").aborted, true);
  assert.equal(asEvent(events[1], "compaction_end").reason, "manual");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.equal((await peer.request("getState", { sessionId })).isCompacting, false);
  assert.equal(fake.remaining(), 0);
}
