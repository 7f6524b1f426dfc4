// A steer sent while the model streams a text reply, through the daemon (`pith serve --stdio`, a
// WebSocket client watching) against the fake Messages API streaming a long reply slowly. Pi's
// rule: the steer goes in at the next point the model can take it, right when that reply ends, as
// the next user message of the same run, before any further model call (and before a follow-up
// queued earlier, which waits until the model would stop). Every client of the session sees the
// queued texts (queue_update, getState.queue). "Stop and send now" (abort {queued: "send"}) ends
// the reply at once, keeping what streamed, and the steer starts the next run: stored once, never
// dropped. One daemon for the file.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, asEvent, byType, Cleanup, FLOW_SETTINGS, SMALL_MODEL, startServeDaemon, textOf, writeSettings, type Ev, type RpcPeer, type ServeDaemon, type WsPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
let daemon: ServeDaemon;
let peer: RpcPeer;
let watcher: WsPeer;
let cwd: string;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
  const home = tempDir(cleanup, "pith-daemon-home-");
  cwd = tempDir(cleanup, "pith-daemon-cwd-");
  writeSettings(home, FLOW_SETTINGS);
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, stdio: true });
  peer = daemon.peer!;
  watcher = await daemon.connect(cleanup);
  await Promise.all([peer.initialize(), watcher.initialize()]);
});

after(async () => {
  if (daemon.exit === null) {
    daemon.proc.stdin!.end(); // serve --stdio does not exit on SIGTERM while its stdin is open
    daemon.proc.kill("SIGTERM");
    await daemon.waitExit().catch(() => daemon.kill9());
  }
  await fake.close();
  await cleanup.run();
});

/** About 2,300 characters, streamed 40 code points a frame, 10 ms apart: over half a second of reply. */
const LONG = Array.from({ length: 46 }, (_, i) => `line ${String(i).padStart(2, "0")} of a long answer, still going on. `).join("");
const slowReply = (text = LONG) => textReply(text, { chunkSize: 40, delayMs: 10 });

async function session(t: { after(fn: () => unknown): void }): Promise<string> {
  const { sessionId } = await peer.request("createSession", { cwd, model: SMALL_MODEL.id });
  await watcher.request("subscribe", { sessionId });
  t.after(() => drainFake(fake));
  return sessionId;
}

const modelRequests = (from: number) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length > 0);
const users = (events: readonly Ev[]) => byType(events, "message_start").filter((e) => e.message.role === "user").map((e) => textOf(e.message));
const texts = (queue: readonly { delivery: string; text: string }[] | undefined) => (queue ?? []).map((q) => `${q.delivery}:${q.text}`);

test("a steer sent during a text reply goes in right when that reply ends, before the follow-up queued earlier; every client sees the queued texts", async (t) => {
  const sessionId = await session(t);
  const STEER = "STEER-DURING-TEXT-4e1";
  const FOLLOW = "FOLLOWUP-DURING-TEXT-9a3";
  fake.enqueue(slowReply(), textReply("ANSWER-TO-STEER"), textReply("ANSWER-TO-FOLLOWUP"));
  const before = fake.requests.length;
  const from = peer.mark();
  const seen = watcher.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "tell me a long story" });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "message_update", "the reply streaming", from);
  await peer.request("prompt", { sessionId, text: FOLLOW, delivery: "followUp" });
  await peer.request("prompt", { sessionId, text: STEER, delivery: "steer" });

  // the other client: the texts, in the order accepted, by event and by getState
  const update = asEvent(await watcher.waitEvent((e) => e.sessionId === sessionId && e.type === "queue_update" && e.queue.length === 2, "queue_update with both", seen), "queue_update");
  assert.deepEqual(texts(update.queue), [`followUp:${FOLLOW}`, `steer:${STEER}`]);
  const state = await watcher.request("getState", { sessionId });
  assert.deepEqual(texts(state.queue), [`followUp:${FOLLOW}`, `steer:${STEER}`]);
  assert.deepEqual(state.pending, { steer: 1, followUp: 1 });

  const events = await peer.runEvents(sessionId, runId, from);
  const firstReplyEnd = events.findIndex((e) => e.type === "message_end" && e.message.role === "assistant");
  assert.ok(peer.sessionEvents(sessionId, from).findIndex((e) => e.type === "queue_update" && e.queue.length === 2) < firstReplyEnd, "queued while the reply streamed");
  // right after the reply: its turn_end, then the steer, then the next model call
  const after = events.slice(firstReplyEnd + 1).filter((e) => e.type !== "queue_update").map((e) => (e.type === "message_start" || e.type === "message_end" ? `${e.type}:${e.message.role}:${textOf(e.message).slice(0, 30)}` : e.type));
  assert.deepEqual(after.slice(0, 4), ["turn_end", `message_start:user:${STEER}`, `message_end:user:${STEER}`, "turn_start"], "the steer is the next thing after the reply");
  assert.deepEqual(users(events), ["tell me a long story", STEER, FOLLOW], "one run; the follow-up after the steer's answer");
  assert.equal(agentEnd(events).stopReason, "stop");
  assert.equal(byType(peer.sessionEvents(sessionId, from), "agent_start").length, 1, "in the same run");

  const requests = modelRequests(before);
  assert.equal(requests.length, 3);
  assert.ok(requests[1].rawBody.includes(STEER) && !requests[1].rawBody.includes(FOLLOW), "the next request carries the steer, not yet the follow-up");
  assert.ok(requests[1].rawBody.includes("line 45 of a long answer"), "after the whole reply");
  assert.ok(requests[2].rawBody.includes(FOLLOW) && requests[2].rawBody.includes("ANSWER-TO-STEER"), "the follow-up once the model answered the steer");

  // the watcher saw the queue shrink as each was delivered
  const updates = byType(watcher.sessionEvents(sessionId, seen), "queue_update").map((e) => texts(e.queue));
  assert.deepEqual(updates.slice(-2), [[`followUp:${FOLLOW}`], []]);
  assert.deepEqual((await watcher.request("getState", { sessionId })).queue, []);
});

test("stop and send now (abort {queued: \"send\"}): the reply stops, what streamed is kept, the steer starts the next run at once, stored once", async (t) => {
  const sessionId = await session(t);
  const STEER = "STEER-SEND-NOW-77b";
  fake.enqueue(slowReply(LONG + LONG + LONG), textReply("ANSWER-TO-STEER-NOW"));
  const before = fake.requests.length;
  const from = peer.mark();
  const seen = watcher.mark();
  const { runId } = await peer.request("prompt", { sessionId, text: "tell me a very long story" });
  await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "message_update", "the reply streaming", from);
  await peer.request("prompt", { sessionId, text: STEER, delivery: "steer" });
  await watcher.waitEvent((e) => e.sessionId === sessionId && e.type === "queue_update" && e.queue.length === 1, "the steer queued, seen by the other client", seen);
  assert.deepEqual(await peer.request("abort", { sessionId, queued: "send" }), { aborted: true });

  const events = await peer.runEvents(sessionId, runId, from);
  assert.equal(agentEnd(events).stopReason, "aborted");
  assert.equal(byType(peer.sessionEvents(sessionId, from), "prompts_dropped").length, 0, "nothing dropped");
  const start = asEvent(await peer.waitEvent((e) => e.sessionId === sessionId && e.type === "agent_start" && e.queuedFrom === runId, "the run the steer starts", from), "agent_start");
  const next = await peer.runEvents(sessionId, start.runId, from);
  assert.deepEqual(users(next.slice(next.indexOf(start))), [STEER], "the next run starts with the steer");
  assert.equal(agentEnd(next).stopReason, "stop");

  const { messages } = await peer.request("getMessages", { sessionId });
  const partial = messages.find((m) => m.role === "assistant" && m.stopReason === "aborted");
  assert.ok(partial && textOf(partial).startsWith("line 00 of a long answer") && textOf(partial).length < (LONG + LONG + LONG).length, "the aborted reply is stored with what streamed of it");
  assert.equal(messages.filter((m) => m.role === "user" && textOf(m) === STEER).length, 1, "stored once");
  assert.equal(textOf(messages.at(-1)), "ANSWER-TO-STEER-NOW");
  const requests = modelRequests(before);
  assert.equal(requests.length, 2);
  assert.ok(requests[1].rawBody.includes(STEER), "the next request carries it");
  assert.deepEqual((await watcher.request("getState", { sessionId })).queue, [], "nothing left queued");
  assert.deepEqual(byType(watcher.sessionEvents(sessionId, seen), "queue_update").at(-1)?.queue, []);
});
