// The end-to-end flows every transport must carry the same way, registered once per transport
// (test/daemon/stdio.test.ts, test/daemon/ws.test.ts): a prompt with tool use, threshold and
// overflow compaction, manual compaction, a tree move with a branch summary, and aborts in every
// phase (stream, tool, compaction). The daemon talks to the fake Messages API; every test
// enqueues exactly the scenarios it consumes and works in its own session.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { hang, overloaded, promptTooLong, textReply, toolUseReply, type FakeAnthropic } from "./fake-anthropic.js";
import type { AgentMessage, ParamsOf, ResultOf } from "../../protocol/index.js";
import { agentEnd, asEvent, asMessage, bigText, byType, orphanCalls, poll, processWithArg, seqProblems, shape, SMALL_MODEL, textOf, type Ev, type RpcPeer } from "./daemon-client.js";

export interface FlowContext {
  fake: FakeAnthropic;
  /** an initialized client */
  peer: RpcPeer;
  /** the sessions' working directory; holds a.txt ("hello from a.txt") */
  cwd: string;
}

/** Sends fake requests until the queue is empty (after a failed test left scenarios behind). */
export async function drainFake(fake: FakeAnthropic): Promise<void> {
  for (let i = 0; i < 20 && fake.remaining() > 0; i++) {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 300);
    try {
      const r = await fetch(`${fake.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "drain", stream: false, messages: [] }), signal: ac.signal });
      await r.text();
    } catch {
      /* a hang scenario: aborted */
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Text and tool-call arguments rebuilt from message_update deltas, per content index. */
export function rebuild(events: readonly Ev[]): Map<number, string> {
  const parts = new Map<number, string>();
  for (const e of events) {
    if (e.type !== "message_update") continue;
    const d = e.delta;
    if (d.type === "text" || d.type === "thinking" || d.type === "toolcall_delta") parts.set(d.contentIndex, (parts.get(d.contentIndex) ?? "") + (d.text ?? ""));
  }
  return parts;
}

/** Splits a run's events into the assistant replies: message_start .. message_end of role assistant. */
function replies(events: readonly Ev[]): Ev[][] {
  const out: Ev[][] = [];
  let current: Ev[] | null = null;
  for (const e of events) {
    if (e.type === "message_start" && e.message?.role === "assistant") current = [e];
    else if (current) {
      current.push(e);
      if (e.type === "message_end") {
        out.push(current);
        current = null;
      }
    }
  }
  return out;
}

/** Every assistant reply's deltas rebuild exactly the content message_end carries. */
function checkDeltas(events: readonly Ev[]): void {
  for (const r of replies(events)) {
    const end = asEvent(r.at(-1), "message_end");
    const reply = asMessage(end.message, "assistant");
    if (reply.stopReason === "aborted" || end.willRetry) continue;
    const rebuilt = rebuild(r);
    reply.content.forEach((b, i) => {
      if (b.type === "text") assert.equal(rebuilt.get(i), b.text, `text block ${i} rebuilt from deltas`);
      if (b.type === "toolCall") assert.deepEqual(JSON.parse(rebuilt.get(i) || "{}"), b.arguments, `tool call ${i} arguments rebuilt from deltas`);
    });
  }
}

/** Registers the flow tests; `ctx` is called inside each test (after the file's before hook). */
export function registerFlowTests(transport: string, ctx: () => FlowContext): void {
  const opened: string[] = [];

  async function newSession(params: ParamsOf<"createSession"> = {}): Promise<ResultOf<"createSession">> {
    const { peer, cwd } = ctx();
    const r = await peer.request("createSession", { cwd, ...params });
    opened.push(r.sessionId);
    return r;
  }

  async function waitIdle(sessionId: string): Promise<ResultOf<"getState">> {
    const { peer } = ctx();
    for (let i = 0; i < 100; i++) {
      const s = await peer.request("getState", { sessionId });
      if (!s.isRunning && !s.isCompacting) return s;
      await sleep(20);
    }
    assert.fail(`session ${sessionId} is still busy after 2 s`);
  }

  /** Runs a prompt whose replies are the given scenarios and checks it ended with stop. */
  async function exchange(sessionId: string, text: string, ...scenarios: Parameters<FakeAnthropic["enqueue"]>): Promise<Ev[]> {
    const { peer, fake } = ctx();
    fake.enqueue(...scenarios);
    const run = await peer.runPrompt(sessionId, text);
    assert.equal(agentEnd(run.events).stopReason, "stop", `run of "${text.slice(0, 30)}" ended: ${JSON.stringify(run.events.at(-1))}`);
    return run.events;
  }

  afterEach(async () => {
    const { peer, fake } = ctx();
    // leave nothing running into the next test, whatever happened in this one
    for (const sessionId of opened.splice(0)) {
      if (peer.isClosed) break;
      await peer.call("abort", { sessionId }).catch(() => undefined);
      await waitIdle(sessionId).catch(() => undefined);
      await peer.call("closeSession", { sessionId }).catch(() => undefined);
    }
    await drainFake(fake);
    const violations = peer.violations.splice(0);
    assert.deepEqual(violations, [], "events and results match the protocol's schemas");
  });

  test(`${transport}: a prompt with tool use (read, bash, text): events in order with seq +1, answered after the user message, store consistent`, async () => {
    const { peer, fake } = ctx();
    const { sessionId, state } = await newSession();
    assert.equal(state.messageCount, 0);
    assert.equal(state.leafId, null);
    const firstRequest = fake.requests.length;
    fake.enqueue(toolUseReply("read", { path: "a.txt" }, { text: "Let me look at the file." }), toolUseReply("bash", { command: "echo from-bash" }), textReply("All done: the file says hello."));
    const from = peer.mark();
    const receivedFrom = peer.received.length;
    const { runId } = await peer.request("prompt", { sessionId, text: "What does a.txt say?" });
    assert.equal(typeof runId, "string");
    const events = await peer.runEvents(sessionId, runId, from);

    // the answer comes once the user message is stored: after agent_start and its message_start / message_end
    const received = peer.received.slice(receivedFrom);
    const answerAt = received.findIndex((m) => (m.result as ResultOf<"prompt"> | undefined)?.runId === runId);
    const userEndAt = received.findIndex((m) => m.method === "message_end" && m.params.message.role === "user");
    assert.ok(userEndAt >= 0 && answerAt > userEndAt, `prompt answered (at ${answerAt}) after the user's message_end (at ${userEndAt})`);
    assert.deepEqual(
      received.slice(0, userEndAt + 1).map((m) => m.method),
      ["agent_start", "message_start", "message_end"],
    );

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

    // the store: exactly the announced messages, in order, as announced
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

    // what the model was sent: the tool results go back with their call ids
    const sent = fake.requests.slice(firstRequest);
    assert.equal(sent.length, 3);
    const lastUser = sent[1].body.messages.at(-1);
    assert.equal(lastUser.role, "user");
    const toolResult = lastUser.content.find((b: { type?: string }) => b.type === "tool_result");
    assert.equal(toolResult.tool_use_id, starts[0].toolCallId);
    assert.match(JSON.stringify(toolResult.content), /hello from a\.txt/);
    assert.equal(fake.remaining(), 0);
  });

  test(`${transport}: threshold compaction inside a run (small model, usage past the window): compaction_start/end between turns, agent_end last`, async () => {
    const { peer, fake } = ctx();
    const { sessionId, state } = await newSession({ model: SMALL_MODEL.id });
    assert.equal(state.model.id, SMALL_MODEL.id);
    assert.equal(state.contextWindow, SMALL_MODEL.contextWindow, "the settings' model window");
    const first = await exchange(sessionId, "hello there", textReply("hi, what do you need?"));
    assert.equal(byType(first, "compaction_start").length, 0);
    const firstRequest = fake.requests.length;
    const events = await exchange(
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
  });

  test(`${transport}: overflow recovery: prompt too long, then a compaction (willRetry), then the retried call succeeds`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
    await exchange(sessionId, "hello there", textReply("hi", { usage: { input_tokens: 100_000 } }));
    const firstRequest = fake.requests.length;
    const events = await exchange(sessionId, bigText("PROMPT-OVERFLOW"), promptTooLong(), textReply("SUMMARY-O: a greeting happened."), textReply("Recovered after the compaction."));
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
  });

  test(`${transport}: manual compact {instructions}: the instructions reach the summarizer; result and events agree`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
    // a long first reply: the summarized span is worth compacting even with the system prompt and tools counted
    await exchange(sessionId, "hello there", textReply(`hi ${"and welcome ".repeat(400)}`));
    const second = await exchange(sessionId, bigText("PROMPT-MANUAL"), textReply("noted"));
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
  });

  test(`${transport}: navigateTree {summarize: true}: branch_summary_start/end, the summary entry becomes the leaf`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
    const first = await exchange(sessionId, "first question", textReply("first answer"));
    const second = await exchange(sessionId, "second question", textReply("second answer"));
    const a1 = byType(first, "message_end").find((e) => e.message.role === "assistant")!.entryId!;
    const u2 = byType(second, "message_end").find((e) => e.message.role === "user")!.entryId!;
    const a2 = byType(second, "message_end").find((e) => e.message.role === "assistant")!.entryId!;
    const firstRequest = fake.requests.length;
    fake.enqueue(textReply("BRANCH-SUMMARY-B: a second question was answered."));
    const from = peer.mark();
    const moved = await peer.request("navigateTree", { sessionId, targetId: a1, summarize: true, instructions: "mention GIRAFFE-7" });
    assert.equal(typeof moved.branchSummaryEntryId, "string");
    assert.equal(moved.leafId, moved.branchSummaryEntryId);
    assert.equal(moved.editorText, undefined);
    const events = peer.sessionEvents(sessionId, from);
    assert.deepEqual(events.map((e) => e.type), ["branch_summary_start", "branch_summary_end"]);
    const [start, end] = [asEvent(events[0], "branch_summary_start"), asEvent(events[1], "branch_summary_end")];
    assert.equal(start.targetId, a1);
    assert.equal(start.fromId, a2);
    assert.equal(end.aborted, false);
    assert.equal(end.entryId, moved.branchSummaryEntryId);
    assert.match(end.summary!, /BRANCH-SUMMARY-B/);
    const sent = fake.requests.slice(firstRequest);
    assert.equal(sent.length, 1);
    assert.match(sent[0].rawBody, /second question/, "the branch left behind is summarized");
    assert.match(sent[0].rawBody, /GIRAFFE-7/, "with the instructions");

    const { messages } = await peer.request("getMessages", { sessionId });
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "branchSummary"]);
    assert.match(asMessage(messages[2], "branchSummary").summary, /BRANCH-SUMMARY-B/);
    const tree = await peer.request("getTree", { sessionId });
    assert.equal(tree.leafId, moved.branchSummaryEntryId);
    const node = tree.entries.find((e) => e.id === moved.branchSummaryEntryId);
    assert.ok(node);
    assert.equal(node.type, "branch_summary");
    assert.equal(node.parentId, a1);
    assert.ok(tree.entries.some((e) => e.id === a2), "the old branch stays in the tree");
    assert.equal((await peer.request("getState", { sessionId })).leafId, moved.branchSummaryEntryId);

    // moving to a user message: its text comes back for the editor, the leaf is its parent
    const back = await peer.request("navigateTree", { sessionId, targetId: u2 });
    assert.deepEqual(back, { leafId: a1, editorText: "second question" });
    assert.equal(fake.remaining(), 0);
  });

  test(`${transport}: abort during a stream: agent_end aborted, the partial reply stored as aborted, the session goes on`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
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
    await exchange(sessionId, "try again", textReply("fine this time"));
    assert.equal(fake.remaining(), 0);
  });

  test(`${transport}: abort while a tool call streams: no tool call is left without a result`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
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
  });

  test(`${transport}: abort during a tool (bash sleep 30): the tool result is an error, agent_end aborted, no further model call, the process is gone`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
    const marker = `29.${String(process.pid).padStart(6, "0")}${Math.floor(Math.random() * 1000)}`;
    const command = `sleep ${marker}`;
    const firstRequest = fake.requests.length;
    fake.enqueue(toolUseReply("bash", { command }));
    const from = peer.mark();
    const { runId } = await peer.request("prompt", { sessionId, text: "wait a bit" });
    await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "tool_execution_start", "tool_execution_start", from);
    // abort while the command really runs
    for (let i = 0; i < 100 && processWithArg(command) === undefined; i++) await sleep(20);
    assert.ok(processWithArg(command) !== undefined, "the command started");
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
  });

  test(`${transport}: abort during a retry wait (529 overloaded): retry_end aborted, agent_end aborted, no second attempt`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
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
  });

  test(`${transport}: abort during a threshold compaction (the summarizer hangs): compaction_end aborted, agent_end aborted last, nothing stored`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession({ model: SMALL_MODEL.id });
    await exchange(sessionId, "hello there", textReply("hi"));
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
  });

  test(`${transport}: abort during a manual compaction: compact fails with -32016, compaction_end aborted, nothing stored`, async () => {
    const { peer, fake } = ctx();
    const { sessionId } = await newSession();
    await exchange(sessionId, "hello there", textReply("hi"));
    await exchange(sessionId, bigText("PROMPT-MANUAL-ABORT"), textReply("noted"));
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
  });
}
