// The web UI shows compaction as it happens, in headless Chromium against the real daemon and the
// fake Messages API: the summary being written appears inside the compaction marker before the
// compaction ends, and a summary written ahead of time shows as a quiet note on the context meter
// ("preparing summary…", then "summary ready"), gone once it is applied.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { PithClient, connectWebSocket } from "../../clients/ts/index.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, Cleanup, FLOW_SETTINGS, SMALL_MODEL, startServeDaemon, writeSettings, type ServeDaemon } from "../support/daemon-client.js";
import { ensureWebBundle } from "../support/fresh-dist.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const CHROMIUM = "/usr/bin/chromium";
if (existsSync(CHROMIUM)) ensureWebBundle();
const skip = !existsSync(CHROMIUM)
  ? `no Chromium at ${CHROMIUM}: install it to run the web UI tests (Debian/Ubuntu: apt-get install -y chromium)`
  : !existsSync(join(repoRoot, "clients", "web", "dist", "app.js"))
    ? "clients/web/dist is missing: run npm run build first"
    : false;

const cleanup = new Cleanup();
let fake: FakeAnthropic;
let daemon: ServeDaemon;
let browser: Browser;
let page: Page;
let client: PithClient;
let cwd: string;

before(async () => {
  if (skip) return;
  fake = await startFakeAnthropic();
  const home = tempDir(cleanup);
  cwd = tempDir(cleanup);
  writeSettings(home, { ...FLOW_SETTINGS, models: [SMALL_MODEL] });
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, args: ["--sandbox", "off"] });
  client = new PithClient(await connectWebSocket(daemon.wsUrl.replace("/rpc", ""), daemon.token));
  await client.initialize({ name: "web-compaction-test" });
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--no-first-run", "--disable-component-update", "--disable-sync"] });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);
});

after(async () => {
  if (skip) return;
  client?.close();
  await browser?.close().catch(() => undefined);
  await cleanup.run();
  await fake.close();
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
