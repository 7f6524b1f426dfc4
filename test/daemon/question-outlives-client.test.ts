// A question outlives its client (issue 33, row 4): a requestPermission whose client leaves (a
// tab reloaded, a laptop lid closed) stays pending in the daemon. It is sent to every client
// following the session that can answer, again to each that subscribes while it waits (same
// requestId), and getState lists it; the first answer wins and the others see it withdrawn
// (request_resolved). Only when no client that can answer follows the session for the grace
// period (permissionGraceSeconds) is the call denied, and the run goes on as before. An abort
// or the session closing withdraws it. Real `pith serve`, WebSocket clients, the fake Messages API.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import type { ServerRequestParams } from "../../protocol/index.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { byType, FLOW_SETTINGS, startServeDaemon, writeSettings, type EvOf, type ServeDaemon, type WsPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

type Ask = ServerRequestParams<"requestPermission">;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

interface Setup {
  d: ServeDaemon;
  cwd: string;
  connect(permissions?: boolean): Promise<WsPeer>;
}

async function serve(t: TestContext, graceSeconds: number): Promise<Setup> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, permissionGraceSeconds: graceSeconds });
  t.after(() => drainFake(fake));
  const d = await startServeDaemon(t, { home, fake, cwd });
  return {
    d,
    cwd,
    connect: async (permissions = true) => {
      const peer = await d.connect(t);
      // by default a client shows the question and nobody answers it
      peer.onServerRequest.requestPermission = () => new Promise(() => {});
      t.after(() => assert.deepEqual(peer.violations, [], `${peer.label}: every event and result valid`));
      await peer.initialize({ permissions });
      return peer;
    },
  };
}

/** A session in ask mode whose next run asks to write x.txt, then (unless it stops there) says `after`. */
async function askingSession(s: Setup, a: WsPeer, stops = false): Promise<string> {
  const { sessionId } = await a.request("createSession", { cwd: s.cwd });
  await a.request("setPermissionMode", { sessionId, mode: "ask" });
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }, { id: "toolu_q" }), ...(stops ? [] : [textReply("after")]));
  return sessionId;
}

/** The requestPermission requests the client received, in order (recorded before its handler runs). */
const asked = (peer: WsPeer): Ask[] => peer.received.flatMap((m) => ("method" in m && m.method === "requestPermission" && "id" in m ? [(m as { params: Ask }).params] : []));
const askedOnce = (peer: WsPeer, what: string) => peer.until(() => asked(peer)[0], what);
const resolved = (peer: WsPeer, requestId: string) =>
  peer.waitEvent((e): e is EvOf<"request_resolved"> => e.type === "request_resolved" && e.requestId === requestId, `request_resolved ${requestId}`);
const agentEndOf = (peer: WsPeer, runId: string) => peer.waitEvent((e): e is EvOf<"agent_end"> => e.type === "agent_end" && e.runId === runId, `agent_end ${runId}`);

test("client A is asked and disconnects; B sees it in getState, subscribes, is asked the same question, allows it: the tool runs", async (t) => {
  const s = await serve(t, 30);
  const a = await s.connect();
  const sessionId = await askingSession(s, a);
  const { runId } = await a.request("prompt", { sessionId, text: "write x" });
  const first = await askedOnce(a, "A asked");
  assert.equal(first.toolCallId, "toolu_q");
  a.ws.terminate();
  await a.whenClosed;

  const b = await s.connect();
  const state = await b.request("getState", { sessionId });
  assert.equal(state.isRunning, true);
  assert.deepEqual(
    state.pendingRequests?.map((r) => [r.requestId, r.method, r.method === "requestPermission" ? r.params.toolCallId : ""]),
    [[first.requestId, "requestPermission", "toolu_q"]],
    "getState lists the question while it waits",
  );
  b.onServerRequest.requestPermission = () => ({ outcome: "allow" });
  await b.request("subscribe", { sessionId });
  const again = await askedOnce(b, "B asked");
  assert.ok(first.requestId, "the question has an id");
  assert.equal(again.requestId, first.requestId, "the same question, by its id");
  assert.deepEqual(again.args, { path: "x.txt", content: "x" });
  const done = await agentEndOf(b, runId);
  assert.equal(done.stopReason, "stop");
  const end = byType(b.sessionEvents(sessionId), "tool_execution_end").find((e) => e.toolCallId === "toolu_q");
  assert.equal(end?.isError, false, "the write ran");
  assert.equal(existsSync(join(s.cwd, "x.txt")), true);
  const r = await resolved(b, first.requestId!);
  assert.deepEqual([r.method, r.outcome, r.reason], ["requestPermission", "allow", "answered"]);
  assert.equal((await b.request("getState", { sessionId })).pendingRequests, undefined, "nothing waits any more");
});

test("two clients subscribed: both are asked, A answers, B sees the question withdrawn", async (t) => {
  const s = await serve(t, 30);
  const a = await s.connect();
  const b = await s.connect();
  const sessionId = await askingSession(s, a);
  await b.request("subscribe", { sessionId });
  // A answers once B has it too, so both copies were out at once
  a.onServerRequest.requestPermission = async () => {
    await askedOnce(b, "B asked as well");
    return { outcome: "deny" };
  };
  const { runId } = await a.request("prompt", { sessionId, text: "write x" });
  const [toA, toB] = await Promise.all([askedOnce(a, "A asked"), askedOnce(b, "B asked")]);
  assert.equal(toA.requestId, toB.requestId);
  const withdrawn = await resolved(b, toB.requestId!);
  assert.deepEqual([withdrawn.outcome, withdrawn.reason], ["deny", "answered"], "B is told A's answer settled it");
  assert.equal((await agentEndOf(a, runId)).stopReason, "stop");
  const end = byType(a.sessionEvents(sessionId), "tool_execution_end").find((e) => e.toolCallId === "toolu_q");
  assert.match(JSON.stringify(end?.result.content), /denied/);
  assert.equal(existsSync(join(s.cwd, "x.txt")), false);
  assert.equal(asked(b).length, 1, "B was asked once");
});

test("nobody that can answer subscribed for the grace period (1 s): denied then, not at once, and the run goes on", async (t) => {
  const s = await serve(t, 1);
  const a = await s.connect();
  // a viewer that cannot answer follows the session: it does not hold the question
  const viewer = await s.connect(false);
  const sessionId = await askingSession(s, a);
  await viewer.request("subscribe", { sessionId });
  const { runId } = await a.request("prompt", { sessionId, text: "write x" });
  const first = await askedOnce(a, "A asked");
  a.ws.terminate();
  await a.whenClosed;
  const left = performance.now();
  const end = await viewer.waitEvent((e): e is EvOf<"tool_execution_end"> => e.type === "tool_execution_end" && e.toolCallId === "toolu_q", "the call's end");
  const waited = performance.now() - left;
  assert.match(JSON.stringify(end.result.content), /denied/);
  assert.ok(waited >= 900, `denied after the grace period, not at once (${Math.round(waited)} ms)`);
  const r = await resolved(viewer, first.requestId!);
  assert.deepEqual([r.outcome, r.reason], ["deny", "unanswered"]);
  const done = await agentEndOf(viewer, runId);
  assert.equal(done.stopReason, "stop", "the run went on");
  const events = viewer.sessionEvents(sessionId);
  assert.ok(byType(events, "message_end").some((e) => JSON.stringify(e.message).includes("after")), "the model was called again");
  assert.equal(asked(viewer).length, 0, "a client that cannot answer is never asked");
});

test("abort withdraws the question (cancel) from every client; a closed session's question is not sent again", async (t) => {
  const s = await serve(t, 30);
  const a = await s.connect();
  const b = await s.connect();
  const sessionId = await askingSession(s, a, true);
  await b.request("subscribe", { sessionId });
  const { runId } = await a.request("prompt", { sessionId, text: "write x" });
  const toB = await askedOnce(b, "B asked");
  await a.request("abort", { sessionId });
  const r = await resolved(b, toB.requestId!);
  assert.deepEqual([r.outcome, r.reason], ["cancel", "aborted"]);
  assert.equal((await agentEndOf(b, runId)).stopReason, "aborted");
  assert.equal((await b.request("getState", { sessionId })).pendingRequests, undefined);

  // a second question, then the session closes under it
  fake.enqueue(toolUseReply("write", { path: "y.txt", content: "y" }, { id: "toolu_y" }));
  const second = await a.request("prompt", { sessionId, text: "write y" });
  const y = await b.until(() => asked(b).find((p) => p.toolCallId === "toolu_y"), "B asked about y");
  await a.request("closeSession", { sessionId });
  const closed = await resolved(b, y.requestId!);
  assert.deepEqual([closed.outcome, closed.reason], ["cancel", "closed"]);
  assert.equal(closed.seq > 0, true);
  const c = await s.connect();
  await c.request("openSession", { sessionId });
  assert.equal((await c.request("getState", { sessionId })).pendingRequests, undefined, "nothing waits in the reopened session");
  assert.equal(asked(c).length, 0, "the closed session's question is not sent again");
  assert.equal(existsSync(join(s.cwd, "y.txt")), false);
  assert.ok(second.runId);
});
