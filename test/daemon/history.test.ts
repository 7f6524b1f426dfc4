// getHistory over the real binary: what the context no longer holds (the branch before the latest
// compaction's first kept entry, earlier compactions as summaries) and the compactions as stored,
// with the reason and tokensAfter a marker needs to read after a reload as it did live.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, FLOW_SETTINGS, SMALL_MODEL, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("getHistory: the messages before the context, earlier compactions as summaries, and each compaction's reason and tokensAfter", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd, model: SMALL_MODEL.id });

  const none = await d.peer.request("getHistory", { sessionId });
  assert.deepEqual(none, { messages: [], compactions: [] }, "no compaction: nothing outside the context");

  fake.enqueue(textReply("first reply"), textReply("second reply"), textReply("## Goal\nFIRST SUMMARY"));
  await d.peer.runPrompt(sessionId, bigText("ONE"));
  await d.peer.runPrompt(sessionId, bigText("TWO"));
  const first = await d.peer.request("compact", { sessionId });
  fake.enqueue(textReply("third reply"), textReply("## Goal\nSECOND SUMMARY"));
  await d.peer.runPrompt(sessionId, bigText("THREE"));
  const second = await d.peer.request("compact", { sessionId });

  const h = await d.peer.request("getHistory", { sessionId });
  assert.equal(h.compactions.length, 2);
  assert.deepEqual(
    h.compactions.map((c) => [c.tokensBefore, c.details?.reason, c.details?.tokensAfter]),
    [
      [first.tokensBefore, "manual", first.tokensAfter],
      [second.tokensBefore, "manual", second.tokensAfter],
    ],
  );
  // the context starts at the second summary, with the same timestamp as its stored compaction
  const { messages: context } = await d.peer.request("getMessages", { sessionId });
  assert.equal(context[0].role, "compactionSummary");
  assert.equal(context[0].timestamp, h.compactions[1].timestamp);
  // before it: the first exchange, the first compaction as a summary, up to the second's first kept entry
  const roles = h.messages.map((m) => m.role);
  assert.equal(roles[0], "user");
  assert.match(JSON.stringify(h.messages[0]), /ONE: /);
  assert.ok(h.messages.some((m) => m.role === "assistant" && JSON.stringify(m).includes("first reply")));
  assert.ok(roles.includes("compactionSummary"), `the earlier compaction: ${roles.join(", ")}`);
  // nothing is both in the history and in the context
  const contextKeys = new Set(context.map((m) => `${m.role}:${m.timestamp}`));
  assert.deepEqual(h.messages.filter((m) => contextKeys.has(`${m.role}:${m.timestamp}`)), []);

  const light = await d.peer.request("getHistory", { sessionId, messages: false });
  assert.deepEqual(light, { messages: [], compactions: h.compactions });
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
