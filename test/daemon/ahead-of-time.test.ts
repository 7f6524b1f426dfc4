// Compaction the user never waits for, through the daemon against the fake Messages API: past the
// soft threshold the summary is written in the background; at the trigger it is applied at once
// (no summarizer request between the prompt and the model's), stored exactly as a foreground
// compaction with that cut would store it; a stale one is discarded and never stored; an abort or
// a crash during preparation leaves nothing behind.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assembleSummary, compactionSettings, fitToWindow, prepareCompaction } from "../../src/compaction/index.js";
import { SessionFile } from "../../src/session/index.js";
import type { CompactionEntry } from "../../src/session/types.js";
import { hang, startFakeAnthropic, textReply, type FakeAnthropic, type Scenario } from "../support/fake-anthropic.js";
import { asEvent, bigText, byType, FLOW_SETTINGS, poll, SMALL_MODEL, startRpcDaemon, writeSettings, type Ev, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";


let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const OTHER_MODEL = { ...SMALL_MODEL, id: "small-model-b" };
const SETTINGS = { ...FLOW_SETTINGS, models: [SMALL_MODEL, OTHER_MODEL] };
const SUMMARY = "SUMMARY-AHEAD: the user sent ONE, the model answered first.";
/** ~1.5 s to write: 100 ms before each frame */
const slowSummary = (text = SUMMARY) => textReply(text, { delayMs: 100, chunkSize: 4 });

const summarizerRequests = (from = 0) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length === 0);

async function daemon(t: Parameters<typeof tempDir>[0]): Promise<{ d: RpcDaemon; home: string; sessionId: string; sessionFile: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  return { d, home, sessionId: s.sessionId, sessionFile: s.sessionFile };
}

/**
 * Two exchanges; the second reply reports 23,000 input tokens: past prepareAt (0.8) of the
 * threshold (40,000 - 16,384 = 23,616), under it. The summary starts when that run ends.
 */
async function toSoftThreshold(d: RpcDaemon, sessionId: string, summarizer: Scenario = slowSummary()): Promise<{ prepareId: string; from: number }> {
  fake.enqueue(textReply("first", { usage: { input_tokens: 3000 } }));
  await d.peer.runPrompt(sessionId, bigText("ONE"));
  const from = d.peer.mark();
  fake.enqueue(textReply("second", { usage: { input_tokens: 23_000 } }), summarizer);
  await d.peer.runPrompt(sessionId, bigText("TWO"));
  const started = asEvent(await d.peer.waitEvent((e) => e.sessionId === sessionId && e.type === "compaction_update" && e.reason === "prepare", "the summary to start ahead of time", from), "compaction_update");
  return { prepareId: started.compactionId, from };
}

const updates = (events: Ev[], id: string) => byType(events, "compaction_update").filter((e) => e.compactionId === id);
const deltas = (events: Ev[], id: string) => updates(events, id).map((e) => e.delta ?? "").join("");

test("at the trigger a summary written ahead of time is applied at once: no summarizer request after the prompt, stored as a foreground compaction with that cut", async (t) => {
  const { d, sessionId, sessionFile } = await daemon(t);
  const { prepareId, from } = await toSoftThreshold(d, sessionId);
  await d.peer.waitEvent((e) => e.type === "compaction_update" && e.compactionId === prepareId && e.phase === "ready", "the prepared summary", from);
  const state = await d.peer.request("getState", { sessionId });
  assert.equal(state.preparedCompaction?.status, "ready");
  assert.equal(state.preparedCompaction.compactionId, prepareId);
  assert.ok(state.preparedCompaction.requests >= 1);
  assert.equal(deltas(d.peer.events.slice(from), prepareId), SUMMARY, "the deltas make the summary");
  const tree = await d.peer.request("getTree", { sessionId });
  assert.equal(tree.entries.filter((e) => e.type === "compaction").length, 0, "nothing stored before the trigger");

  fake.enqueue(textReply("third"));
  const before = fake.requests.length;
  const sentAt = Date.now();
  const run = await d.peer.runPrompt(sessionId, bigText("THREE"));
  const requests = fake.requests.slice(before);
  assert.equal(requests.length, 1, "the only request after the prompt is the model's");
  assert.equal(summarizerRequests(before).length, 0);
  const waited = requests[0].time - sentAt;
  t.diagnostic(`prompt -> model request: ${waited} ms (the summary took ~1.5 s to write)`);
  assert.ok(waited < 1000, `the model request came ${waited} ms after the prompt: it waited for a summarizer`);

  const start = run.events.find((e) => e.type === "compaction_start")!;
  const end = run.events.find((e) => e.type === "compaction_end")!;
  assert.equal(start.compactionId, prepareId);
  assert.equal(start.prepared, true);
  assert.equal(start.reason, "threshold");
  assert.deepEqual(updates(run.events, prepareId).map((e) => e.phase), ["applying"]);
  assert.equal(end.compactionId, prepareId);
  assert.equal(end.result!.firstKeptEntryId, state.preparedCompaction.firstKeptEntryId, "the cut it was written for");
  assert.ok(end.result!.summary.startsWith(SUMMARY));
  assert.equal((await d.peer.request("getState", { sessionId })).preparedCompaction, undefined);
  d.endStdin();
  await d.waitExit();

  // what a foreground compaction with that cut stores, from the same context
  const file = SessionFile.open(sessionFile, { readOnly: true });
  const entry = file.entries().find((e): e is CompactionEntry => e.type === "compaction")!;
  const ctx = file.buildContext(entry.parentId);
  const settings = fitToWindow(compactionSettings(FLOW_SETTINGS.compaction), SMALL_MODEL.contextWindow);
  const prep = prepareCompaction({ messages: ctx.messages, entryIds: ctx.entryIds, freshFrom: ctx.freshFrom }, settings, "threshold", { firstKeptEntryId: entry.firstKeptEntryId });
  file.close();
  assert.ok(prep.ok);
  assert.equal(entry.summary, assembleSummary(SUMMARY, prep.preparation.userMessages, prep.preparation.fileLists));
  const { reason, tokensAfter, cost, ...details } = entry.details as Record<string, unknown>;
  assert.deepEqual(details, { ...prep.preparation.fileLists, userMessages: prep.preparation.userMessages });
  assert.equal(reason, "threshold", "stored for a marker drawn after a reload");
  assert.equal(typeof tokensAfter, "number");
  assert.equal(entry.tokensBefore, start.tokensBefore, "tokensBefore: the context at the trigger");
});

test("a prepared summary made stale (the model changed) is discarded and never stored; the trigger writes a fresh one", async (t) => {
  const { d, sessionId } = await daemon(t);
  const { prepareId, from } = await toSoftThreshold(d, sessionId);
  await d.peer.waitEvent((e) => e.type === "compaction_update" && e.compactionId === prepareId && e.phase === "ready", "the prepared summary", from);
  await d.peer.request("setModel", { sessionId, model: OTHER_MODEL.id });
  await d.peer.waitEvent((e) => e.type === "compaction_update" && e.compactionId === prepareId && e.phase === "discarded", "the summary to be discarded", from);
  assert.equal((await d.peer.request("getState", { sessionId })).preparedCompaction, undefined);

  fake.enqueue(textReply("SUMMARY-FRESH: written at the trigger."), textReply("third"));
  const run = await d.peer.runPrompt(sessionId, bigText("THREE"));
  const end = run.events.find((e) => e.type === "compaction_end")!;
  assert.notEqual(end.compactionId, prepareId);
  assert.equal(end.prepared, undefined);
  assert.match(end.result!.summary, /SUMMARY-FRESH/);
  const tree = await d.peer.request("getTree", { sessionId });
  assert.equal(tree.entries.filter((e) => e.type === "compaction").length, 1, "only the fresh one");
  d.endStdin();
  await d.waitExit();
});

test("abort during preparation: the summarizer request is cancelled, nothing is stored, no pending state", async (t) => {
  const { d, sessionId } = await daemon(t);
  const requestsBefore = fake.requests.length;
  const { prepareId, from } = await toSoftThreshold(d, sessionId, hang());
  const summarizer = await poll(() => fake.requests.slice(requestsBefore).find((r) => r.scenario?.kind === "hang"), "the summarizer request");
  const state = await d.peer.request("getState", { sessionId });
  assert.equal(state.preparedCompaction?.status, "summarizing");
  const entries = (await d.peer.request("getTree", { sessionId })).entries.length;
  assert.deepEqual(await d.peer.request("abort", { sessionId }), { aborted: true });
  await d.peer.waitEvent((e) => e.type === "compaction_update" && e.compactionId === prepareId && e.phase === "discarded", "discarded", from);
  assert.equal((await fake.whenEnded(fake.requests.indexOf(summarizer))).how, "client_closed", "the summarizer request was cancelled");
  assert.equal((await d.peer.request("getState", { sessionId })).preparedCompaction, undefined);
  assert.equal((await d.peer.request("getTree", { sessionId })).entries.length, entries, "nothing was stored");
  d.endStdin();
  await d.waitExit();
});

test("kill -9 during preparation loses nothing: the reopened session has every message and no compaction", async (t) => {
  const { d, home, sessionId, sessionFile } = await daemon(t);
  await toSoftThreshold(d, sessionId, hang());
  const { messages } = await d.peer.request("getMessages", { sessionId });
  await d.kill9();
  await drainFake(fake);
  const d2 = startRpcDaemon(t, { home, fake });
  await d2.peer.initialize();
  const reopened = await d2.peer.request("openSession", { sessionFile });
  assert.equal(reopened.state.preparedCompaction, undefined);
  assert.deepEqual((await d2.peer.request("getMessages", { sessionId })).messages, messages);
  assert.equal((await d2.peer.request("getTree", { sessionId })).entries.filter((e) => e.type === "compaction").length, 0);
  d2.endStdin();
  await d2.waitExit();
});

test("a trigger that comes while the summary is still being written waits for it: one summarizer request, its updates go on under the compaction", async (t) => {
  const { d, sessionId } = await daemon(t);
  const requestsBefore = fake.requests.length;
  const { prepareId } = await toSoftThreshold(d, sessionId);
  fake.enqueue(textReply("third"));
  const run = await d.peer.runPrompt(sessionId, bigText("THREE"));
  const start = run.events.find((e) => e.type === "compaction_start")!;
  const end = run.events.find((e) => e.type === "compaction_end")!;
  assert.equal(start.compactionId, prepareId);
  assert.equal(start.prepared, true);
  assert.equal(summarizerRequests(requestsBefore).length, 1, "not started twice");
  assert.ok(updates(run.events, prepareId).some((e) => e.reason === "threshold" && e.delta), "the rest of the summary streams under the compaction's reason");
  assert.ok(end.result!.summary.startsWith(SUMMARY));
  assert.equal(deltas(d.peer.events, prepareId), SUMMARY);
  d.endStdin();
  await d.waitExit();
});
