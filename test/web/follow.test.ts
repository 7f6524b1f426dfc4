// The web UI that follows you (issue 35), in headless Chromium against the real daemon and the
// fake Messages API: without a session only what works without one shows; a new session's folder
// is picked (never the daemon's by default), the last ones offered; sending brings the newest
// message into view while what others send leaves a reader where they are (with "Jump to
// latest"); tree labels are plain text; a permission question about an edit shows its diff, about
// a write its content; a lost connection stops every streaming indicator; at phone size one row
// of controls sits above the chat. Screenshots go to test-artifacts/ (desktop and phone).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { hang, textReply, toolUseReply } from "../support/fake-anthropic.js";
import { repoRoot } from "../support/tmp.js";
import { NETWORK_SWITCH, webSkipReason, webStage, type WebStage } from "../support/web-harness.js";

const skip = webSkipReason();
const ARTIFACTS = join(repoRoot, "test-artifacts");
let stage: WebStage;
/** the folder the sessions are created in: not the daemon's (stage.cwd) */
let project: string;
/** the session the tests use (created in `project`) */
let sessionId: string;

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  project = mkdtempSync(join(tmpdir(), "pith-web-follow-"));
  stage = await webStage("web-follow-test");
  stage.page.on("pageerror", (err) => process.stderr.write(`[web follow tests] page error: ${err.message}\n`));
  sessionId = (await stage.client.createSession({ cwd: project })).sessionId;
});

after(async () => {
  if (skip) return;
  await stage?.close();
  rmSync(project, { recursive: true, force: true });
});

async function home(p: Page, session?: string): Promise<unknown> {
  // a new document each time (a changed fragment alone would not load the page again)
  await p.goto("about:blank");
  return p.goto(`http://127.0.0.1:${stage.daemon.port}/#token=${stage.daemon.token}${session ? `&session=${encodeURIComponent(session)}` : ""}`);
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function send(p: Page, text: string): Promise<void> {
  await p.locator(".prompt-input").fill(text);
  await p.locator(".prompt-input").press("Enter");
}

async function idle(p: Page): Promise<void> {
  await until("the run to end", async () => !(await stage.client.getState(sessionId)).isRunning);
  await p.waitForSelector('.app[data-busy="false"]');
}

/** How far the transcript is from its end, in pixels. */
function fromEnd(p: Page): Promise<number> {
  return p.locator(".transcript").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
}

const LONG_REPLY = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long reply.`).join("\n\n");

test("without a session, the controls that need one are hidden", { skip, timeout: 20_000 }, async () => {
  const { page } = stage;
  await home(page);
  await page.waitForSelector('.conn[data-state="open"]');
  for (const sel of [".sessionbar", ".meter", "button.compact-open", "select.model-picker", "select.permission-mode"]) {
    assert.equal(await page.locator(sel).isVisible(), false, `${sel} is hidden`);
  }
  await page.screenshot({ path: join(ARTIFACTS, "web-follow-no-session.png") });
});

test("a new session asks for its folder: none by default, the sessions' and the last ones offered", { skip, timeout: 20_000 }, async () => {
  const { page, client } = stage;
  const before = (await client.listSessions()).sessions.length;
  await page.click("button.new-session");
  const input = page.locator(".new-session-form input[name=cwd]");
  assert.equal(await input.inputValue(), "", "no folder picked for the user");
  const offered = page.locator(`.recent-folder[data-cwd="${project}"]`);
  await offered.waitFor();
  const fits = await input.evaluate((el: HTMLInputElement) => {
    const ctx = document.createElement("canvas").getContext("2d")!;
    const cs = getComputedStyle(el);
    ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
    return ctx.measureText(el.placeholder).width <= el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  });
  assert.ok(fits, `the placeholder is not cut off: ${await input.getAttribute("placeholder")}`);
  await page.click(".new-session-form button[type=submit]");
  await page.waitForSelector(".folder-hint:not([hidden])");
  await input.fill("relative/dir");
  await page.click(".new-session-form button[type=submit]");
  await page.waitForSelector('.folder-hint:not([hidden]):has-text("full path")');
  assert.equal((await client.listSessions()).sessions.length, before, "nothing created without a folder, nor in the daemon's");
  await page.screenshot({ path: join(ARTIFACTS, "web-follow-new-session.png") });

  // a recent folder, picked
  await offered.click();
  assert.equal(await input.inputValue(), project);
  await page.click(".new-session-form button[type=submit]");
  await until("the new session", async () => /session=/.test(page.url()));
  const created = decodeURIComponent(/session=([^&]+)/.exec(page.url())![1]);
  assert.equal((await client.getState(created)).cwd, project);

  // next time: the folder picked last is in the box
  await page.click("button.new-session");
  assert.equal(await input.inputValue(), project);
  await page.click(".new-session-form button.cancel");
});

test("sending brings the newest message into view; what another client sends leaves a reader where they are", { skip, timeout: 30_000 }, async () => {
  const { page, fake, client } = stage;
  await home(page, sessionId);
  await page.waitForSelector(".prompt-input:not([disabled])");
  fake.enqueue(textReply(LONG_REPLY));
  await send(page, "Write a lot");
  await page.waitForSelector('.msg.assistant:has-text("Line 60 of a long reply.")');
  await idle(page);
  assert.ok((await fromEnd(page)) < 60, "followed the reply while at the end");

  // reading further up: another client's prompt does not pull the view down
  await page.locator(".transcript").evaluate((el) => el.scrollTo({ top: 0 }));
  await page.waitForSelector(".jump-latest:not([hidden])");
  fake.enqueue(textReply(`From elsewhere.\n\n${LONG_REPLY}`));
  await client.prompt(sessionId, "Another window asks");
  await page.waitForSelector('.msg.assistant:has-text("From elsewhere.")');
  await idle(page);
  assert.equal(await page.locator(".transcript").evaluate((el) => el.scrollTop), 0, "still where the user reads");
  assert.equal(await page.locator(".jump-latest").isVisible(), true);
  await page.screenshot({ path: join(ARTIFACTS, "web-follow-scrolled-up.png") });

  // the user's own send: to the end, and the reply followed
  fake.enqueue(textReply(`My answer.\n\n${LONG_REPLY}`));
  await send(page, "And now mine");
  await page.waitForSelector('.msg.assistant:has-text("My answer.")');
  await idle(page);
  assert.ok((await fromEnd(page)) < 60, "at the end after sending");
  assert.equal(await page.locator(".jump-latest").isVisible(), false);

  // and the button brings a reader back
  await page.locator(".transcript").evaluate((el) => el.scrollTo({ top: 0 }));
  await page.click(".jump-latest");
  assert.ok((await fromEnd(page)) < 60, "at the end after the jump");
  assert.equal(await page.locator(".jump-latest").isVisible(), false);
});

test("tree labels are plain text: a compaction's markdown summary reads as words", { skip, timeout: 20_000 }, async () => {
  const { page, fake, client } = stage;
  fake.enqueue(textReply("## Goal\nFix the **login** bug\n\n## Progress\n- wrote `auth.ts`"));
  await client.compact(sessionId);
  await page.click(".tab[data-tab=tree]");
  const label = page.locator('.tree-row[data-kind="compaction"] .preview');
  await label.waitFor();
  const text = (await label.textContent()) ?? "";
  assert.match(text, /^Goal Fix the login bug · Progress/);
  assert.doesNotMatch(text, /[#*`]/);
  await page.click(".tab[data-tab=sessions]");
});

test("permission questions: an edit shows its diff, a write its content, not JSON", { skip, timeout: 30_000 }, async () => {
  const { page, fake, client } = stage;
  await client.call("setPermissionMode", { sessionId, mode: "ask" });
  await idle(page);
  fake.enqueue(toolUseReply("edit", { path: "notes.md", oldText: "# Notes\nold line\nend", newText: "# Notes\nnew line\nend" }), textReply("Not edited."));
  await send(page, "Edit the notes");
  const prompt = page.locator(".permission:not([hidden])");
  await prompt.waitFor();
  assert.deepEqual(await prompt.locator("pre.diff .del").allTextContents(), ["-old line\n"]);
  assert.deepEqual(await prompt.locator("pre.diff .add").allTextContents(), ["+new line\n"]);
  assert.match((await prompt.textContent()) ?? "", /It would change notes\.md/);
  assert.doesNotMatch((await prompt.textContent()) ?? "", /"oldText"/);
  await page.screenshot({ path: join(ARTIFACTS, "web-follow-permission-edit.png") });
  await prompt.locator("button.deny").click();
  await page.waitForSelector('.msg.assistant:has-text("Not edited.")');
  await idle(page);

  fake.enqueue(toolUseReply("write", { path: "hello.txt", content: "hello\nworld" }), textReply("Not written."));
  await send(page, "Write hello.txt");
  await prompt.waitFor();
  assert.equal(await prompt.locator(".permission-content").textContent(), "hello\nworld");
  assert.match((await prompt.textContent()) ?? "", /It would write hello\.txt \(2 lines, 11 characters\)/);
  assert.doesNotMatch((await prompt.textContent()) ?? "", /"content"/);
  await prompt.locator("button.deny").click();
  await page.waitForSelector('.msg.assistant:has-text("Not written.")');
  await idle(page);
  await client.call("setPermissionMode", { sessionId, mode: "auto" });
});

test("a lost connection stops every streaming indicator", { skip, timeout: 30_000 }, async () => {
  const { browser, fake, client } = stage;
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // a session of its own: nothing a test before left running is in the way
  const id = (await client.createSession({ cwd: project })).sessionId;
  try {
    await ctx.addInitScript(NETWORK_SWITCH);
    const p = await ctx.newPage();
    p.setDefaultTimeout(10_000);
    await home(p, id);
    await p.waitForSelector(".prompt-input:not([disabled])");
    // a reply that starts and then says nothing more
    fake.enqueue(hang({ reply: textReply("A reply that stops halfway"), afterFrames: 5 }));
    await send(p, "Start and stall");
    const who = p.locator(".msg.assistant.streaming .who");
    await who.waitFor();
    const suffix = () => who.evaluate((el) => getComputedStyle(el, "::after").content);
    assert.match(await suffix(), /streaming/);
    assert.match((await p.locator(".run-status").textContent()) ?? "", /Working/);

    await p.evaluate(() => (window as unknown as { __net: { drop(block: boolean): void } }).__net.drop(true));
    await p.waitForSelector('.conn[data-state="reconnecting"]');
    assert.doesNotMatch(await suffix(), /streaming/);
    assert.match(await suffix(), /connection lost/);
    const status = await p.locator(".run-status").evaluate((el) => ({ size: getComputedStyle(el).fontSize, after: getComputedStyle(el, "::after").content }));
    assert.equal(status.size, "0px", "the Working… line is not shown");
    assert.match(status.after, /Connection lost/);
    await p.screenshot({ path: join(ARTIFACTS, "web-follow-connection-lost.png") });

    await p.evaluate(() => (window as unknown as { __net: { unblock(): void } }).__net.unblock());
    await p.locator("button.retry-now").click({ timeout: 2000 }).catch(() => undefined);
    await p.waitForSelector('.conn[data-state="open"]');
    assert.match(await suffix(), /streaming/, "streaming again once connected");
    await client.call("abort", { sessionId: id });
    await until("the run to end", async () => !(await client.getState(id)).isRunning);
  } finally {
    await ctx.close();
  }
});

test("phone size: one row of controls above the chat, the rest behind a menu", { skip, timeout: 20_000 }, async () => {
  const phone = await stage.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const p = await phone.newPage();
    p.setDefaultTimeout(10_000);
    await home(p, sessionId);
    await p.waitForSelector(".prompt-input:not([disabled])");
    const bar = await p.locator(".sessionbar").boundingBox();
    const chat = await p.locator(".transcript").boundingBox();
    assert.ok(bar && bar.height <= 44, `one row: ${JSON.stringify(bar)}`);
    assert.ok(chat && chat.y <= 110, `the chat starts near the top: ${JSON.stringify(chat)}`);
    assert.equal(await p.locator("select.model-picker").isVisible(), false);
    await p.screenshot({ path: join(ARTIFACTS, "web-follow-phone.png") });

    await p.locator("button.session-menu").tap();
    for (const sel of ["select.model-picker", "select.permission-mode", "button.compact-open", "input.auto-compaction"]) {
      const box = await p.locator(sel).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 391, `${sel} is on screen in the menu: ${JSON.stringify(box)}`);
    }
    await p.screenshot({ path: join(ARTIFACTS, "web-follow-phone-menu.png") });
  } finally {
    await phone.close();
  }
});
