// Nothing acknowledged is lost, through the daemon against the fake Messages API: a steer or a
// follow-up answered with a run's runId while that run is not streaming the model (its end-of-run
// compaction, a threshold compaction before a model call, an overflow compaction, a summary
// written ahead of time being applied, a retry's wait, a running tool) reaches a model request
// and the store. The run goes on with what came while it was ending; what is still queued when a
// run ends on an error, max_turns or length starts the next run (agent_start.queuedFrom); the
// user's abort drops it with a prompts_dropped event; a close keeps it for the reopen. A prompt
// with delivery while a manual compaction holds the idle session is refused before any answer.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { badRequest, overloaded, promptTooLong, startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, asEvent, bigText, byType, FLOW_SETTINGS, poll, RpcError, SMALL_MODEL, startRpcDaemon, textOf, writeSettings, type Ev, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** A promise the test settles when it wants the held request answered. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

interface Session {
  d: RpcDaemon;
  sessionId: string;
  sessionFile: string;
  cwd: string;
}

/** No summary ahead of time unless `prepareAt` says so: each summarizer request is the compaction's own. */
async function daemon(t: Parameters<typeof tempDir>[0], extra: { prepareAt?: number; maxTurns?: number } = {}): Promise<Session> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const { prepareAt = 0, maxTurns } = extra;
  writeSettings(home, { ...FLOW_SETTINGS, compaction: { ...FLOW_SETTINGS.compaction, prepareAt }, ...(maxTurns ? { maxTurns } : {}) });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  return { d, sessionId: s.sessionId, sessionFile: s.sessionFile, cwd };
}

/** One exchange under the trigger, so that a later compaction has something before its cut. */
async function firstExchange({ d, sessionId }: Session, words?: number, inputTokens = 3000): Promise<void> {
  fake.enqueue(textReply("first", { usage: { input_tokens: inputTokens } }));
  await d.peer.runPrompt(sessionId, bigText("ONE", words));
}

// the flows use the transcript framing: a summarizer request sends no tools, the model's do
const summarizerRequests = (from: number) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length === 0);
const modelRequests = (from: number) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length > 0);

const STEER = "STEER-QUEUED-7f1";
const FOLLOW = "FOLLOWUP-QUEUED-2c9";

/** Sends the steer and the follow-up; both must be answered with `runId`. */
async function queueBoth({ d, sessionId }: Session, runId: string): Promise<void> {
  const steer = await d.peer.request("prompt", { sessionId, text: STEER, delivery: "steer" });
  const follow = await d.peer.request("prompt", { sessionId, text: FOLLOW, delivery: "followUp" });
  assert.equal(steer.runId, runId, "the steer joined the running run");
  assert.equal(follow.runId, runId, "the follow-up joined the running run");
  assert.deepEqual((await d.peer.request("getState", { sessionId })).pending, { steer: 1, followUp: 1 });
}

/** Both prompts were run: a model request carried them, the store holds them (in the order sent), nothing is queued. */
async function assertDelivered(s: Session, requestsFrom: number): Promise<void> {
  const carried = modelRequests(requestsFrom).filter((r) => r.rawBody.includes(STEER) && r.rawBody.includes(FOLLOW));
  assert.ok(carried.length >= 1, "a model request carried both queued prompts");
  const { messages } = await s.d.peer.request("getMessages", { sessionId: s.sessionId });
  const users = messages.filter((m) => m.role === "user").map(textOf);
  assert.deepEqual(users.slice(-2), [STEER, FOLLOW], "getMessages shows both, in the order they were accepted");
  const last = messages.at(-1);
  assert.equal(last?.role, "assistant", "and the model answered them");
  assert.deepEqual((await s.d.peer.request("getState", { sessionId: s.sessionId })).pending, { steer: 0, followUp: 0 });
  const records = queueRecords(s.sessionFile);
  assert.ok(records.some((n) => n === 2), `the queue was recorded with both (${JSON.stringify(records)})`);
  assert.equal(records.at(-1), 0, "and, once delivered, as empty");
}

/** The item counts of the session file's queue records, in order. */
function queueRecords(file: string): number[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type?: string; customType?: string; data?: { items?: unknown[] } })
    .filter((e) => e.type === "custom" && e.customType === "pith.queue")
    .map((e) => e.data?.items?.length ?? 0);
}

/** The run started with what `runId` left queued: its agent_start names it; waits for its end. */
async function nextRun({ d, sessionId }: Session, runId: string, from: number): Promise<{ runId: string; events: Ev[] }> {
  const start = asEvent(await d.peer.waitEvent((e) => e.sessionId === sessionId && e.type === "agent_start" && e.queuedFrom === runId, `the run started with what ${runId} left queued`, from), "agent_start");
  assert.notEqual(start.runId, runId, "a new run, with its own runId");
  const events = await d.peer.runEvents(sessionId, start.runId, from);
  return { runId: start.runId, events: events.slice(events.indexOf(start)) };
}

/** The run `runId` ends with `stopReason`, and the next run stores both queued prompts first and answers them. */
async function endsThenNextRunTakesBoth(s: Session, runId: string, from: number, requestsFrom: number, stopReason: string): Promise<void> {
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, stopReason);
  const next = await nextRun(s, runId, from);
  assert.deepEqual(userStarts(next.events), [STEER, FOLLOW]);
  await assertDelivered(s, requestsFrom);
}

const userStarts = (events: Ev[]) => byType(events, "message_start").filter((e) => e.message.role === "user").map((e) => textOf(e.message));

test("during the end-of-run compaction: a steer and a follow-up answered with the run's runId are run by that run (it goes on rather than ending)", async (t) => {
  const s = await daemon(t);
  await firstExchange(s);
  const hold = gate();
  const before = fake.requests.length;
  fake.enqueue(textReply("second", { usage: { input_tokens: 30_000 } }), textReply("SUMMARY-AT-END", { holdUntil: hold.promise }), textReply("ANSWER-TO-QUEUED"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: bigText("TWO") });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "compaction_start" && e.reason === "threshold", "the end-of-run compaction", from);
  await poll(() => summarizerRequests(before)[0], "the summarizer request");
  assert.ok(s.d.peer.sessionEvents(s.sessionId, from).some((e) => e.type === "turn_end"), "the model had stopped: this is the run's end");
  await queueBoth(s, runId);
  hold.open();
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "stop");
  assert.ok(byType(events, "compaction_end")[0].result, "the compaction was stored");
  assert.deepEqual(userStarts(events).slice(1), [STEER, FOLLOW], "stored in the same run, after the compaction");
  assert.equal(byType(events, "agent_start").length, 1);
  await assertDelivered(s, before);
  assert.equal(fake.remaining(), 0);
});

test("during a threshold compaction before a model call: the steer goes in before that call; the call fails and the follow-up starts the next run (agent_start.queuedFrom)", async (t) => {
  const s = await daemon(t);
  await firstExchange(s);
  const hold = gate();
  const before = fake.requests.length;
  fake.enqueue(
    toolUseReply("read", { path: "notes.txt" }, { usage: { input_tokens: 30_000 } }),
    textReply("SUMMARY-BEFORE-CALL", { holdUntil: hold.promise }),
    badRequest(),
    textReply("ANSWER-IN-NEXT-RUN"),
  );
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: bigText("TWO") });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "compaction_start" && e.reason === "threshold", "the compaction before the second model call", from);
  await poll(() => summarizerRequests(before)[0], "the summarizer request");
  await queueBoth(s, runId);
  hold.open();
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "error", "the model call after the compaction failed");
  assert.equal(byType(events, "prompts_dropped").length, 0);
  assert.deepEqual(userStarts(events).slice(1), [STEER], "the steer went in at the next point the model could take it: after the compaction");
  assert.ok(modelRequests(before)[1].rawBody.includes(STEER), "the call after the compaction carried it");
  const next = await nextRun(s, runId, from);
  assert.deepEqual(userStarts(next.events), [FOLLOW], "the next run stores the follow-up first");
  assert.equal(agentEnd(next.events).stopReason, "stop");
  await assertDelivered(s, before);
});

test("during an overflow compaction whose retried call overflows again: the queued prompts start the next run", async (t) => {
  const s = await daemon(t);
  await firstExchange(s, 4000, 20_000); // enough before the cut for the compaction to be worth it (under the threshold)
  const hold = gate();
  const before = fake.requests.length;
  fake.enqueue(promptTooLong(50_000, 40_000), textReply("SUMMARY-OVERFLOW", { holdUntil: hold.promise }), promptTooLong(50_000, 40_000), textReply("ANSWER-IN-NEXT-RUN"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: bigText("TWO") });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "compaction_start" && e.reason === "overflow", "the overflow compaction", from);
  await poll(() => summarizerRequests(before)[0], "the summarizer request");
  await queueBoth(s, runId);
  hold.open();
  await endsThenNextRunTakesBoth(s, runId, from, before, "error");
});

test("while a summary written ahead of time is being applied at the end of a run: the run goes on with the queued prompts", async (t) => {
  const s = await daemon(t, { prepareAt: 0.8 });
  await firstExchange(s);
  const hold = gate();
  const before = fake.requests.length;
  // past prepareAt of the threshold (23,616), under it: the summary starts in the background and is held
  fake.enqueue(textReply("second", { usage: { input_tokens: 23_000 } }), textReply("SUMMARY-AHEAD", { holdUntil: hold.promise }));
  const mark = s.d.peer.mark();
  await s.d.peer.runPrompt(s.sessionId, bigText("TWO"));
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "compaction_update" && e.reason === "prepare", "the summary ahead of time", mark);
  await poll(() => summarizerRequests(before)[0], "the summarizer request ahead of time");
  fake.enqueue(textReply("third", { usage: { input_tokens: 30_000 } }), textReply("ANSWER-TO-QUEUED"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "three" });
  const start = asEvent(await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "compaction_start", "the compaction at the end of the run", from), "compaction_start");
  assert.equal(start.prepared, true, "it takes the summary being written ahead of time");
  assert.ok(s.d.peer.sessionEvents(s.sessionId, from).some((e) => e.type === "turn_end"), "the model had stopped");
  await queueBoth(s, runId);
  hold.open();
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "stop");
  assert.deepEqual(userStarts(events), ["three", STEER, FOLLOW]);
  assert.equal(summarizerRequests(before).length, 1, "the one summary, written ahead of time");
  await assertDelivered(s, before);
});

test("during a retry's wait, when the retried call then fails: the queued prompts start the next run", async (t) => {
  const s = await daemon(t);
  const hold = gate();
  const before = fake.requests.length;
  fake.enqueue(overloaded({ retryAfter: 1 }), { ...badRequest(), holdUntil: hold.promise }, textReply("ANSWER-IN-NEXT-RUN"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "are you there?" });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "retry_start", "retry_start", from);
  await queueBoth(s, runId);
  hold.open();
  await endsThenNextRunTakesBoth(s, runId, from, before, "error");
});

test("while a tool runs on the last turn the run may take (max_turns): both queued prompts start the next run, none is stored unanswered", async (t) => {
  const s = await daemon(t, { maxTurns: 1 });
  const before = fake.requests.length;
  fake.enqueue(toolUseReply("bash", { command: "while [ ! -e go ]; do sleep 0.05; done; echo went" }), textReply("ANSWER-IN-NEXT-RUN"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "run the waiting command" });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "tool_execution_start", "the tool to run", from);
  await queueBoth(s, runId);
  writeFileSync(join(s.cwd, "go"), "");
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "max_turns");
  assert.deepEqual(userStarts(events), ["run the waiting command"], "no prompt stored that no model call of this run would answer");
  const next = await nextRun(s, runId, from);
  assert.deepEqual(userStarts(next.events), [STEER, FOLLOW]);
  assert.equal(agentEnd(next.events).stopReason, "stop");
  await assertDelivered(s, before);
});

test("during a reply cut at the output limit: the steer goes in right after it (before the cut reply is continued); a follow-up on a run that ends at the limit (length) starts the next run", async (t) => {
  const s = await daemon(t);
  const hold = gate();
  const before = fake.requests.length;
  const cut = (n: number) => textReply(`part ${n} `, { stopReason: "max_tokens", ...(n === 1 ? { holdUntil: hold.promise } : {}) });
  // the steer's answer is cut too, and continued three times: the run ends at the limit
  fake.enqueue(cut(1), cut(2), cut(3), cut(4), cut(5), textReply("ANSWER-IN-NEXT-RUN"));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "write a lot" });
  await poll(() => modelRequests(before)[0], "the first model request");
  await queueBoth(s, runId);
  hold.open();
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "length");
  assert.deepEqual(userStarts(events), ["write a lot", STEER], "the steer went in after the first cut reply");
  assert.ok(modelRequests(before)[1].rawBody.includes(STEER), "the second request carried it");
  const next = await nextRun(s, runId, from);
  assert.deepEqual(userStarts(next.events), [FOLLOW]);
  await assertDelivered(s, before);
});

test("abort drops what is queued and says so (prompts_dropped, before agent_end); a close keeps it for the reopen", async (t) => {
  const s = await daemon(t);
  fake.enqueue(toolUseReply("bash", { command: "while [ ! -e go ]; do sleep 0.05; done" }));
  const from = s.d.peer.mark();
  const { runId } = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "run the waiting command" });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "tool_execution_start", "the tool to run", from);
  await queueBoth(s, runId);
  assert.deepEqual(await s.d.peer.request("abort", { sessionId: s.sessionId }), { aborted: true });
  const events = await s.d.peer.runEvents(s.sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "aborted");
  const dropped = byType(events, "prompts_dropped");
  assert.equal(dropped.length, 1, "the drop is said");
  assert.equal(dropped[0].runId, runId);
  assert.equal(dropped[0].reason, "aborted");
  assert.deepEqual(dropped[0].prompts.map((p) => [p.delivery, p.text]), [["steer", STEER], ["followUp", FOLLOW]]);
  assert.ok(events.indexOf(dropped[0]) < events.indexOf(agentEnd(events)), "before the run's agent_end");
  const { messages } = await s.d.peer.request("getMessages", { sessionId: s.sessionId });
  assert.ok(!messages.some((m) => textOf(m) === STEER || textOf(m) === FOLLOW), "not stored");
  assert.deepEqual((await s.d.peer.request("getState", { sessionId: s.sessionId })).pending, { steer: 0, followUp: 0 });
  assert.equal(queueRecords(s.sessionFile).at(-1), 0, "the record says the queue is empty");
  assert.equal(byType(s.d.peer.sessionEvents(s.sessionId, from), "agent_start").length, 1, "no run started with them");

  // a close is not the user dropping them
  fake.enqueue(toolUseReply("bash", { command: "while [ ! -e go2 ]; do sleep 0.05; done" }));
  const from2 = s.d.peer.mark();
  const second = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: "again" });
  await s.d.peer.waitEvent((e) => e.sessionId === s.sessionId && e.type === "tool_execution_start", "the tool to run", from2);
  await queueBoth(s, second.runId);
  await s.d.peer.request("closeSession", { sessionId: s.sessionId });
  assert.equal(byType(s.d.peer.events.slice(from2), "prompts_dropped").length, 0, "a close drops nothing");
  const reopened = await s.d.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.deepEqual(reopened.state.pending, { steer: 1, followUp: 1 }, "kept for the reopen");
});

test("a prompt with delivery while a manual compaction holds the idle session is refused (-32011) before it is acknowledged", async (t) => {
  const s = await daemon(t);
  await firstExchange(s);
  fake.enqueue(textReply("noted"));
  await s.d.peer.runPrompt(s.sessionId, bigText("TWO"));
  const hold = gate();
  const before = fake.requests.length;
  fake.enqueue(textReply("SUMMARY-MANUAL", { holdUntil: hold.promise }));
  const compacting = s.d.peer.request("compact", { sessionId: s.sessionId });
  await poll(() => summarizerRequests(before)[0], "the summarizer request");
  for (const delivery of ["steer", "followUp"] as const) {
    const err = await s.d.peer.request("prompt", { sessionId: s.sessionId, text: `refused ${delivery}`, delivery }).then(
      () => assert.fail(`a ${delivery} was acknowledged while the compaction held the session`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RpcError, String(err));
    assert.equal(err.code, -32011, err.message);
  }
  assert.deepEqual((await s.d.peer.request("getState", { sessionId: s.sessionId })).pending, { steer: 0, followUp: 0 }, "nothing queued");
  hold.open();
  await compacting;
  fake.enqueue(textReply("after"));
  const run = await s.d.peer.runPrompt(s.sessionId, "after the compaction");
  assert.deepEqual(userStarts(run.events), ["after the compaction"], "nothing refused turns up later");
});
