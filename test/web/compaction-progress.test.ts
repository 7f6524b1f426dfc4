// The web UI shows compaction as it happens, in headless Chromium against the real daemon and the
// fake Messages API: the summary being written appears inside the compaction marker before the
// compaction ends, and a summary written ahead of time shows as a quiet note on the context meter
// ("preparing summary…", then "summary ready"), gone once it is applied.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import type { PithClient } from "../../clients/ts/index.js";
import { textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, SMALL_MODEL, type ServeDaemon } from "../support/daemon-client.js";
import { repoRoot } from "../support/tmp.js";
import { webSkipReason, webStage, type WebStage } from "../support/web-harness.js";

const skip = webSkipReason();
let stage: WebStage;
let fake: FakeAnthropic;
let daemon: ServeDaemon;
let page: Page;
let client: PithClient;
let cwd: string;

before(async () => {
  if (skip) return;
  stage = await webStage("web-compaction-test");
  ({ fake, daemon, page, client, cwd } = stage);
});

after(async () => {
  if (!skip) await stage?.close();
});

async function run(sessionId: string, text: string): Promise<void> {
  const { runId } = await client.prompt(sessionId, text);
  await client.waitFor("agent_end", (e) => e.runId === runId, 20_000);
}

test("the summary streams into the compaction marker; a summary written ahead of time shows on the context meter", { skip, timeout: 60_000 }, async () => {
  const opened = await client.createSession({ cwd, model: SMALL_MODEL.id });
  const id = opened.sessionId;
  await page.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}&session=${encodeURIComponent(id)}`);
  await page.waitForSelector(".prompt-input:not([disabled])");

  // a manual compaction whose summary takes ~2 s to write: the text shows up before the end
  fake.enqueue(textReply("first"), textReply("second"));
  await run(id, bigText("ONE"));
  await run(id, bigText("TWO"));
  const LIVE = "SUMMARY-LIVE: written piece by piece, for the page to show.";
  fake.enqueue(textReply(LIVE, { delayMs: 150, chunkSize: 3 }));
  const compacting = client.compact(id, "focus on the pieces");
  const live = page.locator(".marker.compaction[data-state=running] .summary-live");
  await live.waitFor({ state: "visible" });
  const partial = (await live.textContent()) ?? "";
  assert.ok(partial.length > 0 && partial.length < LIVE.length && LIVE.startsWith(partial), `part of the summary, while it is written: ${JSON.stringify(partial)}`);
  await compacting;
  await page.waitForSelector('.marker.compaction[data-reason="manual"][data-state="done"]');

  // past the soft threshold: the summary is written ahead of time; the meter says so, quietly
  fake.enqueue(textReply("third", { usage: { input_tokens: 23_000 } }), textReply("SUMMARY-AHEAD: ready before it is needed.", { delayMs: 150, chunkSize: 3 }));
  await run(id, bigText("THREE"));
  await page.waitForSelector('.meter[data-preparing="summarizing"] .meter-prep:has-text("preparing summary")');
  await page.waitForSelector('.meter[data-preparing="ready"] .meter-prep:has-text("summary ready")', { timeout: 20_000 });
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-summary-ready.png") });
  // the trigger applies it; the note goes away, the marker says it was written ahead of time
  fake.enqueue(textReply("fourth"));
  await run(id, bigText("FOUR"));
  await page.waitForSelector('.meter[data-preparing="none"]');
  await page.waitForSelector('.marker.compaction[data-reason="threshold"][data-state="done"]');
  const summary = await page.locator('.marker.compaction[data-reason="threshold"] .summary-text').textContent();
  assert.match(summary ?? "", /SUMMARY-AHEAD/);
});
