// The limit learned: an endpoint whose real window is smaller than pith believes (a proxy, a plan
// limit, an unknown model id) says so once ("prompt is too long: N tokens > M maximum"); the
// session then works to M: getState and usage_update report it with the threshold, compactions
// budget for it, no later request is over it, and a reopen keeps it. Also: the sizes pith reports
// are the context as the model sees it (system prompt and tool definitions included).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, bigText, byType, FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const BIG = { id: "big-model", contextWindow: 1_000_000, maxOutputTokens: 8_000 };
const LIMIT = 20_000;
/** the fake's count: 4 characters a token */
const sizeOf = (rawBody: string) => Math.ceil(rawBody.length / 4);

test("after one rejection the session works to the endpoint's real window, reports it, and keeps it across a reopen", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { models: [BIG], compaction: { keepRecentTokens: 2000 } });
  fake.setMaxInputTokens(LIMIT);
  t.after(() => fake.setMaxInputTokens(undefined));
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: BIG.id });
  assert.equal(s.state.contextWindow, BIG.contextWindow);
  const first = fake.requests.length;
  for (let i = 0; i < 12; i++) {
    const run = await d.peer.runPrompt(s.sessionId, bigText(`PROMPT-${i}`, 2000), 30_000);
    assert.equal(agentEnd(run.events).stopReason, "stop", `prompt ${i}: ${JSON.stringify(run.events.at(-1))}`);
  }
  const sent = fake.requests.slice(first).filter((r) => r.path === "/v1/messages");
  const over = sent.filter((r) => sizeOf(r.rawBody) > LIMIT);
  assert.equal(over.length, 1, `one request over the real window (the one that taught it), then none: ${over.map((r) => sizeOf(r.rawBody)).join(", ")}`);
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.contextWindow, LIMIT);
  assert.equal(state.model.contextWindow, BIG.contextWindow, "the model table's figure is still shown as the model's");
  assert.ok(state.threshold !== undefined && state.threshold > 0 && state.threshold < LIMIT, JSON.stringify(state));
  const usage = byType(d.peer.events, "usage_update").filter((e) => e.sessionId === s.sessionId).at(-1)!;
  assert.equal(usage.contextWindow, LIMIT);
  assert.equal(usage.threshold, state.threshold);
  d.endStdin();
  await d.waitExit();

  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const reopened = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.equal(reopened.state.contextWindow, LIMIT, "the learned window survives a reopen");
  d2.endStdin();
  await d2.waitExit();
  await drainFake(fake);
});

test("the context pith reports counts the system prompt and tool definitions: tokensAfter and the next request agree", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(textReply(`hello ${"and more ".repeat(300)}`));
  await d.peer.runPrompt(s.sessionId, bigText("FIRST"));
  fake.enqueue(textReply("noted"));
  await d.peer.runPrompt(s.sessionId, bigText("SECOND"));
  fake.enqueue(textReply("SUMMARY: a greeting and a long request."));
  const result = await d.peer.request("compact", { sessionId: s.sessionId });
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.contextTokens, result.tokensAfter, "getState says what the compaction said");
  fake.enqueue(textReply("ok"));
  const before = fake.requests.length;
  await d.peer.runPrompt(s.sessionId, "short question");
  const next = sizeOf(fake.requests[before].rawBody);
  const ratio = result.tokensAfter / next;
  t.diagnostic(`tokensAfter ${result.tokensAfter}, next request ${next} tokens (4 chars a token): ${ratio.toFixed(2)}`);
  assert.ok(ratio > 0.75 && ratio < 1.35, `tokensAfter ${result.tokensAfter} vs the next request's ${next}: the system prompt and tools must be counted`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
