// The daemon flows of an abort while a run streams, calls a tool, runs one or waits to retry:
// the run ends aborted, nothing is left half-stored, nothing keeps running.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { hang, overloaded, textReply, toolUseReply } from "./fake-anthropic.js";
import { agentEnd, asEvent, asMessage, byType, orphanCalls, processWithArg, seqProblems, SMALL_MODEL, textOf } from "./daemon-client.js";
import { rebuild } from "./flow-deltas.js";
import type { FlowSessions } from "./flow-sessions.js";

/** Aborts in a run's phases (stream, tool call, tool, retry wait), over the transport. */
export function registerAbortFlowTests(flow: FlowSessions): void {
  test(`${flow.transport}: abort during a stream: agent_end aborted, the partial reply stored as aborted, the session goes on`, () => abortDuringStream(flow));
  test(`${flow.transport}: abort while a tool call streams: no tool call is left without a result`, () => abortWhileToolCallStreams(flow));
  test(`${flow.transport}: abort during a tool (bash sleep 30): the tool result is an error, agent_end aborted, no further model call, the process is gone`, () => abortDuringTool(flow));
  test(`${flow.transport}: abort during a retry wait (529 overloaded): retry_end aborted, agent_end aborted, no second attempt`, () => abortDuringRetryWait(flow));
}

async function abortDuringStream(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  const index = fake.requests.length;
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "This reply never finishes because the stream hangs here", chunkSize: 5 }] }, afterFrames: 6 }));
  const from = peer.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "tell me a story" });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "message_update" && e.delta.type === "text", "a text delta", from);
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: true });
  const events = await peer.runEvents(sessionId, runId, from);
  assert.deepEqual(seqProblems(events), []);
  const end = agentEnd(events);
  assert.equal(end.stopReason, "aborted");
  const replyEnd = byType(events, "message_end").find((e) => e.message.role === "assistant")!;
  assert.equal(asMessage(replyEnd.message, "assistant").stopReason, "aborted");
  assert.equal(typeof replyEnd.entryId, "string", "the partial reply is stored");
  assert.equal(textOf(replyEnd.message), rebuild(events).get(0), "what was streamed is what is stored");
  assert.equal((await fake.whenEnded(index)).how, "client_closed", "the daemon closed the stream");

  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => [m.role, "stopReason" in m ? m.stopReason : undefined]), [["user", undefined], ["assistant", "aborted"]]);
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: false }, "nothing runs any more");
  await flow.exchange(sessionId, "try again", textReply("fine this time"));
  assert.equal(fake.remaining(), 0);
}

async function abortWhileToolCallStreams(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  fake.enqueue(hang({ reply: { content: [{ type: "tool_use", name: "read", input: { path: "a.txt" }, chunkSize: 4 }] }, afterFrames: 6 }));
  const from = peer.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "read a.txt" });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "message_update" && e.delta.type === "toolcall_delta" && e.delta.text, "a tool call's JSON delta", from);
  await peer.request("abort", { sessionId });
  const events = await peer.runEvents(sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "aborted");
  assert.equal(byType(events, "tool_execution_end").filter((e) => !e.isError).length, 0, "the tool never ran");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(orphanCalls(messages), []);
  const lastReply = messages.filter((m) => m.role === "assistant").at(-1);
  assert.equal(lastReply?.stopReason, "aborted", "the partial reply is stored as aborted");
  assert.equal(fake.remaining(), 0);
}

async function abortDuringTool(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  const marker = `29.${String(process.pid).padStart(6, "0")}${Math.floor(Math.random() * 1000)}`;
  const command = `sleep ${marker}`;
  const firstRequest = fake.requests.length;
  fake.enqueue(toolUseReply("bash", { command }));
  const from = peer.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "wait a bit" });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "tool_execution_start", "tool_execution_start", from);
  // abort while the command really runs
  // the pid seen, not a second scan: one taken while the gate execs bwrap can find no command line
  let started: number | undefined;
  for (let i = 0; i < 100 && (started = processWithArg(command)) === undefined; i++) await sleep(20);
  assert.ok(started !== undefined, "the command started");
  // busy: what needs the session idle is refused while the tool runs
  const busy = await peer.request("getState", { sessionId });
  assert.equal(busy.isRunning, true);
  await peer.expectError("prompt", { sessionId, text: "another" }, -32011);
  await peer.expectError("compact", { sessionId }, -32011);
  await peer.expectError("navigateTree", { sessionId, targetId: busy.leafId }, -32011);
  await peer.expectError("setModel", { sessionId, model: SMALL_MODEL.id }, -32011);
  const t0 = Date.now();
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: true });
  const events = await peer.runEvents(sessionId, runId, from);
  assert.ok(Date.now() - t0 < 5000, "the abort did not wait for the command");
  assert.equal(agentEnd(events).stopReason, "aborted");
  const toolEnd = byType(events, "tool_execution_end");
  assert.equal(toolEnd.length, 1);
  assert.equal(toolEnd[0].isError, true);
  assert.match(textOf(toolEnd[0].result), /abort/i);
  assert.equal(fake.requests.length - firstRequest, 1, "no model call after the abort");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.deepEqual(orphanCalls(messages), []);
  let left: number | undefined;
  for (let i = 0; i < 100 && (left = processWithArg(command)) !== undefined; i++) await sleep(20);
  if (left !== undefined) process.kill(left, "SIGKILL"); // ours (the daemon started it): do not leak it
  assert.equal(left, undefined, `the aborted command (${command}) is no longer running`);
  assert.equal(fake.remaining(), 0);
}

async function abortDuringRetryWait(flow: FlowSessions): Promise<void> {
  const { peer, fake } = flow.ctx();
  const { sessionId } = await flow.newSession();
  const firstRequest = fake.requests.length;
  fake.enqueue(overloaded({ retryAfter: 1 }));
  const from = peer.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "are you busy?" });
  const start = asEvent(await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "retry_start", "retry_start", from), "retry_start");
  assert.equal(start.attempt, 1);
  assert.ok(start.maxAttempts >= 1);
  assert.ok(start.delayMs >= 1000, `delayMs ${start.delayMs} honours retry-after`);
  assert.equal(start.error.status, 529);
  assert.deepEqual(await peer.request("abort", { sessionId }), { aborted: true });
  const events = await peer.runEvents(sessionId, runId, from);
  assert.deepEqual(seqProblems(events), []);
  const retryEnd = byType(events, "retry_end");
  assert.deepEqual(retryEnd.map((e) => [e.attempt, e.aborted]), [[1, true]]);
  assert.equal(agentEnd(events).stopReason, "aborted");
  assert.equal(fake.requests.length - firstRequest, 1, "no second attempt");
  const { messages } = await peer.request("getMessages", { sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(asMessage(messages[1], "assistant").stopReason, "aborted");
  assert.equal(fake.remaining(), 0);
}
