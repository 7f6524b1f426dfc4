// Acknowledged means durable: a prompt answered with a runId has its user message on stable
// storage (fsynced) before the answer; a queued steer / follow-up is recorded durably when
// accepted and restored into the queue on reopen (visible in getState), delivered first by the
// next run; a graceful close keeps the queue, the user's abort drops it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SessionHost } from "../../src/host/session-host.js";
import { createLogger } from "../../src/log/logger.js";
import { SessionFile } from "../../src/session/index.js";
import { PROMPT_QUEUE_TYPE } from "../../src/session/types.js";
import { hang, startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, textOf, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";
import { gated } from "../support/gated.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("prompt answers only after the user message is fsynced", async (t) => {
  const home = tempDir(t);
  const h = new SessionHost({ sessionsDir: join(home, "sessions"), logger: createLogger("silent"), env: { PITH_HOME: home }, script: { turns: [{ text: "slow", delayMs: 5000 }] } });
  t.after(() => h.shutdown());
  const s = await h.create({ cwd: tempDir(t) });
  const syncedAt: number[] = [];
  const sync = s.file.sync.bind(s.file);
  s.file.sync = () => {
    syncedAt.push(s.file.entryCount);
    sync();
  };
  const before = s.file.entryCount;
  await gated(s).prompt({ text: "remember me" });
  const userIndex = s.file.entries().findIndex((e) => e.type === "message" && e.message.role === "user");
  assert.ok(userIndex >= before, "the user message is stored");
  assert.ok(
    syncedAt.some((count) => count > userIndex),
    `a sync covered the user message (entry ${userIndex}) before prompt answered; syncs at entry counts ${JSON.stringify(syncedAt)}`,
  );
  s.abort();
  await s.idle();
});

test("queued steer and follow-up prompts survive kill -9, show in getState after reopen, and are stored first by the next run", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "thinking for ever", chunkSize: 4 }] }, afterFrames: 4 }));
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "start" });
  await d.peer.waitEvent((e) => e.type === "message_update", "the reply to start", from);
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "queued follow-up", delivery: "followUp" });
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "queued steer", delivery: "steer" });
  assert.deepEqual((await d.peer.request("getState", { sessionId: s.sessionId })).pending, { steer: 1, followUp: 1 });
  await d.kill9();
  await drainFake(fake);

  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const r = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.deepEqual(r.state.pending, { steer: 1, followUp: 1 }, "restored into the queue");
  fake.enqueue(textReply("all done"));
  await d2.peer.runPrompt(r.sessionId, "new prompt");
  const { messages } = await d2.peer.request("getMessages", { sessionId: r.sessionId });
  const users = messages.filter((m: { role: string }) => m.role === "user").map(textOf);
  assert.deepEqual(users, ["start", "queued follow-up", "queued steer", "new prompt"], "in the order they were accepted, before the new prompt");
  assert.deepEqual((await d2.peer.request("getState", { sessionId: r.sessionId })).pending, { steer: 0, followUp: 0 });
  d2.endStdin();
  await d2.waitExit();

  // delivered prompts are not restored again
  const d3 = startRpcDaemon(t, { home, fake, cwd });
  await d3.peer.initialize();
  assert.deepEqual((await d3.peer.request("openSession", { sessionFile: s.sessionFile })).state.pending, { steer: 0, followUp: 0 });
  d3.endStdin();
  await d3.waitExit();
});

test("closeSession keeps a queued prompt for the next open; abort drops it", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const queueOne = async (sessionId: string) => {
    fake.enqueue(hang({ reply: { content: [{ type: "text", text: "working", chunkSize: 4 }] }, afterFrames: 4 }));
    const from = d.peer.mark();
    await d.peer.request("prompt", { sessionId, text: "run" });
    await d.peer.waitEvent((e) => e.type === "message_update", "the reply", from);
    await d.peer.request("prompt", { sessionId, text: "later", delivery: "followUp" });
  };
  await queueOne(s.sessionId);
  await d.peer.request("closeSession", { sessionId: s.sessionId });
  await drainFake(fake);
  const reopened = await d.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.deepEqual(reopened.state.pending, { steer: 0, followUp: 1 }, "a close is not the user dropping the prompt");

  await queueOne(reopened.sessionId);
  await d.peer.request("abort", { sessionId: reopened.sessionId });
  await d.peer.waitEvent((e) => e.type === "agent_end" && e.sessionId === reopened.sessionId, "agent_end");
  await d.peer.request("closeSession", { sessionId: reopened.sessionId });
  await drainFake(fake);
  const third = await d.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.deepEqual(third.state.pending, { steer: 0, followUp: 0 }, "the user's abort dropped what was queued");
  d.endStdin();
  await d.waitExit();
});

test("a prompt delivered just before a crash (before the shorter queue was recorded) is not restored twice", async (t) => {
  const s = SessionFile.create({ cwd: "/w", sessionsDir: tempDir(t) });
  s.appendBookkeeping(PROMPT_QUEUE_TYPE, { items: [{ delivery: "followUp", text: "one", timestamp: 111 }, { delivery: "steer", text: "two", timestamp: 222 }] });
  s.appendMessage({ role: "user", content: "one", timestamp: 111 });
  s.close();
  const home = tempDir(t);
  const h = new SessionHost({ sessionsDir: join(home, "sessions"), logger: createLogger("silent"), env: { PITH_HOME: home } });
  t.after(() => h.shutdown());
  const live = await h.open({ sessionFile: s.file });
  assert.deepEqual(live.getState().pending, { steer: 1, followUp: 0 });
});
