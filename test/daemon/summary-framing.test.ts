// Conversation framing through the daemon against the fake Messages API: the summary request is
// the agent's last request sent again byte for byte (system, tools, messages, cache breakpoints,
// thinking and tool_choice as they were), then the reply and one ask; compaction_end reports what
// it cost and getSessionStats sums it; a tool call in the summary's reply is never run; another
// summarizer model gets the transcript framing.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic, type RecordedRequest } from "../support/fake-anthropic.js";
import { asEvent, bigText, byType, SMALL_MODEL, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const PRICED = { ...SMALL_MODEL, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
const OTHER = { ...PRICED, id: "small-model-b" };

async function session(t: Parameters<typeof tempDir>[0], compaction: Record<string, unknown> = {}): Promise<{ d: RpcDaemon; sessionId: string; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { models: [PRICED, OTHER], compaction: { keepRecentTokens: 200, prepareAt: 0, ...compaction } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: PRICED.id });
  t.after(() => drainFake(fake));
  return { d, sessionId: s.sessionId, cwd };
}

/** Two exchanges; returns the index of the agent's last request. */
async function twoTurns(d: RpcDaemon, sessionId: string): Promise<number> {
  fake.enqueue(textReply("first answer"));
  await d.peer.runPrompt(sessionId, bigText("ONE"));
  fake.enqueue(textReply("second answer"));
  await d.peer.runPrompt(sessionId, bigText("TWO"));
  return fake.requests.length - 1;
}

const json = (v: unknown) => JSON.stringify(v);
const lastText = (r: RecordedRequest): string => {
  const m = r.body.messages[r.body.messages.length - 1];
  return m.content.map((b: { type: string; text?: string }) => b.text ?? "").join("");
};

test("conversation framing: the summary request is the last agent request byte for byte with its cache breakpoints, then the reply and the ask; its cost is reported and summed", async (t) => {
  const { d, sessionId } = await session(t);
  const agentAt = await twoTurns(d, sessionId);
  const agent = fake.requests[agentAt];
  fake.enqueue(textReply("CONVERSATION SUMMARY", { usage: { input_tokens: 40, output_tokens: 100, cache_read_input_tokens: 3000, cache_creation_input_tokens: 0 } }));
  const from = d.peer.mark();
  const result = await d.peer.request("compact", { sessionId });
  assert.match(result.summary, /CONVERSATION SUMMARY/);
  const summary = fake.requests[agentAt + 1];
  assert.equal(fake.requests.length, agentAt + 2, "one summarizer request");

  assert.equal(json(summary.body.system), json(agent.body.system), "the same system prompt, with its breakpoint");
  assert.equal(json(summary.body.tools), json(agent.body.tools), "the same tools, with their breakpoint");
  assert.ok(agent.body.tools.length > 0);
  assert.equal(json(summary.body.thinking), json(agent.body.thinking));
  assert.equal(json(summary.body.tool_choice), json(agent.body.tool_choice));
  assert.equal(summary.body.max_tokens, agent.body.max_tokens);
  const sent = agent.body.messages as unknown[];
  const prefix = json(sent).slice(0, -1);
  assert.ok(json(summary.body.messages).startsWith(prefix), "the agent's messages are the summary request's first, byte for byte");
  assert.ok(summary.rawBody.includes(prefix.slice(1)), "and so in the raw body");
  const marked = (m: { content: { cache_control?: unknown }[] }) => m.content.some((b) => b.cache_control !== undefined);
  assert.ok(marked(sent[sent.length - 1] as never), "the agent's last turn carries a breakpoint, still there in the summary request");
  const rest = (summary.body.messages as { role: string; content: { cache_control?: unknown }[] }[]).slice(sent.length);
  assert.deepEqual(rest.map((m) => m.role), ["assistant", "user"], "then the reply and the ask");
  assert.ok(!rest.some(marked), "no breakpoint after the agent's");
  assert.match(lastText(summary), /Do not call any tool/);
  assert.match(lastText(summary), /cut before message \d+ of this conversation/);

  const end = asEvent(await d.peer.waitEvent((e) => e.type === "compaction_end" && e.sessionId === sessionId, "compaction_end", from), "compaction_end");
  const usd = (40 * 3 + 100 * 15 + 3000 * 0.3) / 1e6;
  assert.deepEqual({ ...end.cost, cost: undefined }, { input: 40, cacheRead: 3000, cacheWrite: 0, output: 100, cost: undefined });
  assert.ok(Math.abs((end.cost?.cost ?? 0) - usd) < 1e-12, `cost ${end.cost?.cost} = ${usd}`);
  const stats = await d.peer.request("getSessionStats", { sessionId });
  assert.equal(stats.compaction?.count, 1);
  assert.equal(stats.compaction?.cacheRead, 3000);
  assert.ok(Math.abs((stats.compaction?.cost ?? 0) - usd) < 1e-12);
});

test("a tool call in the summary's reply is never run: the summary is the reply's text", async (t) => {
  const { d, sessionId, cwd } = await session(t);
  const agentAt = await twoTurns(d, sessionId);
  fake.enqueue(toolUseReply("bash", { command: "touch RAN" }, { text: "SUMMARY BEFORE A CALL" }));
  const from = d.peer.mark();
  const result = await d.peer.request("compact", { sessionId });
  assert.match(result.summary, /SUMMARY BEFORE A CALL/);
  assert.equal(fake.requests.length, agentAt + 2, "no request after the summary's (no tool result sent back)");
  assert.ok(fake.requests[agentAt + 1].body.tools.length > 0, "it was the conversation framing");
  assert.equal(byType(d.peer.events.slice(from), "tool_execution_start").length, 0);
  assert.ok(!existsSync(join(cwd, "RAN")));
});

test("another summarizer model gets the transcript framing: no tools, the summarizer's own system prompt, one user message", async (t) => {
  const { d, sessionId } = await session(t, { model: OTHER.id });
  const agentAt = await twoTurns(d, sessionId);
  fake.enqueue(textReply("TRANSCRIPT SUMMARY"));
  await d.peer.request("compact", { sessionId });
  const summary = fake.requests[agentAt + 1];
  assert.equal(summary.body.model, OTHER.id);
  assert.equal((summary.body.tools ?? []).length, 0);
  assert.match(json(summary.body.system), /handover notes/);
  assert.equal(summary.body.messages.length, 1);
  assert.match(lastText(summary), /<transcript>/);
});

test("summaryFraming \"transcript\" keeps the serialized request for the session's own model", async (t) => {
  const { d, sessionId } = await session(t, { summaryFraming: "transcript" });
  const agentAt = await twoTurns(d, sessionId);
  fake.enqueue(textReply("TRANSCRIPT SUMMARY"));
  await d.peer.request("compact", { sessionId });
  const summary = fake.requests[agentAt + 1];
  assert.equal((summary.body.tools ?? []).length, 0);
  assert.equal(summary.body.messages.length, 1);
});

test("the summary written ahead of time uses the conversation framing right after the turn, and the compaction that adopts it reports its cost", async (t) => {
  const { d, sessionId } = await session(t, { prepareAt: 0.8 });
  fake.enqueue(textReply("first answer", { usage: { input_tokens: 3000 } }));
  await d.peer.runPrompt(sessionId, bigText("ONE"));
  const from = d.peer.mark();
  // past 0.8 of the threshold (40,000 - 16,384), under it: the summary starts when this run ends
  fake.enqueue(textReply("second answer", { usage: { input_tokens: 23_000 } }), textReply("AHEAD SUMMARY", { usage: { input_tokens: 20, output_tokens: 80, cache_read_input_tokens: 2500, cache_creation_input_tokens: 0 } }));
  await d.peer.runPrompt(sessionId, bigText("TWO"));
  const agentAt = fake.requests.length - 1;
  const started = asEvent(await d.peer.waitEvent((e) => e.type === "compaction_update" && e.reason === "prepare", "the summary ahead of time", from), "compaction_update");
  await d.peer.waitEvent((e) => e.type === "compaction_update" && e.compactionId === started.compactionId && e.phase === "ready", "it is ready", from);
  const agent = fake.requests[agentAt];
  const summary = fake.requests[agentAt + 1];
  assert.ok(json(summary.body.messages).startsWith(json(agent.body.messages).slice(0, -1)), "the request just sent, read again from the cache");
  fake.enqueue(textReply("third answer"));
  await d.peer.runPrompt(sessionId, bigText("THREE"));
  const end = asEvent(await d.peer.waitEvent((e) => e.type === "compaction_end" && e.compactionId === started.compactionId, "compaction_end", from), "compaction_end");
  assert.equal(end.prepared, true);
  assert.deepEqual({ ...end.cost, cost: 0 }, { input: 20, cacheRead: 2500, cacheWrite: 0, output: 80, cost: 0 });
  const stats = await d.peer.request("getSessionStats", { sessionId });
  assert.equal(stats.compaction?.count, 1);
});
