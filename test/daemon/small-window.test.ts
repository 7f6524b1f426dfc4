// An 8k-window model (as local models often have) runs a long session: the compaction budgets
// scale with the window, so with 1.5k-token prompts no request exceeds the window, every run ends
// `stop`, several compactions happen, and a skipped compaction (-32017) is reported at most once
// per run.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, bigText, byType, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
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
    const skipped = byType(run.events, "error").filter((e) => e.code === -32017);
    assert.ok(skipped.length <= 1, `prompt ${i}: -32017 ${skipped.length} times in one run`);
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
