// pith's own protocol: a client may answer requestPermission with `cancel` (the user dismissed the
// question and wants the turn to stop). The run stops as `abort` stops it: the call does not run
// and is stored as aborted, the model is not called again, agent_end says aborted.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, byType, FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("requestPermission answered cancel: agent_end aborted, the call stored as aborted, no further model call or question", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  t.after(() => drainFake(fake));
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize({ permissions: true });
  const s = await d.peer.request("createSession", { cwd });
  await d.peer.request("setPermissionMode", { sessionId: s.sessionId, mode: "ask" });
  const asked: string[] = [];
  d.peer.onServerRequest.requestPermission = (p) => {
    asked.push(p.toolCallId);
    return { outcome: "cancel" };
  };
  const from = fake.requests.length;
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }, { id: "toolu_asked" }), toolUseReply("write", { path: "y.txt", content: "y" }), textReply("never"));
  const run = await d.peer.runPrompt(s.sessionId, "write x");
  assert.equal(agentEnd(run.events).stopReason, "aborted");
  assert.deepEqual(asked, ["toolu_asked"], "one question");
  assert.equal(fake.requests.slice(from).filter((r) => r.path === "/v1/messages").length, 1, "no model call after the question");
  const ends = byType(run.events, "tool_execution_end");
  assert.deepEqual(ends.map((e) => [e.toolCallId, e.isError, e.result.details]), [["toolu_asked", true, { aborted: true }]]);
  assert.equal(existsSync(join(cwd, "x.txt")), false, "not written");
  const { messages } = await d.peer.request("getMessages", { sessionId: s.sessionId });
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult"]);
  d.endStdin();
  assert.equal((await d.waitExit()).code, 0);
});
