// A hostile or intercepted model endpoint streams a reply that never ends (issue 32, row 9):
// text, thinking, or a tool call's arguments. Through the real daemon with the cap set small
// (maxReplyMB 2): the stream is cut at the cap (the fake server sees its connection closed), the
// run ends with -32020 ReplyTooLarge, the reply is stored up to the cap and marked as cut, no
// line of the session file is much bigger than the cap, and another session answers meanwhile.
// The same through an OpenAI-compatible server: the cap does not depend on the provider.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { ErrorCodes } from "../../protocol/error-codes.js";
import type { AgentMessage } from "../../protocol/index.js";
import { endlessReply, startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import * as openai from "../support/fake-openai.js";
import { agentEnd, asMessage, byType, checkDist, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

const CAP_MB = 2;
const CAP = CAP_MB << 20;
/** the fakes' safety stop: far past the cap, so a stream that is not cut shows as one that ran on */
const SAFETY = 48 << 20;

let fake: FakeAnthropic;
let oai: openai.FakeOpenAI;
before(async () => {
  fake = await startFakeAnthropic();
  oai = await openai.startFakeOpenAI();
});
after(async () => {
  await fake.close();
  await oai.close();
});

function utf8(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Bytes of text, thinking and tool-call arguments in a stored reply. */
function replyBytes(m: Extract<AgentMessage, { role: "assistant" }>): number {
  let n = 0;
  for (const b of m.content) n += b.type === "text" ? utf8(b.text) : b.type === "thinking" ? utf8(b.thinking) : utf8(JSON.stringify(b.arguments));
  return n;
}

interface Streamed {
  streamed?: number;
  end?: { how: string };
}

/**
 * Prompts session `a` while the endpoint streams for ever; meanwhile times getState on session `b`.
 * Returns the run's events and how many getState answers came while the endpoint was still streaming.
 */
async function endlessRun(d: RpcDaemon, a: string, b: string, request: () => Streamed | undefined) {
  const from = d.peer.mark();
  const { runId } = await d.peer.request("prompt", { sessionId: a, text: "go on" });
  let answeredWhileStreaming = 0;
  let ended = false;
  const run = d.peer.runEvents(a, runId, from, 120_000).finally(() => (ended = true));
  while (!ended) {
    const state = await d.peer.request("getState", { sessionId: b });
    assert.equal(state.sessionId, b);
    const r = request();
    if (r && (r.streamed ?? 0) > 0 && !r.end) answeredWhileStreaming++;
  }
  return { events: await run, answeredWhileStreaming };
}

/** The stored reply and the session file's longest line. */
async function stored(d: RpcDaemon, sessionId: string) {
  const state = await d.peer.request("getState", { sessionId });
  const { messages } = await d.peer.request("getMessages", { sessionId });
  const reply = asMessage(messages.at(-1), "assistant");
  const longestLine = Math.max(...readFileSync(state.sessionFile, "utf8").split("\n").map(utf8));
  return { reply, longestLine };
}

function checkCut(events: Parameters<typeof agentEnd>[0], reply: Extract<AgentMessage, { role: "assistant" }>, longestLine: number, r: Streamed): void {
  const end = agentEnd(events);
  assert.equal(end.stopReason, "error", JSON.stringify(end.error));
  assert.equal(end.error?.code, ErrorCodes.ReplyTooLarge, JSON.stringify(end.error));
  assert.equal(end.error?.errorClass, "fatal");
  // (a context this big may be too big to compact usefully: a compaction_skipped event may follow, never an error)
  const errors = byType(events, "error");
  assert.deepEqual(
    errors.map((e) => e.code),
    [ErrorCodes.ReplyTooLarge],
  );
  assert.match(errors[0]!.message, /maxReplyMB/);
  assert.equal(byType(events, "retry_start").length, 0, "a cut reply is not asked for again");
  assert.equal(byType(events, "tool_execution_start").length, 0, "nothing of a cut reply runs");

  assert.equal(reply.stopReason, "error");
  assert.match(reply.errorMessage ?? "", /cut/);
  assert.ok(replyBytes(reply) <= CAP, `stored ${replyBytes(reply)} bytes, the cap is ${CAP}`);
  assert.ok(longestLine <= CAP + (64 << 10), `the session file's longest line is ${longestLine} bytes`);

  assert.equal(r.end?.how, "client_closed", "the daemon closed the connection");
  assert.ok((r.streamed ?? 0) < SAFETY / 2, `the endpoint streamed ${r.streamed} bytes before the cut`);
}

async function daemonWithCap(t: Parameters<typeof tempDir>[0], settings: object = {}, withFake = true) {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { maxReplyMB: CAP_MB, ...settings });
  const d = startRpcDaemon(t, { home, cwd, ...(withFake ? { fake } : {}) });
  await d.peer.initialize();
  return { d, cwd };
}

test("an endless text reply is cut at maxReplyMB and stored up to it; another session answers meanwhile", async (t) => {
  checkDist(t);
  const { d, cwd } = await daemonWithCap(t);
  const a = (await d.peer.request("createSession", { cwd })).sessionId;
  const b = (await d.peer.request("createSession", { cwd })).sessionId;
  const index = fake.requests.length;
  // small deltas: the most events per byte, the most work per byte for the daemon
  fake.enqueue(endlessReply("text", { delta: "endless reply. ", perWrite: 512, maxBytes: SAFETY }));
  const { events, answeredWhileStreaming } = await endlessRun(d, a, b, () => fake.requests[index]);
  const r = fake.requests[index]!;
  await fake.whenEnded(index);
  const { reply, longestLine } = await stored(d, a);
  checkCut(events, reply, longestLine, r);
  assert.equal(fake.requests.length, index + 1, "one request: the cut is not retried");
  assert.equal(reply.content.length, 1);
  const text = reply.content[0]!.type === "text" ? reply.content[0]!.text : "";
  assert.ok(utf8(text) > CAP - 64, `the text is kept up to the cap (${utf8(text)} bytes)`);
  assert.match(text, /^(endless reply\. )+/);
  assert.ok(answeredWhileStreaming > 0, "session b answered getState while a's reply streamed");
  d.endStdin();
  await d.waitExit();
});

test("endless thinking and endless tool-call arguments are cut the same way; nothing runs", async (t) => {
  checkDist(t);
  const { d, cwd } = await daemonWithCap(t);
  const a = (await d.peer.request("createSession", { cwd })).sessionId;
  const b = (await d.peer.request("createSession", { cwd })).sessionId;

  let index = fake.requests.length;
  fake.enqueue(endlessReply("thinking", { maxBytes: SAFETY }));
  let run = await endlessRun(d, a, b, () => fake.requests[index]);
  await fake.whenEnded(index);
  let s = await stored(d, a);
  checkCut(run.events, s.reply, s.longestLine, fake.requests[index]!);
  const thinking = s.reply.content[0];
  assert.equal(thinking?.type, "thinking");
  assert.ok(thinking?.type === "thinking" && thinking.thinkingSignature === undefined, "a shortened thinking block is not signed");

  index = fake.requests.length;
  fake.enqueue(endlessReply("tool_use", { maxBytes: SAFETY }));
  run = await endlessRun(d, a, b, () => fake.requests[index]);
  await fake.whenEnded(index);
  s = await stored(d, a);
  checkCut(run.events, s.reply, s.longestLine, fake.requests[index]!);
  assert.deepEqual(
    s.reply.content.filter((c) => c.type === "toolCall"),
    [],
    "a call whose arguments never finished is not stored",
  );
  d.endStdin();
  await d.waitExit();
});

test("the cap holds for an OpenAI-compatible server too (Chat Completions)", async (t) => {
  checkDist(t);
  oai.setModels([]);
  const { d, cwd } = await daemonWithCap(t, { providers: { local: { api: "openai-completions", baseUrl: oai.baseURL } } }, false);
  const a = (await d.peer.request("createSession", { cwd, model: "local/endless-8b" })).sessionId;
  const b = (await d.peer.request("createSession", { cwd, model: "local/endless-8b" })).sessionId;
  const index = oai.requests.length;
  oai.enqueue(openai.endlessReply({ maxBytes: SAFETY }));
  const { events } = await endlessRun(d, a, b, () => oai.requests[index]);
  await oai.whenEnded(index);
  const { reply, longestLine } = await stored(d, a);
  checkCut(events, reply, longestLine, oai.requests[index]!);
  assert.equal(reply.provider, "local");
  d.endStdin();
  await d.waitExit();
});

test("a project's settings cannot lift the cap", async (t) => {
  const { resolveSettings } = await import("../../src/host/policy/settings.js");
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { maxReplyMB: 4 });
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith", "settings.json"), JSON.stringify({ maxReplyMB: 1000 }));
  const { settings, warnings } = resolveSettings(cwd, { PITH_HOME: home });
  assert.equal(settings.maxReplyMB, 4);
  assert.deepEqual(
    warnings.map((w) => w.key),
    ["maxReplyMB"],
  );
});
