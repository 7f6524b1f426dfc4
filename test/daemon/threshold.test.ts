// The user's compaction threshold, through the daemon against the fake Messages API: it fires at
// the set fraction of the window (and at a token count), long before Pi's reserveTokens rule
// would; it is set per session over the wire, reported with the context's size, kept in the
// session file across a reopen in a new process; a bad value is -32602 with a clear message.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { promptTooLong, startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, byType, RpcError, startRpcDaemon, writeSettings, type Ev, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const MODEL = { id: "wide-model", contextWindow: 200_000, maxOutputTokens: 8_000 };
/** Pi's rule on this window: 200,000 - 16,384 */
const PI_TRIGGER = 183_616;
// no summary ahead of time: each summarizer request below is the compaction's own
const BASE = { models: [MODEL], compaction: { keepRecentTokens: 200, prepareAt: 0 } };

async function daemon(t: Parameters<typeof tempDir>[0], compaction: object = {}, home = tempDir(t), cwd = tempDir(t)): Promise<{ d: RpcDaemon; home: string; cwd: string }> {
  writeSettings(home, { ...BASE, compaction: { ...BASE.compaction, ...compaction } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  return { d, home, cwd };
}

/** One exchange whose reply reports `inputTokens`; the run's events (a compaction at its end included). */
async function exchange(d: RpcDaemon, sessionId: string, tag: string, inputTokens: number, summary?: string): Promise<Ev[]> {
  fake.enqueue(textReply(`reply ${tag}`, { usage: { input_tokens: inputTokens, output_tokens: 10 } }));
  if (summary) fake.enqueue(textReply(summary));
  return (await d.peer.runPrompt(sessionId, bigText(tag, 200))).events;
}

const starts = (events: Ev[]) => byType(events, "compaction_start");

test("a fraction in the settings: automatic compaction fires past that share of the window, long before reserveTokens would", async (t) => {
  const { d } = await daemon(t, { threshold: 0.5 });
  t.after(() => drainFake(fake));
  const s = await d.peer.request("createSession", { cwd: tempDir(t), model: MODEL.id });
  assert.equal(s.state.threshold, 100_000, "half of 200,000");
  assert.equal(s.state.compactionThreshold, 0.5);
  assert.deepEqual(starts(await exchange(d, s.sessionId, "ONE", 5_000)), []);
  assert.deepEqual(starts(await exchange(d, s.sessionId, "TWO", 99_000)), [], "under the threshold: nothing");
  const events = await exchange(d, s.sessionId, "THREE", 101_000, "SUMMARY-AT-HALF");
  const started = starts(events);
  assert.equal(started.length, 1, "past half the window: compacted, with Pi's trigger still 82,000 tokens away");
  assert.equal(started[0].reason, "threshold");
  assert.ok(started[0].tokensBefore > 100_000 && started[0].tokensBefore < PI_TRIGGER, String(started[0].tokensBefore));
  const end = byType(events, "compaction_end")[0];
  assert.equal(end.result?.summary.startsWith("SUMMARY-AT-HALF"), true, JSON.stringify(end));
  const usage = byType(d.peer.events, "usage_update").filter((e) => e.sessionId === s.sessionId).at(-1)!;
  assert.equal(usage.threshold, 100_000, "usage_update carries the trigger in tokens");
  d.endStdin();
  await d.waitExit();
});

test("set per session over the wire as a token count: it fires there, is reported, and a reopen in a new process restores it", async (t) => {
  const { d, home, cwd } = await daemon(t);
  t.after(() => drainFake(fake));
  const s = await d.peer.request("createSession", { cwd, model: MODEL.id });
  assert.equal(s.state.threshold, PI_TRIGGER, "no threshold set: Pi's rule");
  assert.equal(s.state.compactionThreshold, undefined);
  const from = d.peer.mark();
  const set = await d.peer.request("setCompactionThreshold", { sessionId: s.sessionId, threshold: 50_000 });
  assert.deepEqual(set, { threshold: 50_000, thresholdTokens: 50_000 });
  const usage = await d.peer.waitEvent((e) => e.type === "usage_update" && e.sessionId === s.sessionId, "usage_update after the change", from);
  assert.equal((usage as { threshold?: number }).threshold, 50_000, "the clients hear the new trigger at once");
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.threshold, 50_000);
  assert.equal(state.compactionThreshold, 50_000);

  assert.deepEqual(starts(await exchange(d, s.sessionId, "ONE", 5_000)), []);
  assert.deepEqual(starts(await exchange(d, s.sessionId, "TWO", 49_000)), []);
  const started = starts(await exchange(d, s.sessionId, "THREE", 51_000, "SUMMARY-AT-COUNT"));
  assert.equal(started.length, 1, "past 50,000 tokens: compacted");
  assert.equal(started[0].reason, "threshold");
  d.endStdin();
  await d.waitExit();

  const { d: d2 } = await daemon(t, {}, home, cwd);
  const reopened = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.equal(reopened.state.threshold, 50_000, "the session's threshold survives a reopen in a new process");
  assert.equal(reopened.state.compactionThreshold, 50_000);
  const cleared = await d2.peer.request("setCompactionThreshold", { sessionId: reopened.sessionId, threshold: null });
  assert.deepEqual(cleared, { threshold: null, thresholdTokens: PI_TRIGGER }, "null: the settings' again (none: Pi's rule)");
  const fraction = await d2.peer.request("setCompactionThreshold", { sessionId: reopened.sessionId, threshold: 0.25 });
  assert.deepEqual(fraction, { threshold: 0.25, thresholdTokens: 50_000 });
  d2.endStdin();
  await d2.waitExit();
});

test("a fraction is of the window in effect: once the endpoint's smaller window is learned, the trigger follows it", async (t) => {
  const { d } = await daemon(t, { threshold: 0.5 });
  t.after(() => drainFake(fake));
  const s = await d.peer.request("createSession", { cwd: tempDir(t), model: MODEL.id });
  await exchange(d, s.sessionId, "ONE", 5_000);
  // the endpoint's real window is 100,000: it says so once; the session compacts and retries
  fake.enqueue(promptTooLong(130_000, 100_000), textReply("SUMMARY-AFTER-OVERFLOW"), textReply("reply TWO"));
  await d.peer.runPrompt(s.sessionId, bigText("TWO", 200));
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.contextWindow, 100_000);
  assert.equal(state.threshold, 50_000, "half of the learned window, not of the model table's 200,000");
  const started = starts(await exchange(d, s.sessionId, "THREE", 51_000, "SUMMARY-AT-HALF-OF-LEARNED"));
  assert.equal(started.length, 1);
  assert.equal(started[0].reason, "threshold");
  assert.equal(fake.remaining(), 0, "every reply was asked for: the overflow's compaction and retry, then the threshold's");
  d.endStdin();
  await d.waitExit();
});

test("a session's threshold goes before the settings' one, and null gives the settings' back", async (t) => {
  const { d } = await daemon(t, { threshold: 0.5 });
  const s = await d.peer.request("createSession", { cwd: tempDir(t), model: MODEL.id });
  assert.equal((await d.peer.request("setCompactionThreshold", { sessionId: s.sessionId, threshold: 0.8 })).thresholdTokens, 160_000);
  assert.equal((await d.peer.request("getState", { sessionId: s.sessionId })).compactionThreshold, 0.8);
  assert.equal((await d.peer.request("setCompactionThreshold", { sessionId: s.sessionId, threshold: null })).thresholdTokens, 100_000);
  assert.equal((await d.peer.request("getState", { sessionId: s.sessionId })).compactionThreshold, 0.5);
  d.endStdin();
  await d.waitExit();
});

test("bad thresholds are -32602 with a message that says what is allowed; the setting is left as it was", async (t) => {
  const { d } = await daemon(t);
  const s = await d.peer.request("createSession", { cwd: tempDir(t), model: MODEL.id });
  await d.peer.request("setCompactionThreshold", { sessionId: s.sessionId, threshold: 0.6 });
  const refused = async (threshold: unknown, message: RegExp) => {
    const err = await d.peer.request("setCompactionThreshold", { sessionId: s.sessionId, threshold } as never).then(
      () => assert.fail(`${JSON.stringify(threshold)} was accepted`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RpcError, String(err));
    assert.equal(err.code, -32602, `${JSON.stringify(threshold)}: ${err.message}`);
    assert.match(err.message, message, JSON.stringify(threshold));
  };
  await refused(-0.5, /above 0/);
  await refused(0, /above 0/);
  await refused("NaN", /number/i);
  await refused(2.5, /whole number/);
  await refused(250_000, /more tokens than the context window in effect \(200000\)/);
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.compactionThreshold, 0.6);
  assert.equal(state.threshold, 120_000);
  // the settings file's key is checked too
  const patched = await d.peer.request("updateSettings", { patch: { compaction: { threshold: -3 } } }).then(
    () => undefined,
    (e: unknown) => e as RpcError,
  );
  assert.equal(patched?.code, -32602);
  d.endStdin();
  await d.waitExit();
});
