// The daemon flow of a prompt with tool use (read, bash, text), checked end to end: the events
// in order, the answer after the user message, the store and what the model was sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { textReply, toolUseReply, type FakeAnthropic } from "./fake-anthropic.js";
import type { AgentMessage, ResultOf } from "../../protocol/index.js";
import { agentEnd, byType, orphanCalls, seqProblems, shape, textOf, type Ev, type EvOf, type RpcPeer, type WireMessage } from "./daemon-client.js";
import { checkDeltas } from "./flow-deltas.js";
import type { FlowSessions } from "./flow-sessions.js";

/** A prompt with tool use, over the transport. */
export function registerPromptFlowTests(flow: FlowSessions): void {
  test(`${flow.transport}: a prompt with tool use (read, bash, text): events in order with seq +1, answered after the user message, store consistent`, () => promptWithTools(flow));
}

async function promptWithTools(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId, state } = await flow.newSession();
  assert.equal(state.messageCount, 0);
  assert.equal(state.leafId, null);
  const firstRequest = fake.requests.length;
  fake.enqueue(toolUseReply("read", { path: "a.txt" }, { text: "Let me look at the file." }), toolUseReply("bash", { command: "echo from-bash" }), textReply("All done: the file says hello."));
  const from = peer.mark();
  const receivedFrom = peer.received.length;
  const { runId } = await peer.request("prompt", { sessionId, text: "What does a.txt say?" });
  assert.equal(typeof runId, "string");
  const events = await peer.runEvents(sessionId, runId, from);

  checkAnsweredAfterUserMessage(peer.received.slice(receivedFrom), runId);
  const starts = checkToolRunEvents(events, runId);
  await checkStoreAsAnnounced(peer, sessionId, events);
  checkToolResultsSent(fake.requests.slice(firstRequest), starts);
  assert.equal(fake.remaining(), 0);
}

/** The answer comes once the user message is stored: after agent_start and its message_start / message_end. */
function checkAnsweredAfterUserMessage(received: readonly WireMessage[], runId: string): void {
  const answerAt = received.findIndex((m) => (m.result as ResultOf<"prompt"> | undefined)?.runId === runId);
  const userEndAt = received.findIndex((m) => m.method === "message_end" && m.params.message.role === "user");
  assert.ok(userEndAt >= 0 && answerAt > userEndAt, `prompt answered (at ${answerAt}) after the user's message_end (at ${userEndAt})`);
  assert.deepEqual(
    received.slice(0, userEndAt + 1).map((m) => m.method),
    ["agent_start", "message_start", "message_end"],
  );
}

/** The run's events: three turns (read, bash, text) in order, seq +1, the tools' starts and ends paired; returns the starts. */
function checkToolRunEvents(events: readonly Ev[], runId: string): EvOf<"tool_execution_start">[] {
  assert.deepEqual(
    shape(events).filter((s) => s !== "tool_execution_update+"),
    [
      "agent_start", "message_start", "message_end",
      "turn_start", "message_start", "message_update+", "message_end", "tool_execution_start", "tool_execution_end", "turn_end",
      "turn_start", "message_start", "message_update+", "message_end", "tool_execution_start", "tool_execution_end", "turn_end",
      "turn_start", "message_start", "message_update+", "message_end", "turn_end",
      "usage_update", "agent_end",
    ],
  );
  assert.equal(events[0].seq, 1, "a new session's first event has seq 1");
  assert.deepEqual(seqProblems(events), []);
  for (const e of events) if (e.type !== "usage_update") assert.equal("runId" in e ? e.runId : undefined, runId, `${e.type} carries the runId`);
  assert.deepEqual(byType(events, "turn_start").map((e) => e.turn), [1, 2, 3]);
  checkDeltas(events);
  const updates = byType(events, "tool_execution_update");
  for (const u of updates) assert.equal(u.toolName, "bash", "only bash streams output");

  const toolEnds = byType(events, "tool_execution_end");
  assert.deepEqual(toolEnds.map((e) => [e.toolName, e.isError]), [["read", false], ["bash", false]]);
  assert.match(textOf(toolEnds[0].result), /hello from a\.txt/);
  assert.match(textOf(toolEnds[1].result), /from-bash/);
  const starts = byType(events, "tool_execution_start");
  assert.deepEqual(starts.map((e) => e.args), [{ path: "a.txt" }, { command: "echo from-bash" }]);
  for (const [i, s] of starts.entries()) assert.equal(s.toolCallId, toolEnds[i].toolCallId);

  const end = agentEnd(events);
  assert.equal(end.stopReason, "stop");
  assert.equal(end.error, undefined);
  const sumInput = byType(events, "turn_end").reduce((a, e) => a + e.usage.input, 0);
  assert.equal(end.usage.input, sumInput, "agent_end usage sums the turns");
  return starts;
}

/** The store: exactly the announced messages, in order, as announced. */
async function checkStoreAsAnnounced(peer: RpcPeer, sessionId: string, events: readonly Ev[]): Promise<void> {
  const announced: Array<{ message: AgentMessage; entryId: string | undefined }> = [];
  for (const e of events) {
    if (e.type === "message_end") announced.push({ message: e.message, entryId: e.entryId });
    if (e.type === "tool_execution_end") announced.push({ message: e.result, entryId: e.entryId });
  }
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
  assert.deepEqual(messages, announced.map((a) => a.message));
  assert.deepEqual(orphanCalls(messages), []);
  const tree = await peer.request("getTree", { sessionId });
  assert.deepEqual(tree.entries.map((e) => e.id), announced.map((a) => a.entryId));
  assert.deepEqual(tree.entries.map((e) => e.role), messages.map((m) => m.role));
  tree.entries.forEach((e, i) => assert.equal(e.parentId, i === 0 ? null : announced[i - 1].entryId, "a linear path"));
  assert.equal(tree.leafId, announced.at(-1)!.entryId);
  const after = await peer.request("getState", { sessionId });
  assert.equal(after.isRunning, false);
  assert.equal(after.messageCount, 6);
  assert.equal(after.leafId, tree.leafId);
  assert.equal(after.contextTokens, byType(events, "usage_update")[0].contextTokens);
}

/** What the model was sent: the tool results go back with their call ids. */
function checkToolResultsSent(sent: FakeAnthropic["requests"], starts: readonly EvOf<"tool_execution_start">[]): void {
  assert.equal(sent.length, 3);
  const lastUser = sent[1].body.messages.at(-1);
  assert.equal(lastUser.role, "user");
  const toolResult = lastUser.content.find((b: { type?: string }) => b.type === "tool_result");
  assert.equal(toolResult.tool_use_id, starts[0].toolCallId);
  assert.match(JSON.stringify(toolResult.content), /hello from a\.txt/);
}
