// After a reply cut at maxReplyMB (issue 32, row 9): the cut reply is stored whole up to the cap,
// but what it adds to the model's context is bounded (messages/cut-reply.ts). Through the real
// daemon, automatic compaction on, a small window and an endpoint whose every reply is endless
// (the summarizer's too): the next prompts send requests far under the cap, the compaction that
// the context's growth triggers asks the summarizer a few times, each of its replies cut long
// before the cap, then falls back to the extractive summary; the daemon's memory stays bounded
// and SIGTERM ends it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { endlessReply, startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, asMessage, byType, checkDist, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

const CAP_MB = 2;
const CAP = CAP_MB << 20;
const SAFETY = 48 << 20;
const MODEL = { id: "small-model", contextWindow: 16_000, maxOutputTokens: 2_000 };

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
  fake.setDefault(endlessReply("text", { delta: "endless reply. ", perWrite: 512, maxBytes: SAFETY }));
});
after(() => fake.close());

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  assert.ok(m, "VmRSS of the daemon");
  return Number(m[1]) * 1024;
}

test("after a cut reply the next prompts run on a bounded context; compaction asks a few times, falls back; SIGTERM ends the daemon", { timeout: 240_000 }, async (t) => {
  checkDist(t);
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { maxReplyMB: CAP_MB, models: [MODEL], compaction: { keepRecentTokens: 200, summaryFraming: "transcript" } });
  const d = startRpcDaemon(t, { home, cwd, fake });
  await d.peer.initialize();
  const a = (await d.peer.request("createSession", { cwd, model: MODEL.id })).sessionId;
  const idle = rssBytes(d.pid);
  const first = fake.requests.length;
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(d.pid))), 50);
  t.after(() => clearInterval(sampler));

  const runs = [];
  for (let i = 0; i < 3; i++) {
    const from = d.peer.mark();
    const { runId } = await d.peer.request("prompt", { sessionId: a, text: `prompt ${i}` });
    runs.push(await d.peer.runEvents(a, runId, from, 90_000));
  }
  clearInterval(sampler);
  await Promise.all(fake.requests.slice(first).map((_, i) => fake.whenEnded(first + i)));

  // every prompt's reply is cut at the cap and stored up to it (nothing stored is lost)
  for (const events of runs) assert.equal(agentEnd(events).error?.code, ErrorCodes.ReplyTooLarge);
  const { messages } = await d.peer.request("getMessages", { sessionId: a });
  const replies = messages.filter((m) => m.role === "assistant");
  // (getMessages is the context: after a compaction, the replies it kept)
  assert.ok(replies.length >= 1);
  for (const m of replies) {
    const reply = asMessage(m, "assistant");
    const text = reply.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    assert.ok(Buffer.byteLength(text) > CAP - 64, `a cut reply is stored up to the cap (${Buffer.byteLength(text)} bytes)`);
  }

  const sent = fake.requests.slice(first);
  t.diagnostic(sent.map((r) => `${r.body.tools?.length ? "model" : "summarizer"} ${r.rawBody.length} B, streamed ${r.streamed}`).join("; "));
  const modelCalls = sent.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
  const summarizerCalls = sent.filter((r) => !(Array.isArray(r.body.tools) && r.body.tools.length > 0));
  assert.equal(modelCalls.length, 3, "one model call per prompt: a cut reply is not asked for again");
  // the requests after a cut carry its bounded view, not the MiB it was cut at
  for (const r of sent) assert.ok(r.rawBody.length < 256 << 10, `a request of ${r.rawBody.length} bytes (the cap is ${CAP})`);
  assert.match(JSON.stringify(modelCalls[1]!.body.messages), /the reply was cut at 2 MiB: the rest is left out/);

  // the threshold was crossed and compaction ran: a few summarizer requests, each cut long before the cap, then the extractive fallback
  const ends = runs.flatMap((events) => byType(events, "compaction_end"));
  assert.ok(ends.length >= 1, `a compaction ran (${ends.length})`);
  assert.ok(summarizerCalls.length >= 1 && summarizerCalls.length <= 3 * ends.length, `${summarizerCalls.length} summarizer requests for ${ends.length} compaction(s)`);
  // what the fake wrote counts what sat in socket buffers while the abort travelled (more on a busy
  // machine); uncut, a summary reply runs to the whole cap
  for (const r of summarizerCalls) assert.ok((r.streamed ?? 0) < CAP / 2, `a summarizer reply ran to ${r.streamed} bytes before it was cut`);
  for (const e of ends) assert.ok(e.fallback || e.error, `compaction_end: ${JSON.stringify({ fallback: e.fallback, error: e.error, aborted: e.aborted })}`);
  const updates = runs.flatMap((events) => byType(events, "compaction_update")).length;
  assert.ok(updates < 20_000, `${updates} compaction_update events`);

  assert.ok(peak < 4 * idle + 8 * CAP, `peak RSS ${Math.round(peak / 2 ** 20)} MiB, idle ${Math.round(idle / 2 ** 20)} MiB`);

  // and the daemon still answers, and ends on SIGTERM
  assert.equal((await d.peer.request("getState", { sessionId: a })).isRunning, false);
  d.proc.kill("SIGTERM");
  const exit = await d.waitExit(20_000);
  assert.ok(exit.code !== null || exit.signal !== null);
});
