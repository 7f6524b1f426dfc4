// An 8k-window model (as local models often have) runs a long session: the compaction budgets
// scale with the window, so with 1.5k-token prompts no request exceeds the window, every run ends
// `stop`, several compactions happen, and a skipped compaction is a `compaction_skipped` event
// (never an `error` event), reported once per context size and not tried again until the context
// grew by minSavingsFraction (10%) of its size at the skip.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, bigText, byType, startRpcDaemon, writeSettings, type Ev } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const WINDOW = 8192;
const TINY = { id: "tiny-local", contextWindow: WINDOW, maxOutputTokens: 2048 };
/** the fake's count: 4 characters a token */
const sizeOf = (rawBody: string) => Math.ceil(rawBody.length / 4);

test("an 8k window: 16 prompts of 1.5k tokens, several compactions, no request over the window, every run ends stop", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { models: [TINY] });
  fake.setMaxInputTokens(WINDOW);
  // every reply (the summaries too) is ~250 tokens of prose
  fake.setDefault(textReply(bigText("REPLY", 180)));
  t.after(() => {
    fake.setMaxInputTokens(undefined);
    fake.setDefault(textReply("ok"));
  });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: TINY.id });
  const first = fake.requests.length;
  let compactions = 0;
  for (let i = 0; i < 16; i++) {
    const run = await d.peer.runPrompt(s.sessionId, bigText(`PROMPT-${i}`, 1050), 30_000);
    assert.equal(agentEnd(run.events).stopReason, "stop", `prompt ${i}: ${JSON.stringify(run.events.filter((e) => e.type === "error"))}`);
    assert.deepEqual(byType(run.events, "error"), [], `prompt ${i}`);
    assert.ok(byType(run.events, "compaction_skipped").length <= 1, `prompt ${i}: skipped twice in one run`);
    compactions += byType(run.events, "compaction_end").filter((e) => !e.aborted).length;
  }
  const sizes = fake.requests.slice(first).filter((r) => r.path === "/v1/messages").map((r) => sizeOf(r.rawBody));
  t.diagnostic(`${compactions} compactions; request sizes (fake's count) max ${Math.max(...sizes)} of ${WINDOW}`);
  assert.ok(sizes.every((n) => n <= WINDOW), `over the window: ${sizes.filter((n) => n > WINDOW).join(", ")}`);
  assert.ok(compactions >= 3, `${compactions} compactions`);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("an 8k window, 12 prompts of ~1.5k tokens and short replies: a skip is a compaction_skipped event, reported once per context size; no error events; every run ends stop", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { models: [TINY] });
  fake.setMaxInputTokens(WINDOW);
  t.after(() => fake.setMaxInputTokens(undefined));
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: TINY.id });
  // a short reply ("ok") after each prompt: the end-of-run check sees the context a few dozen
  // tokens past the one judged before the call (the shape that reported -32017 twice a run)
  const history: Ev[] = [];
  for (let i = 0; i < 12; i++) {
    const run = await d.peer.runPrompt(s.sessionId, bigText(`PROMPT-${i}`, 860), 30_000);
    assert.equal(agentEnd(run.events).stopReason, "stop", `prompt ${i}`);
    assert.deepEqual(byType(run.events, "error"), [], `prompt ${i}: no error events`);
    assert.ok(byType(run.events, "compaction_skipped").length <= 1, `prompt ${i}: ${JSON.stringify(byType(run.events, "compaction_skipped"))}`);
    history.push(...run.events);
  }
  const skips = byType(history, "compaction_skipped");
  t.diagnostic(`${skips.length} skips at ${skips.map((e) => e.tokensBefore).join(", ")}; ${byType(history, "compaction_end").length} compactions`);
  assert.ok(skips.length > 0, "the shape does skip (else this test tests nothing)");
  for (const e of skips) {
    assert.deepEqual([e.reason, e.code], ["threshold", "too_little_gain"]);
    assert.match(e.message, /would free about \d+ of \d+ tokens/);
  }
  // once per context size: a size is reported once, and the next report is 10% away from the last
  const sizes = skips.map((e) => e.tokensBefore);
  assert.equal(new Set(sizes).size, sizes.length, `reported twice at one size: ${sizes.join(", ")}`);
  for (let i = 1; i < sizes.length; i++) assert.ok(Math.abs(sizes[i] - sizes[i - 1]) >= 0.1 * sizes[i - 1], `reported at ${sizes[i - 1]}, then at ${sizes[i]}`);
  assert.ok(byType(history, "compaction_end").filter((e) => e.result).length >= 3);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

