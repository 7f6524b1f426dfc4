// A beforeCompact hook request outlives its client too (issue 33, row 4): the hook client that
// was asked leaves in the middle of a manual compaction; the request waits (getState lists it),
// is sent again to a hook client that subscribes, and that client's summary is the one stored.
// Real `pith serve`, WebSocket clients, the fake Messages API (a summarizer reply is queued, so
// a daemon that gave up on the hook at once would store pith's own summary instead).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ServerRequestParams } from "../../protocol/index.js";
import { startFakeAnthropic, textReply } from "../support/fake-anthropic.js";
import type { FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, FLOW_SETTINGS, startServeDaemon, writeSettings, type EvOf, type WsPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

type Hook = ServerRequestParams<"beforeCompact">;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const hooked = (peer: WsPeer): Hook[] => peer.received.flatMap((m) => ("method" in m && m.method === "beforeCompact" && "id" in m ? [(m as { params: Hook }).params] : []));

test("the hook client asked leaves mid-compaction; a hook client that subscribes is asked the same request and its summary is stored", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, permissionGraceSeconds: 30 });
  t.after(() => drainFake(fake));
  const d = await startServeDaemon(t, { home, fake, cwd });
  const a = await d.connect(t);
  a.onServerRequest.beforeCompact = () => new Promise(() => {}); // shown, never answered
  await a.initialize({ permissions: false, hooks: ["beforeCompact"] });
  const { sessionId } = await a.request("createSession", { cwd });
  for (const tag of ["ONE", "TWO"]) {
    fake.enqueue(textReply(bigText(`REPLY-${tag}`)));
    const { runId } = await a.request("prompt", { sessionId, text: bigText(`PROMPT-${tag}`) });
    await a.waitEvent((e) => e.type === "agent_end" && e.runId === runId, `run ${tag}`);
  }
  fake.enqueue(textReply("pith's own summary"));
  const compacting = a.request("compact", { sessionId }).catch((err: Error) => err);
  const first = await a.until(() => hooked(a)[0], "A asked the hook");
  a.ws.terminate();
  await a.whenClosed;
  void compacting;

  const b = await d.connect(t);
  b.onServerRequest.beforeCompact = () => ({ action: "replace", summary: "B's summary" });
  t.after(() => assert.deepEqual(b.violations, []));
  await b.initialize({ permissions: false, hooks: ["beforeCompact"] });
  const state = await b.request("getState", { sessionId });
  assert.deepEqual(state.pendingRequests?.map((r) => [r.requestId, r.method]), [[first.requestId, "beforeCompact"]], "getState lists the hook request");
  await b.request("subscribe", { sessionId });
  const again = await b.until(() => hooked(b)[0], "B asked the hook");
  assert.ok(first.requestId);
  assert.equal(again.requestId, first.requestId);
  const end = await b.waitEvent((e): e is EvOf<"compaction_end"> => e.type === "compaction_end", "compaction_end");
  assert.equal(end.aborted, false);
  assert.equal(end.result?.summary, "B's summary", "the summary of the client that answered");
  assert.equal(end.result?.fromHook, true);
  const resolved = await b.waitEvent((e): e is EvOf<"request_resolved"> => e.type === "request_resolved" && e.requestId === first.requestId, "request_resolved");
  assert.deepEqual([resolved.method, resolved.outcome, resolved.reason], ["beforeCompact", "replace", "answered"]);
  assert.equal(fake.remaining(), 1, "pith's summarizer was never asked");
});
