// The daemon over WebSocket (`pith serve --stdio`), end to end against the fake Messages API: the
// shared flows (test/support/daemon-flows.ts) over one WebSocket client, then several clients on
// one session: a WebSocket client attached to a session another connection (stdio) created gets
// the same events, replay with afterSeq, unsubscribe. One daemon for the file.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, checkDist, Cleanup, FLOW_SETTINGS, isEventMessage, seqProblems, startServeDaemon, writeSettings, type RpcPeer, type ServeDaemon, type WsPeer } from "../support/daemon-client.js";
import { drainFake, registerFlowTests } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
let daemon: ServeDaemon;
let stdio: RpcPeer;
let ws: WsPeer;
let cwd: string;
let home: string;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
  home = tempDir(cleanup, "pith-daemon-home-");
  cwd = tempDir(cleanup, "pith-daemon-cwd-");
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  writeSettings(home, FLOW_SETTINGS);
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, stdio: true });
  stdio = daemon.peer!;
  ws = await daemon.connect(cleanup);
  await Promise.all([ws.initialize(), stdio.initialize()]);
});

after(async () => {
  if (daemon.exit === null) {
    daemon.proc.stdin!.end(); // serve --stdio does not exit on SIGTERM while its stdin is open (see lifecycle.test.ts)
    daemon.proc.kill("SIGTERM");
    await daemon.waitExit().catch(() => daemon.kill9());
  }
  await fake.close();
  await cleanup.run();
});

test("ws: a token given on the command line leaves the token file alone; the bearer subprotocol works and is selected in the answer", async (t) => {
  checkDist(t);
  // $PITH_HOME/token is the default token, made once and kept (test/security/daemon-secrets.test.ts)
  assert.equal(existsSync(join(home, "token")), false, "--token does not write the token file");
  const viaProtocol = await daemon.connect(t, { auth: false, protocols: [`pith.bearer.${daemon.token}`] });
  assert.equal(viaProtocol.ws.protocol, `pith.bearer.${daemon.token}`);
  const init = await viaProtocol.initialize();
  assert.equal(init.protocolVersion, 1);
  viaProtocol.ws.close();
  await viaProtocol.whenClosed;
  const among = await daemon.connect(t, { auth: false, protocols: ["something-else", `pith.bearer.${daemon.token}`] });
  assert.equal(among.ws.protocol, `pith.bearer.${daemon.token}`, "the bearer entry is selected among others");
  await among.initialize();
  among.ws.close();
});

registerFlowTests("ws", () => ({ fake, peer: ws, cwd }));

test("ws + stdio: a WebSocket client subscribed to a session created over stdio receives the same events; replay with afterSeq; unsubscribe", async (t) => {
  const { sessionId } = await stdio.request("createSession", { cwd });
  t.after(() => stdio.call("closeSession", { sessionId }));
  const watcher = await daemon.connect(t);
  await watcher.initialize();
  await watcher.expectError("getState", { sessionId: "no-such-session" }, -32010);
  const { streamId } = await stdio.request("getState", { sessionId });
  assert.deepEqual(await watcher.request("subscribe", { sessionId }), { subscribed: true, replayed: 0, lastSeq: 0, streamId });

  // a run started over stdio
  fake.enqueue(toolUseReply("read", { path: "a.txt" }), textReply("It says hello."));
  const run = await stdio.runPrompt(sessionId, "read a.txt");
  const seen = await watcher.runEvents(sessionId, run.runId);
  assert.deepEqual(seen, run.events, "the subscriber got exactly the creator's events");
  assert.deepEqual(seqProblems(seen), []);
  assert.equal(seen[0].seq, 1);

  // a run started by the subscriber: the creator sees it too
  const fromStdio = stdio.mark();
  fake.enqueue(textReply("Second answer."));
  const second = await watcher.runPrompt(sessionId, "and now?");
  const seenByCreator = await stdio.runEvents(sessionId, second.runId, fromStdio);
  assert.deepEqual(seenByCreator, second.events);
  assert.equal(second.events[0].seq, seen.at(-1)!.seq + 1, "one numbering for the session, whoever prompts");
  const lastSeq = second.events.at(-1)!.seq;

  // both see the same store
  assert.deepEqual(await watcher.request("getMessages", { sessionId }), await stdio.request("getMessages", { sessionId }));
  assert.deepEqual(await watcher.request("getTree", { sessionId }), await stdio.request("getTree", { sessionId }));

  // a client that reconnects after seq 3 gets the rest replayed, in order, before the answer
  const late = await daemon.connect(t);
  await late.initialize();
  const replay = await late.call("subscribe", { sessionId, afterSeq: 3 });
  assert.deepEqual(replay.result, { subscribed: true, replayed: lastSeq - 3, lastSeq, streamId });
  const answerAt = late.received.indexOf(replay);
  const replayed = late.received.slice(0, answerAt).filter(isEventMessage);
  assert.deepEqual(replayed.map((m) => m.params.seq), Array.from({ length: lastSeq - 3 }, (_, i) => i + 4), "replayed before the answer, in order");
  assert.deepEqual(late.events, [...seen, ...second.events].slice(3));
  assert.deepEqual((await late.request("subscribe", { sessionId, afterSeq: lastSeq })).replayed, 0);

  // unsubscribe: the watcher gets nothing more; the others still do
  assert.deepEqual(await watcher.request("unsubscribe", { sessionId }), { unsubscribed: true });
  assert.deepEqual(await watcher.request("unsubscribe", { sessionId }), { unsubscribed: false });
  const watcherCount = watcher.events.length;
  fake.enqueue(textReply("Third answer."));
  const lateFrom = late.mark();
  const third = await stdio.runPrompt(sessionId, "once more");
  await late.runEvents(sessionId, third.runId, lateFrom);
  await sleep(50);
  assert.equal(watcher.events.length, watcherCount, "no events after unsubscribe");
  assert.deepEqual(late.events.slice(lateFrom), third.events, "a resubscribed client is not sent events twice");
  for (const p of [watcher, late]) assert.deepEqual(p.violations, []);
  assert.equal(fake.remaining(), 0);
});

test("ws: a client that disconnects mid-run does not disturb the run; the others see it end", async (t) => {
  const { sessionId } = await stdio.request("createSession", { cwd });
  t.after(() => stdio.call("closeSession", { sessionId }));
  const leaver = await daemon.connect(t);
  await leaver.initialize();
  await leaver.request("subscribe", { sessionId });
  fake.enqueue(toolUseReply("bash", { command: "sleep 0.3; echo slept" }), textReply("Done sleeping."));
  const from = stdio.mark();
  const { runId } = await stdio.request("prompt", { sessionId, text: "sleep" });
  await leaver.waitEvent((e) => e.type === "tool_execution_start", "tool_execution_start");
  leaver.ws.terminate();
  const events = await stdio.runEvents(sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "stop");
  assert.deepEqual(seqProblems(events), []);
  await drainFake(fake);
});

test("ws: closeSession ends the session for every client", async (t) => {
  const { sessionId } = await ws.request("createSession", { cwd });
  const other = await daemon.connect(t);
  await other.initialize();
  await other.request("subscribe", { sessionId });
  assert.deepEqual(await ws.request("closeSession", { sessionId }), { closed: true });
  await other.expectError("getState", { sessionId }, -32010);
  await ws.expectError("prompt", { sessionId, text: "hi" }, -32010);
  // the file is still there: it can be opened again, with seq starting over
  const reopened = await other.request("openSession", { sessionId });
  assert.equal(reopened.sessionId, sessionId);
  await other.request("closeSession", { sessionId });
});

test("ws: the daemon is still up and wrote only JSON-RPC", () => {
  assert.equal(daemon.exit, null);
  assert.deepEqual(stdio.garbage, []);
  assert.deepEqual(ws.garbage, []);
  assert.deepEqual(stdio.violations, []);
});
