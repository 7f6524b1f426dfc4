// The compaction threshold in the web UI, in headless Chromium against the real daemon: the context
// meter marks where automatic compaction fires, and setting the session's threshold (a percentage
// of the window, beside the auto-compact switch) moves the mark and changes the session's setting
// in the daemon; emptying the box gives the settings' trigger back.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import type { PithClient } from "../../clients/ts/index.js";
import { SMALL_MODEL, type ServeDaemon } from "../support/daemon-client.js";
import { repoRoot } from "../support/tmp.js";
import { webSkipReason, webStage, type WebStage } from "../support/web-harness.js";

const skip = webSkipReason();
let stage: WebStage;
let daemon: ServeDaemon;
let page: Page;
let client: PithClient;
let cwd: string;

before(async () => {
  if (skip) return;
  stage = await webStage("web-threshold-test");
  ({ daemon, page, client, cwd } = stage);
});

after(async () => {
  if (!skip) await stage?.close();
});

async function show(id: string): Promise<void> {
  await page.goto("about:blank");
  await page.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}&session=${encodeURIComponent(id)}`);
  await page.waitForSelector(".prompt-input:not([disabled])");
}

async function pollAsync<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The mark's position along the bar, in percent of the window. */
const markLeft = async () => Number.parseFloat((await page.locator(".meter-threshold").evaluate((el) => (el as HTMLElement).style.left)) || "NaN");

test("the meter marks the trigger; setting the threshold moves the mark and the session's setting", { skip, timeout: 60_000 }, async () => {
  const { sessionId: id } = await client.createSession({ cwd, model: SMALL_MODEL.id });
  await show(id);
  const meter = page.locator(".meter");
  // 40,000-token window, Pi's reserve: 40,000 - 16,384
  await page.waitForSelector('.meter[data-threshold="23616"]');
  assert.ok(Math.abs((await markLeft()) - 59.04) < 0.01, String(await markLeft()));
  const box = page.locator("input.compaction-threshold");
  assert.equal(await box.inputValue(), "", "no threshold of the session's own");

  await box.fill("25");
  await box.press("Enter");
  await box.blur();
  await page.waitForSelector('.meter[data-threshold="10000"]');
  assert.equal(await markLeft(), 25, "the mark moved to a quarter of the bar");
  const state = await pollAsync(async () => {
    const st = await client.getState(id);
    return st.compactionThreshold === 0.25 ? st : undefined;
  }, "the session's threshold in the daemon");
  assert.equal(state.threshold, 10_000);
  assert.match((await meter.getAttribute("title")) ?? "", /above 10,000 \(25% of the window\)/);
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-threshold.png") }).catch(() => undefined);

  // a reload shows the session's setting in the box
  await show(id);
  await page.waitForSelector('.meter[data-threshold="10000"]');
  assert.equal(await page.locator("input.compaction-threshold").inputValue(), "25");

  // emptied: the settings' trigger again
  await page.locator("input.compaction-threshold").fill("");
  await page.locator("input.compaction-threshold").press("Enter");
  await page.locator("input.compaction-threshold").blur();
  await page.waitForSelector('.meter[data-threshold="23616"]');
  await pollAsync(async () => ((await client.getState(id)).compactionThreshold === undefined ? true : undefined), "the session's threshold cleared");
});
