// Replay across incarnations: seq restarts at 1 when a session is reopened, so an afterSeq from
// before means nothing in the new stream. subscribe {afterSeq, streamId} with the old stream id
// answers gap: true instead of silently replaying (or skipping) the wrong events; the typed
// client passes the stream id it last saw.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PithClient } from "../../clients/ts/client.js";
import { connectWebSocket } from "../../clients/ts/node.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, startServeDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("an afterSeq counted in another stream (before a reopen) answers gap: true; the same stream replays", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const oldStream = s.state.streamId;
  assert.equal(typeof oldStream, "string");
  fake.enqueue(textReply("one"));
  await d.peer.runPrompt(s.sessionId, "first");
  const oldLast = (await d.peer.request("subscribe", { sessionId: s.sessionId })).lastSeq;
  assert.ok(oldLast > 2);

  await d.peer.request("closeSession", { sessionId: s.sessionId });
  const again = await d.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.notEqual(again.state.streamId, oldStream, "a new incarnation, a new stream");
  fake.enqueue(textReply("two"), textReply("three"));
  await d.peer.runPrompt(again.sessionId, "second");
  await d.peer.runPrompt(again.sessionId, "third");
  const now = await d.peer.request("getState", { sessionId: again.sessionId });
  assert.equal(now.streamId, again.state.streamId, "getState names the stream");

  const stale = await d.peer.request("subscribe", { sessionId: again.sessionId, afterSeq: oldLast, streamId: oldStream });
  assert.equal(stale.gap, true, "the old stream's seq cannot be resumed");
  assert.equal(stale.replayed, 0);
  assert.equal(stale.streamId, now.streamId);
  const same = await d.peer.request("subscribe", { sessionId: again.sessionId, afterSeq: 1, streamId: now.streamId });
  assert.equal(same.gap, undefined);
  assert.equal(same.replayed, same.lastSeq - 1, "the same stream replays");
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("the typed client resubscribes with the stream it saw: a session reopened while it was away answers gap, not wrong events", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = await startServeDaemon(t, { home, fake, cwd });
  const a = new PithClient(await connectWebSocket(d.wsUrl, d.token), { onError: () => undefined });
  t.after(() => a.close());
  await a.initialize({ name: "away" });
  const opened = await a.createSession({ cwd });
  fake.enqueue(textReply("a"), textReply("b"));
  for (const text of ["one", "two"]) {
    const { runId } = await a.prompt(opened.sessionId, text);
    await a.waitFor("agent_end", (e) => e.runId === runId);
  }
  const seen = a.lastSeq(opened.sessionId);
  assert.ok(seen > 4);

  // while `a` is disconnected, another client closes and reopens the session and works in it:
  // seq starts again at 1 and soon passes what `a` saw
  const dropped = new Promise<void>((resolve) => a.onClose(() => resolve()));
  (a as unknown as { transport: { close(): void } }).transport.close();
  await dropped;
  const b = new PithClient(await connectWebSocket(d.wsUrl, d.token), { onError: () => undefined });
  t.after(() => b.close());
  await b.initialize({ name: "meanwhile" });
  await b.closeSession(opened.sessionId);
  const reopened = await b.openSession({ sessionFile: opened.sessionFile });
  fake.enqueue(textReply("c"), textReply("d"), textReply("e"));
  for (const text of ["three", "four", "five"]) {
    const { runId } = await b.prompt(reopened.sessionId, text);
    await b.waitFor("agent_end", (e) => e.runId === runId);
  }

  await a.reconnect(await connectWebSocket(d.wsUrl, d.token));
  const r = await a.resubscribe(opened.sessionId);
  assert.equal(r.afterSeq, seen);
  assert.equal(r.gap, true, "the client sent its old stream id and was told the events are gone");
  assert.equal(r.replayed, 0);
  d.proc.kill("SIGTERM");
  await d.waitExit();
  await drainFake(fake);
});
