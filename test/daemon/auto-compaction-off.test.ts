// Off means off: with automatic compaction disabled for a session, pith compacts only when asked.
// An overflow (Anthropic's 400 "prompt is too long") ends the run with -32021 ContextFull and the
// sizes, with no compaction, no summarizer request and nothing stored as a compaction; a manual
// `compact` then works and the next prompt runs. A prompt an endpoint cut without saying so
// (Ollama) is reported the same way and not compacted either.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { promptTooLong, startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama.js";
import { runCutPrompt } from "../support/cut-prompt.js";
import { agentEnd, bigText, byType, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
let ollama: FakeOllama;
before(async () => {
  fake = await startFakeAnthropic();
  ollama = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, capabilities: ["completion", "tools"] }] });
});
after(async () => {
  await fake.close();
  await ollama.close();
});

const MODEL = { id: "wide-model", contextWindow: 200_000, maxOutputTokens: 8_000 };

test("automatic compaction off: an overflow ends the run with -32021 and the sizes, nothing compacted; a manual compact works, then the next prompt runs", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { models: [MODEL], compaction: { keepRecentTokens: 200, prepareAt: 0 } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  t.after(() => drainFake(fake));
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: MODEL.id });
  assert.deepEqual(await d.peer.request("setAutoCompactionEnabled", { sessionId: s.sessionId, enabled: false }), { enabled: false });
  fake.enqueue(textReply(`first reply ${bigText("ONE", 300)}`, { usage: { input_tokens: 150_000, output_tokens: 400 } }));
  assert.equal(agentEnd((await d.peer.runPrompt(s.sessionId, bigText("PROMPT-ONE", 300))).events).stopReason, "stop");

  const before = fake.requests.length;
  fake.enqueue(promptTooLong(219_898, 200_000));
  const run = await d.peer.runPrompt(s.sessionId, bigText("PROMPT-TWO", 300));
  assert.deepEqual(byType(run.events, "compaction_start"), [], "no compaction unasked");
  assert.deepEqual(byType(run.events, "compaction_end"), []);
  assert.equal(fake.requests.length, before + 1, "one request, the refused one: no summarizer request, no retry");
  const errors = byType(run.events, "error");
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0].code, ErrorCodes.ContextFull);
  assert.match(errors[0].message, /context is full.*automatic compaction is off/);
  const data = errors[0].data as { contextTokens: number; contextWindow: number; class: string; status?: number; retryable: boolean };
  assert.equal(data.contextWindow, 200_000);
  assert.ok(data.contextTokens > 150_000, JSON.stringify(data));
  assert.deepEqual([data.class, data.status, data.retryable], ["overflow", 400, false]);
  const end = agentEnd(run.events);
  assert.equal(end.stopReason, "error");
  assert.equal(end.error?.code, ErrorCodes.ContextFull, "agent_end's error carries the same code");
  assert.ok(run.events.indexOf(errors[0]) < run.events.indexOf(end), "the error event comes before agent_end");
  const history = await d.peer.request("getHistory", { sessionId: s.sessionId });
  assert.deepEqual(history.compactions, [], "nothing stored as a compaction");
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.equal(state.autoCompactionEnabled, false);

  // asked for, it compacts
  fake.enqueue(textReply("SUMMARY-MANUAL: two long prompts."));
  const from = d.peer.mark();
  const compacted = await d.peer.request("compact", { sessionId: s.sessionId });
  assert.match(compacted.summary, /SUMMARY-MANUAL/);
  const started = byType(d.peer.sessionEvents(s.sessionId, from), "compaction_start");
  assert.deepEqual(started.map((e) => e.reason), ["manual"]);

  // and the next prompt runs on the compacted context
  fake.enqueue(textReply("THREE done"));
  const next = await d.peer.runPrompt(s.sessionId, "PROMPT-THREE");
  assert.equal(agentEnd(next.events).stopReason, "stop");
  assert.deepEqual(byType(next.events, "error"), []);
  assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages), /SUMMARY-MANUAL/);
  assert.equal(fake.remaining(), 0);
  d.endStdin();
  await d.waitExit();
});

test("automatic compaction off: a prompt the endpoint cut without saying so is reported as -32021 and not compacted", async (t) => {
  const { d, sessionId, events, requestsBefore: before } = await runCutPrompt(t, ollama, { autoCompaction: false });
  const run = { events };
  assert.equal(agentEnd(run.events).stopReason, "stop", "the endpoint answered: the run goes on");
  assert.deepEqual(byType(run.events, "compaction_start"), [], "no compaction unasked");
  const errors = byType(run.events, "error");
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0].code, ErrorCodes.ContextFull);
  const data = errors[0].data as { truncated: boolean; contextTokens: number; contextWindow: number; reportedTokens: number };
  assert.equal(data.truncated, true);
  assert.equal(data.reportedTokens, 2000);
  assert.equal(data.contextWindow, 2048, "the window the report implies is still learned");
  assert.ok(data.contextTokens > data.contextWindow, JSON.stringify(data));
  assert.equal(ollama.chatRequests.length, before + 1, "no summarizer request");
  assert.deepEqual((await d.peer.request("getHistory", { sessionId })).compactions, []);
  d.endStdin();
  await d.waitExit();
});
