// The web UI's controls (issue 26), in a real headless Chromium against the real daemon and the
// fake Messages API (deterministic replies): markdown that renders and model HTML that never
// reaches the DOM, the model picker, the thinking level, the permission mode with its Allow /
// Deny prompt, token and cost totals, the history before a compaction after a reload, deleting a
// session (asked first), and the same page at phone size. Screenshots go to test-artifacts/.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { PithClient, connectWebSocket } from "../../clients/ts/index.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, Cleanup, FLOW_SETTINGS, SMALL_MODEL, startServeDaemon, writeSettings, type ServeDaemon } from "../support/daemon-client.js";
import { repoRoot, tempDir } from "../support/tmp.js";
import { launchChromium, webSkipReason } from "../support/web-harness.js";

const skip = webSkipReason();

const ARTIFACTS = join(repoRoot, "test-artifacts");
const cleanup = new Cleanup();
let fake: FakeAnthropic;
let daemon: ServeDaemon;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
let client: PithClient;
let cwd: string;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  fake = await startFakeAnthropic();
  const home = tempDir(cleanup);
  cwd = tempDir(cleanup);
  writeSettings(home, FLOW_SETTINGS);
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, args: ["--sandbox", "off"] });
  client = new PithClient(await connectWebSocket(daemon.wsUrl.replace("/rpc", ""), daemon.token));
  await client.initialize({ name: "web-controls-test" });
  browser = await launchChromium();
  desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await desktop.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (err) => process.stderr.write(`[web controls tests] page error: ${err.message}\n`));
  process.stderr.write(`[web controls tests] screenshots: ${ARTIFACTS}\n`);
});

after(async () => {
  if (skip) return;
  client?.close();
  await browser?.close().catch(() => undefined);
  await cleanup.run();
  await fake.close();
});

async function newSession(): Promise<string> {
  const { sessionId } = await client.createSession({ cwd, model: SMALL_MODEL.id });
  return sessionId;
}

async function show(p: Page, id: string): Promise<void> {
  // a new document each time (a changed fragment alone would not load the page again)
  await p.goto("about:blank");
  await p.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}&session=${encodeURIComponent(id)}`);
  await p.waitForSelector(".prompt-input:not([disabled])");
}

/**
 * Types a prompt and sends it. With the session's id, also waits until the daemon has taken it
 * (its message stored or its run started): idle() right after a send could otherwise find the
 * session idle before the prompt got there, and the next send, made while the page still thought
 * the session idle, went as a plain prompt to a running session and was refused (-32011).
 */
async function sendPrompt(p: Page, text: string, id?: string): Promise<void> {
  const before = id === undefined ? 0 : (await client.getState(id)).messageCount;
  await p.locator(".prompt-input").fill(text);
  await p.locator(".prompt-input").press("Enter");
  if (id === undefined) return;
  await pollAsync(async () => {
    const state = await client.getState(id);
    return state.isRunning || state.messageCount > before;
  }, "the daemon to take the prompt");
}

async function idle(id: string): Promise<void> {
  await pollAsync(async () => !(await client.getState(id)).isRunning, "the run to end");
  await page.waitForSelector('.app[data-busy="false"]');
}

async function pollAsync(fn: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("the first screen: no doubled title, a placeholder that fits and says what to do", { skip, timeout: 20_000 }, async () => {
  await page.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}`);
  await page.waitForSelector('.conn[data-state="open"]');
  const bar = (await page.locator(".topbar").innerText()).replace(/\s+/g, " ");
  assert.doesNotMatch(bar, /pith\s+pith/, `the top bar: ${bar}`);
  assert.equal(await page.locator("button.rename").isVisible(), false, "nothing to rename without a session");
  const input = page.locator(".prompt-input");
  assert.equal(await input.getAttribute("placeholder"), "Open or create a session to start");
  // the placeholder fits in the box (measured with the box's own font)
  const fits = await input.evaluate((el: HTMLTextAreaElement) => {
    const ctx = document.createElement("canvas").getContext("2d")!;
    const cs = getComputedStyle(el);
    ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
    return ctx.measureText(el.placeholder).width < el.clientWidth - 16;
  });
  assert.ok(fits, "the placeholder is not cut off");
});

test("markdown renders; HTML in the model's text never reaches the DOM", { skip, timeout: 20_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  const reply = [
    "Here is **bold** and *italic* and `code`.",
    "",
    "## Steps",
    "- one",
    "- two [docs](https://example.com/docs) [bad](javascript:alert(1))",
    "",
    "```js",
    "const x = 1 < 2;",
    "```",
    "",
    '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b onclick="window.__pwned = 3">html</b>',
  ].join("\n");
  fake.enqueue(textReply(reply, { chunkSize: 7 }));
  await sendPrompt(page, "Show me markdown", id);
  const msg = page.locator(".msg.assistant").last();
  await msg.locator("pre code").waitFor();
  await idle(id);
  assert.equal(await msg.locator("strong").first().textContent(), "bold");
  assert.equal(await msg.locator("em").first().textContent(), "italic");
  assert.match((await msg.locator("pre code").textContent()) ?? "", /const x = 1 < 2;/);
  assert.equal(await msg.locator("ul li").count(), 2);
  assert.equal(await msg.locator('a[href="https://example.com/docs"]').count(), 1);
  const dom = await page.evaluate(() => {
    const t = document.querySelector(".transcript")!;
    const onAttrs = [...t.querySelectorAll("*")].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}.${a.name}`));
    return {
      scripts: t.querySelectorAll("script").length,
      imgs: t.querySelectorAll("img").length,
      jsLinks: t.querySelectorAll('a[href^="javascript"]').length,
      onAttrs,
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    };
  });
  assert.deepEqual(dom, { scripts: 0, imgs: 0, jsLinks: 0, onAttrs: [], pwned: null });
  assert.match((await msg.textContent()) ?? "", /<script>window.__pwned = 1<\/script>/, "the HTML shows as text");
  await page.screenshot({ path: join(ARTIFACTS, "web-controls-markdown.png") });
});

test("Stop and send now during a streamed text reply: what streamed stays shown, marked aborted, and the steer is sent at once", { skip, timeout: 30_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  const story = Array.from({ length: 46 }, (_, i) => `line ${String(i).padStart(2, "0")} of a long story, still going on.`).join("\n\n");
  fake.enqueue(textReply(story, { chunkSize: 20, delayMs: 20 }), textReply("ANSWER-TO-STEER-NOW"));
  await sendPrompt(page, "Tell me a long story");
  await page.waitForSelector('.msg.assistant.streaming:has-text("line 01")');
  await sendPrompt(page, "Shorter, please"); // Enter steers while it runs
  await page.locator('.queued-prompt[data-delivery="steer"]', { hasText: "Shorter, please" }).locator("button.send-now").click();
  const aborted = page.locator('.msg.assistant[data-stop-reason="aborted"]');
  await aborted.locator(".stop.aborted").waitFor();
  const shown = await aborted.innerText();
  assert.match(shown, /line 01 of a long story/, "the partial reply stays");
  assert.doesNotMatch(shown, /line 45/, "cut short, not answered in full");
  await page.waitForSelector('.msg.user:has-text("Shorter, please")');
  await page.waitForSelector('.msg.assistant:has-text("ANSWER-TO-STEER-NOW")');
  await idle(id);
  assert.equal(await page.locator('.notice[data-kind="prompts-dropped"]').count(), 0, "nothing dropped");
  await page.screenshot({ path: join(ARTIFACTS, "web-stop-and-send-now.png") });
});

test("the model picker lists every model listModels returns and changes the session's model; thinking level too", { skip, timeout: 20_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  const { models } = await client.call("listModels", {});
  const options = await page.locator("select.model-picker option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
  for (const m of models) assert.ok(options.includes(`${m.provider}/${m.id}`), `${m.provider}/${m.id} is offered`);
  // the ones that need a key come after the usable ones, grouped, marked and not pickable
  const keyless = models.filter((m) => m.hasKey === false).map((m) => `${m.provider}/${m.id}`);
  assert.ok(keyless.length > 0, "the stage has models without a key (openai's)");
  const grouped = await page.locator('select.model-picker optgroup[label="Needs an API key"] option').evaluateAll((els) => els.map((e) => [(e as HTMLOptionElement).value, (e as HTMLOptionElement).disabled, e.textContent]));
  assert.deepEqual(grouped.map(([v]) => v), keyless);
  assert.ok(grouped.every(([, disabled, text]) => disabled === true && / · [\d,]+ tokens · needs a key$/.test(String(text))), JSON.stringify(grouped.slice(0, 2)));
  assert.deepEqual(options.slice(-keyless.length), keyless, "after every usable model");
  const state = await client.getState(id);
  assert.equal(await page.locator("select.model-picker").inputValue(), `${state.model.provider}/${state.model.id}`);
  const other = models.find((m) => m.provider === "anthropic" && m.id !== state.model.id && m.hasKey !== false);
  assert.ok(other, "another model to pick");
  await page.locator("select.model-picker").selectOption(`${other.provider}/${other.id}`);
  await pollAsync(async () => (await client.getState(id)).model.id === other.id, "the session's model to change");
  const changed = await client.getState(id);
  await page.waitForSelector(`.subtitle:has-text("${changed.model.name ?? changed.model.id}")`);
  assert.equal(await page.locator("select.model-picker").inputValue(), `${other.provider}/${other.id}`);

  await page.locator("select.thinking-level").selectOption("high");
  await pollAsync(async () => (await client.getState(id)).thinkingLevel === "high", "the thinking level to change");
});

test("permission mode ask: Deny and Allow answer the daemon's requestPermission", { skip, timeout: 30_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  await page.locator("select.permission-mode").selectOption("ask");
  await pollAsync(async () => (await client.getState(id)).permissionMode === "ask", "the permission mode to change");

  fake.enqueue(toolUseReply("write", { path: "denied.txt", content: "no" }), textReply("Understood, I did not write it."));
  await sendPrompt(page, "Write denied.txt", id);
  const prompt = page.locator(".permission:not([hidden])");
  await prompt.waitFor();
  assert.match((await prompt.textContent()) ?? "", /write[\s\S]*denied\.txt/);
  await page.screenshot({ path: join(ARTIFACTS, "web-controls-permission.png") });
  await prompt.locator("button.deny").click();
  await page.waitForSelector('.msg.assistant:has-text("I did not write it")');
  await idle(id);
  assert.equal(existsSync(join(cwd, "denied.txt")), false, "denied: not written");
  assert.equal(await page.locator('.tool[data-tool-name="write"]').last().getAttribute("data-status"), "error");

  fake.enqueue(toolUseReply("write", { path: "allowed.txt", content: "yes" }), textReply("Written."));
  await sendPrompt(page, "Write allowed.txt", id);
  await prompt.waitFor();
  await prompt.locator("button.allow").click();
  await page.waitForSelector('.msg.assistant:has-text("Written.")');
  await idle(id);
  assert.equal(readFileSync(join(cwd, "allowed.txt"), "utf8"), "yes", "allowed: written");
  assert.equal(await page.locator(".permission").isVisible(), false);
});

test("a permission question outlives a reload: shown again naming the session, answered there; withdrawn when the run is aborted", { skip, timeout: 40_000 }, async () => {
  const { sessionId: id } = await client.createSession({ cwd, model: SMALL_MODEL.id, name: "Reload asks" });
  await client.call("setPermissionMode", { sessionId: id, mode: "ask" });
  await show(page, id);
  fake.enqueue(toolUseReply("write", { path: "after-reload.txt", content: "kept" }), textReply("Written after the reload."));
  await sendPrompt(page, "Write after-reload.txt");
  const prompt = page.locator(".permission:not([hidden])");
  await prompt.waitFor();
  // the tab reloads while the question waits: the daemon keeps it and sends it to the new page
  await show(page, id);
  await prompt.waitFor();
  assert.match((await prompt.textContent()) ?? "", /Reload asks[\s\S]*write[\s\S]*after-reload\.txt/, "the card names the session asking");
  await page.screenshot({ path: join(ARTIFACTS, "web-controls-permission-reloaded.png") });
  await prompt.locator("button.allow").click();
  await page.waitForSelector('.msg.assistant:has-text("Written after the reload.")');
  await idle(id);
  assert.equal(readFileSync(join(cwd, "after-reload.txt"), "utf8"), "kept", "allowed after the reload: written");

  // withdrawn elsewhere (an abort from another client): the card closes
  fake.enqueue(toolUseReply("write", { path: "withdrawn.txt", content: "no" }));
  await sendPrompt(page, "Write withdrawn.txt");
  await prompt.waitFor();
  await client.call("abort", { sessionId: id });
  await page.waitForSelector(".permission", { state: "hidden" });
  await idle(id);
  assert.equal(existsSync(join(cwd, "withdrawn.txt")), false);
});

test("the page shows the session's total tokens and cost as getSessionStats reports them", { skip, timeout: 20_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  fake.enqueue(textReply("counted", { usage: { input_tokens: 1234, output_tokens: 56, cache_read_input_tokens: 7 } }));
  await sendPrompt(page, "Count me", id);
  await idle(id);
  const stats = await client.call("getSessionStats", { sessionId: id });
  assert.ok(stats.tokens.total >= 1234 + 56);
  const el = page.locator(".stats");
  await pollAsync(async () => (await el.getAttribute("data-tokens")) === String(stats.tokens.total), "the totals on the page");
  assert.equal(await el.getAttribute("data-cost"), String(stats.cost));
  assert.match((await el.textContent()) ?? "", new RegExp(`${stats.tokens.total.toLocaleString("en-US")} tokens · \\$`));
});

test("after a reload the messages before a compaction sit in a closed block above a marker that reads as it did live", { skip, timeout: 40_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  fake.enqueue(textReply("first reply"), textReply("second reply"));
  await sendPrompt(page, bigText("ONE"), id);
  await idle(id);
  await sendPrompt(page, bigText("TWO"), id);
  await idle(id);
  fake.enqueue(textReply("## Goal\nSummarized for the test."));
  await page.click("button.compact-open");
  await page.click("button.compact-now");
  const marker = page.locator('.marker.compaction[data-state="done"]');
  await marker.waitFor();
  await idle(id);
  const live = (await marker.locator(".marker-title").textContent()) ?? "";
  assert.match(live, /^Compacted \(manual\) · [\d,]+ → [\d,]+ tokens$/);

  await page.reload();
  await page.waitForSelector(".prompt-input:not([disabled])");
  await marker.waitFor();
  assert.equal(await marker.locator(".marker-title").textContent(), live, "the marker reads the same after the reload");
  const history = page.locator("details.history");
  await history.waitFor();
  assert.equal(await history.evaluate((d) => (d as HTMLDetailsElement).open), false, "closed");
  const above = await history.evaluate((d) => {
    const m = document.querySelector(".marker.compaction")!;
    return (d.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  });
  assert.ok(above, "the block is above the marker");
  await history.locator("summary").click();
  await history.locator('.msg.user:has-text("ONE:")').waitFor();
  await history.locator('.msg.assistant:has-text("first reply")').waitFor();
  await page.screenshot({ path: join(ARTIFACTS, "web-controls-history.png") });
});

test("deleting a session asks first; cancelled, nothing is deleted", { skip, timeout: 20_000 }, async () => {
  const id = await newSession();
  await show(page, id);
  let asked = "";
  page.once("dialog", (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.click("button.delete-session");
  await pollAsync(async () => asked !== "", "the confirmation");
  assert.match(asked, /Delete this session\?/);
  assert.ok((await client.listSessions()).sessions.some((s) => s.id === id), "still there after Cancel");

  page.once("dialog", (d) => void d.accept());
  await page.click("button.delete-session");
  await pollAsync(async () => !(await client.listSessions()).sessions.some((s) => s.id === id), "the session to be deleted");
  await page.waitForSelector(`.session-item[data-session-id="${id}"]`, { state: "detached" });
  assert.ok(!page.url().includes(id), "no longer in the address bar");
});

test("phone size: the controls fit and the permission prompt is usable", { skip, timeout: 30_000 }, async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const p = await phone.newPage();
    p.setDefaultTimeout(10_000);
    const id = await newSession();
    await show(p, id);
    // one row above the chat: the session's controls open from its menu button
    await p.locator("button.session-menu").tap();
    for (const sel of ["select.model-picker", "select.thinking-level", "select.permission-mode", ".stats", "button.delete-session"]) {
      const box = await p.locator(sel).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 + 1, `${sel} is inside the screen: ${JSON.stringify(box)}`);
    }
    await p.screenshot({ path: join(ARTIFACTS, "web-controls-phone.png") });
    await p.locator("select.permission-mode").selectOption("ask");
    await pollAsync(async () => (await client.getState(id)).permissionMode === "ask", "the permission mode to change");
    fake.enqueue(toolUseReply("write", { path: "phone.txt", content: "tap" }), textReply("Done on the phone."));
    await sendPrompt(p, "Write phone.txt");
    const allow = p.locator(".permission button.allow");
    await allow.waitFor();
    const box = await allow.boundingBox();
    assert.ok(box && box.y + box.height <= 844 && box.x + box.width <= 390, "Allow is on screen");
    await p.screenshot({ path: join(ARTIFACTS, "web-controls-phone-permission.png") });
    await allow.tap();
    await p.waitForSelector('.msg.assistant:has-text("Done on the phone.")');
    assert.equal(readFileSync(join(cwd, "phone.txt"), "utf8"), "tap");
  } finally {
    await phone.close();
  }
});
