// The web UI (clients/web) in a real headless Chromium against a real daemon (`bin/pith serve`,
// offline: the scripted demo). One daemon, one browser, the steps in order: connect, create a
// session, a streamed run with tool calls and the automatic compaction, the auto-compaction
// toggle, a manual compaction, moving in the tree with a branch summary, forking, abort, a
// dropped connection resumed with replay, a daemon restart, a narrow window, wrong and missing
// tokens.
//
// Needs Chromium at /usr/bin/chromium (Debian: apt-get install -y chromium); without it every
// test is skipped. dist/ and clients/web/dist are built first when they are older than the sources
// (test/support/fresh-dist.ts).
//
// Slow runs: the demo's bash step runs `wc`. The daemon gets a PATH whose first `wc` sleeps for
// the seconds written in `.slow` in the working directory, so sessions created in such a
// directory have a run that takes a while (abort, dropped connection); others are not slowed.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { PithClient, connectWebSocket } from "../../clients/ts/index.js";
import { ensureWebBundle } from "../support/fresh-dist.js";
import { NOTES_SCRIPT } from "../support/notes-script.js";
import { launchChromium, NETWORK_SWITCH, transcriptPage } from "../support/web-harness.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const BIN = join(repoRoot, "bin", "pith");
const TOKEN = "web-ui-test-token";

const skip = !existsSync(CHROMIUM)
  ? `no Chromium at ${CHROMIUM}: install it to run the web UI tests (Debian/Ubuntu: apt-get install -y chromium)`
  : !existsSync(join(repoRoot, "dist", "src", "cli", "main.js"))
    ? "dist/ is missing: run npm run build first"
    : false;
if (skip) process.stderr.write(`[web ui tests] skipped: ${skip}\n`);

const NOTES = "# pith notes\n\nThings a session keeps:\n- messages\n- compaction\n";

let scratch: string;
let home: string;
let slowDir: string;
let notesDir: string;
let resumeDir: string;
let pathWithSlowWc: string;
let daemon: { proc: ChildProcess; url: string; port: number } | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let mainSessionId: string;
/** the threshold compaction's marker as it read live */
let liveThresholdTitle: string;

// ---- the daemon ------------------------------------------------------------------------------------

function notesScriptFile(): string {
  const file = join(home, "notes-script.json");
  writeFileSync(file, JSON.stringify(NOTES_SCRIPT));
  return file;
}

async function startDaemon(port = 0): Promise<{ proc: ChildProcess; url: string; port: number }> {
  // the sandbox gives commands a private /tmp, which would hide the slow `wc` (under the host's
  // /tmp) from the demo's bash step: these tests are about the page, not the sandbox
  const proc = spawn(process.execPath, [BIN, "serve", "--port", String(port), "--token", TOKEN, "--sandbox", "off"], {
    // the fixed notes script (its first run compacts), not the demo model's own steps
    env: { ...process.env, PITH_HOME: home, ANTHROPIC_API_KEY: "", PITH_LOG_LEVEL: "error", PATH: pathWithSlowWc, PITH_OFFLINE_SCRIPT: notesScriptFile() },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not start within 30 s:\n${stderr}`)), 30_000);
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /pith serving on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the daemon exited (${code}) before serving:\n${stderr}`));
    });
  });
  return { proc, url, port: Number(new URL(url).port) };
}

async function stopDaemon(): Promise<void> {
  const d = daemon;
  daemon = undefined;
  if (!d || d.proc.exitCode !== null || d.proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => d.proc.once("exit", () => resolve()));
  d.proc.kill("SIGTERM");
  const timer = setTimeout(() => d.proc.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** A Node client on the daemon, to check what the UI did. */
async function withClient<T>(fn: (c: PithClient) => Promise<T>): Promise<T> {
  const client = new PithClient(await connectWebSocket(daemon!.url, TOKEN));
  try {
    await client.initialize({ name: "web-ui-test" });
    return await fn(client);
  } finally {
    client.close();
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// ---- page helpers ----------------------------------------------------------------------------------

async function text(selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent()) ?? "";
}

async function sendPrompt(prompt: string): Promise<void> {
  const input = page.locator(".prompt-input");
  await input.fill(prompt);
  await input.press("Enter");
}

async function waitIdle(): Promise<void> {
  await page.waitForSelector('.app[data-busy="false"]', { timeout: 10_000 });
}

async function currentSessionId(): Promise<string> {
  return decodeURIComponent(/session=([^&]+)/.exec(new URL(page.url()).hash)?.[1] ?? "");
}

async function newSession(cwd?: string): Promise<string> {
  const before = await currentSessionId();
  await page.click(".tab[data-tab=sessions]");
  await page.click("button.new-session");
  if (cwd) await page.fill(".new-session-form input[name=cwd]", cwd);
  await page.click(".new-session-form button[type=submit]");
  return until("the new session", async () => {
    const id = await currentSessionId();
    return id !== "" && id !== before && (await page.locator(".prompt-input:not([disabled])").count()) === 1 ? id : undefined;
  });
}

// ---- setup -----------------------------------------------------------------------------------------

before(async () => {
  if (skip) return;
  ensureWebBundle();

  scratch = mkdtempSync(join(tmpdir(), "pith-web-ui-"));
  home = join(scratch, "home");
  mkdirSync(home);
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  const wc = spawnSync("sh", ["-c", "command -v wc"], { encoding: "utf8" }).stdout.trim() || "/usr/bin/wc";
  writeFileSync(join(bin, "wc"), `#!/bin/sh\nif [ -f .slow ]; then sleep "$(cat .slow)"; fi\nexec ${wc} "$@"\n`);
  chmodSync(join(bin, "wc"), 0o755);
  pathWithSlowWc = `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`;
  notesDir = join(scratch, "notes-project");
  mkdirSync(notesDir);
  writeFileSync(join(notesDir, "notes.md"), NOTES);
  for (const [name, seconds] of [["slow-project", "30"], ["resume-project", "1.5"]] as const) {
    const dir = join(scratch, name);
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.md"), NOTES);
    writeFileSync(join(dir, ".slow"), seconds);
    if (name === "slow-project") slowDir = dir;
    else resumeDir = dir;
  }

  daemon = await startDaemon();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(NETWORK_SWITCH);
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (err) => process.stderr.write(`[web ui tests] page error: ${err.message}\n`));
});

after(async () => {
  if (skip) return;
  await browser?.close().catch(() => undefined);
  await stopDaemon();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// ---- tests -----------------------------------------------------------------------------------------

test("connects with the token from the URL fragment and takes it out of the address bar", { skip, timeout: 20_000 }, async () => {
  await page.goto(`${daemon!.url}/#token=${TOKEN}`);
  await page.waitForSelector('.conn[data-state="open"]');
  assert.ok(!page.url().includes(TOKEN), `the token is gone from the URL: ${page.url()}`);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pith.token")), TOKEN, "kept for this tab");
  assert.equal(await page.locator(".token-screen").isVisible(), false);
});

test("creates a session, streams the demo run with its tool calls, and marks the automatic compaction", { skip, timeout: 20_000 }, async () => {
  // a project holding the notes the script's edit expects (no session works in pith's home, where the scratch project once was)
  mainSessionId = await newSession(notesDir);
  await page.waitForSelector(`.session-item[aria-current="true"][data-session-id="${mainSessionId}"]`);
  await page.waitForSelector('.offline-banner:has-text("Offline demo")');
  const meter = page.locator(".meter");
  assert.equal(await meter.getAttribute("data-window"), "32000");
  assert.equal(await meter.getAttribute("data-threshold"), "16000", "threshold: window - min(16384, window/2)");

  // record whether a reply was ever shown while streaming (built from message_start + deltas)
  await page.evaluate(() => {
    const w = window as unknown as { sawStreaming: boolean };
    w.sawStreaming = false;
    new MutationObserver(() => {
      if (document.querySelector(".msg.assistant.streaming")) w.sawStreaming = true;
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await sendPrompt("Tidy up notes.md");
  await page.waitForSelector('.msg.user:has-text("Tidy up notes.md")');
  await page.waitForSelector('.msg.assistant:has-text("I\'ll read the notes first.")');
  const marker = page.locator('.marker.compaction[data-reason="threshold"][data-state="done"]');
  await marker.waitFor();
  await waitIdle();
  assert.equal(await page.evaluate(() => (window as unknown as { sawStreaming: boolean }).sawStreaming), true, "the reply was shown while it streamed");
  assert.match(await page.locator(".msg.assistant").last().textContent() ?? "", /Done: notes\.md now lists messages/);
  assert.equal(await page.locator(".msg.assistant.streaming").count(), 0);

  // tool calls: collapsed, with arguments and results once expanded; long output scrolls
  for (const name of ["read", "edit", "bash", "write"]) {
    const tool = page.locator(`.tool[data-tool-name="${name}"]`).first();
    assert.equal(await tool.getAttribute("data-status"), "done", `${name} is done`);
    assert.equal(await tool.evaluate((d) => (d as HTMLDetailsElement).open), false, `${name} starts collapsed`);
  }
  const bash = page.locator('.tool[data-tool-name="bash"]').first();
  assert.match(await bash.locator("summary").textContent() ?? "", /wc -l notes\.md/);
  await bash.locator("summary").click();
  const output = bash.locator(".tool-result pre.output");
  await output.waitFor({ state: "visible" });
  assert.match((await output.textContent()) ?? "", /6 notes\.md/);
  assert.ok(await output.evaluate((el) => el.scrollHeight > el.clientHeight + 100), "the long output scrolls inside its box");
  await bash.locator("summary").click();
  assert.match(await page.locator('.tool[data-tool-name="edit"] .tool-result').first().textContent() ?? "", /branch summaries/, "the edit's diff");

  // the marker: tokens before and after, reason; the offline summarizer's own summary (no
  // fallback: offline, compaction shows what it does) with its file lists
  const head = (await marker.locator(".marker-head").textContent()) ?? "";
  liveThresholdTitle = (await marker.locator(".marker-title").textContent()) ?? "";
  assert.match(head, /threshold/);
  assert.match(head, /17,020 → [\d,]+ tokens/);
  assert.notEqual(await marker.getAttribute("data-fallback"), "true");
  assert.doesNotMatch(head, /fallback/);
  await marker.locator(".marker-body > summary").click();
  assert.match((await marker.locator(".summary-text").textContent()) ?? "", /## Goal/);
  assert.match((await marker.locator(".files").textContent()) ?? "", /Modified files.*notes\.md/s);

  // the meter follows usage_update: below the threshold again after the compaction
  const state = await withClient((c) => c.getState(mainSessionId));
  await until("the meter to show the context after compaction", async () => (await meter.getAttribute("data-tokens")) === String(Math.round(state.contextTokens)));
  assert.ok(state.contextTokens < 16_000 && state.contextTokens > 0);
  assert.match(await text(".meter-text"), /\/ 32,000 tokens/);
});

test("toggles automatic compaction", { skip, timeout: 10_000 }, async () => {
  const box = page.locator("input.auto-compaction");
  assert.equal(await box.isChecked(), true);
  await box.uncheck();
  await until("auto-compaction off in the daemon", () => withClient(async (c) => !(await c.getState(mainSessionId)).autoCompactionEnabled));
  await page.waitForSelector('.meter[data-auto="false"]');
  await box.check();
  await until("auto-compaction on in the daemon", () => withClient(async (c) => (await c.getState(mainSessionId)).autoCompactionEnabled));
  await page.waitForSelector('.meter[data-auto="true"]');
});

test("compacts on demand with instructions and shows the marker and summary", { skip, timeout: 15_000 }, async () => {
  await sendPrompt("Check the notes again");
  await page.waitForSelector('.msg.assistant:has-text("Nothing else to do.")');
  await waitIdle();
  await page.click("button.compact-open");
  await page.fill(".compact-instructions", "Keep what changed in notes.md");
  await page.click("button.compact-now");
  const marker = page.locator('.marker.compaction[data-reason="manual"][data-state="done"]');
  await marker.waitFor();
  await waitIdle();
  assert.match((await marker.locator(".marker-head").textContent()) ?? "", /Compacted \(manual\) · [\d,]+ → [\d,]+ tokens/);
  await marker.locator(".marker-body > summary").click();
  assert.match((await marker.locator(".summary-text").textContent()) ?? "", /## Goal/);
  const files = (await marker.locator(".files").allTextContents()).join(" ");
  assert.match(files, /notes\.md/);
  assert.match(files, /report\.md/);
  assert.ok(await marker.isVisible(), "the new marker is scrolled into view");
  const st = await withClient((c) => c.getState(mainSessionId));
  assert.equal(await page.locator(".meter").getAttribute("data-tokens"), String(Math.round(st.contextTokens)));
});

test("navigates the tree with a branch summary; the left prompt comes back to the input", { skip, timeout: 15_000 }, async () => {
  await page.click(".tab[data-tab=tree]");
  await page.waitForSelector('.tree-row[data-kind="compaction"]');
  assert.equal(await page.locator('.tree-row[data-kind="compaction"]').count(), 2);
  await page.check("input.summarize-branch");
  const target = page.locator('.tree-row[data-role="user"]', { hasText: "Check the notes again" });
  await target.locator(".tree-go").click();
  // a click asks first: Cancel leaves the leaf where it was
  await target.locator("button.tree-cancel").click();
  assert.equal(await page.locator(".tree-confirm").count(), 0);
  await target.locator(".tree-go").click();
  await target.locator("button.tree-move").click();
  await page.waitForSelector('.marker.branch-summary[data-state="done"]');
  await waitIdle();
  assert.equal(await page.locator(".prompt-input").inputValue(), "Check the notes again", "editorText goes to the input");
  await page.waitForSelector('.tree-row[data-kind="branch_summary"][data-active="true"]');
  const tree = await withClient((c) => c.getTree(mainSessionId));
  const summary = tree.entries.find((e) => e.type === "branch_summary");
  assert.ok(summary && tree.leafId === summary.id, "the daemon's leaf is the branch summary");
  // the branch left behind is still in the tree, off the active path
  assert.equal(await page.locator('.tree-row[data-role="user"]', { hasText: "Check the notes again" }).getAttribute("data-on-path"), null);
  await page.locator(".prompt-input").fill("");

  mkdirSync(join(repoRoot, "test-artifacts"), { recursive: true });
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-main.png") });
});

test("forks a new session from an entry in the tree", { skip, timeout: 10_000 }, async () => {
  const row = page.locator('.tree-row[data-role="assistant"]', { hasText: "Writing a short report." });
  await row.hover();
  await row.locator("button.fork").click();
  const forkId = await until("the forked session", async () => {
    const id = await currentSessionId();
    return id !== mainSessionId ? id : undefined;
  });
  await page.waitForSelector('.msg.assistant:has-text("Writing a short report.")');
  assert.equal(await page.locator('.msg.assistant:has-text("Done: notes.md")').count(), 0, "the fork ends at the entry");
  await page.click(".tab[data-tab=sessions]");
  await page.waitForSelector(`.session-item[data-session-id="${forkId}"][aria-current="true"]`);
  assert.match((await page.locator(`.session-item[data-session-id="${forkId}"]`).textContent()) ?? "", /fork/);
});

test("steers a running run, then aborts it with Escape: the page says the queued steer was dropped", { skip, timeout: 20_000 }, async () => {
  const id = await newSession(slowDir);
  await sendPrompt("Tidy up notes.md slowly");
  await page.waitForSelector('.tool[data-tool-name="bash"][data-status="running"]');
  assert.equal(await page.locator("button.abort").isVisible(), true);
  assert.equal(await page.locator("button.send").isVisible(), false);
  // while it runs, Enter steers
  await sendPrompt("Also count the items");
  await until("the queued steer", async () => /1 steer/.test(await text(".pending")));
  await page.keyboard.press("Escape");
  await page.waitForSelector('.notice[data-kind="aborted"]');
  // the abort dropped the queued steer: the page says so, with its text (prompts_dropped)
  await page.waitForSelector('.notice[data-kind="prompts-dropped"]:has-text("Also count the items")');
  await waitIdle();
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-abort.png") });
  assert.equal((await withClient((c) => c.getState(id))).isRunning, false);
  assert.equal(await page.locator("button.send").isVisible(), true);
  assert.equal(await page.locator(".run-status").getAttribute("data-state"), "idle");
});

test("a queued steer shows with its text in every page of the session; Stop and send now aborts the run and sends it at once", { skip, timeout: 30_000 }, async () => {
  const id = await newSession(slowDir);
  const other = await context.newPage();
  try {
    await other.goto(`${daemon!.url}/#token=${TOKEN}&session=${encodeURIComponent(id)}`);
    await other.waitForSelector(".prompt-input:not([disabled])");
    await sendPrompt("Tidy up notes.md slowly");
    await page.waitForSelector('.tool[data-tool-name="bash"][data-status="running"]');
    await sendPrompt("Then say how many items");
    // both pages show the text (queue_update), not only a count
    for (const p of [page, other]) await p.waitForSelector('.queued-prompt[data-delivery="steer"] .queued-text:text-is("Then say how many items")');
    await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-queued-steer.png") });
    await other.locator(".queued-prompt button.send-now").click();
    // the run is aborted, and the steer starts the next one at once: stored once, never dropped
    await page.waitForSelector('.notice[data-kind="aborted"]');
    await page.waitForSelector('.msg.user:has-text("Then say how many items")');
    for (const p of [page, other]) await p.waitForSelector(".queued-prompts", { state: "hidden" });
    await waitIdle();
    // the run the steer started may compact (the notes script passes the threshold): its history counts too
    const stored = await withClient(async (c) => [...(await c.call("getHistory", { sessionId: id })).messages, ...(await c.getMessages(id)).messages]);
    assert.equal(stored.filter((m) => m.role === "user" && JSON.stringify(m.content).includes("Then say how many items")).length, 1, "stored once");
    assert.equal(await page.locator('.notice[data-kind="prompts-dropped"]').count(), 0, "nothing dropped");
    assert.equal(stored.at(-1)?.role, "assistant", "the model answered the steer");
  } finally {
    await other.close();
  }
});

test("a dropped connection reconnects and the reply resumes where it left off (replay)", { skip, timeout: 20_000 }, async () => {
  const id = await newSession(resumeDir);
  await sendPrompt("Tidy up notes.md");
  await page.waitForSelector('.tool[data-tool-name="bash"][data-status="running"]');
  await page.evaluate(() => (window as unknown as { __net: { drop(block: boolean): void } }).__net.drop(true));
  await page.waitForSelector('.conn[data-state="reconnecting"]');
  // the run goes on without the page: the rest of the demo (2,000+ events) and the compaction
  await until("the run to end in the daemon", () => withClient(async (c) => !(await c.getState(id)).isRunning), 15_000);
  await page.evaluate(() => (window as unknown as { __net: { unblock(): void } }).__net.unblock());
  // the page may reconnect by itself first (its backoff timer): then there is no button to press
  await page.locator("button.retry-now").click({ timeout: 2000 }).catch(() => undefined);
  await page.waitForSelector('.conn[data-state="open"]');
  await page.waitForSelector('.marker.compaction[data-reason="threshold"][data-state="done"]');
  await waitIdle();
  // replayed, not refetched: a refetch would show the compacted context, which no longer has
  // "Checking the result."; the replay continued the transcript, each message once
  assert.equal(await page.locator('.msg.assistant:has-text("Checking the result.")').count(), 1);
  assert.equal(await page.locator('.msg.assistant:has-text("Done: notes.md now lists")').count(), 1);
  assert.equal(await page.locator('.tool[data-tool-name="bash"]').getAttribute("data-status"), "done");
  assert.equal(await page.locator('.tool[data-tool-name="write"]').getAttribute("data-status"), "done");
});

test("reconnects after the daemon restarts and shows the session again", { skip, timeout: 45_000 }, async () => {
  await page.click(`.session-item[data-session-id="${mainSessionId}"]`);
  await page.waitForSelector('.marker.branch-summary[data-state="done"]');
  const port = daemon!.port;
  await stopDaemon();
  await page.waitForSelector('.conn[data-state="reconnecting"]');
  daemon = await startDaemon(port);
  await page.locator("button.retry-now").click({ timeout: 2000 }).catch(() => undefined); // or wait for the backoff
  await page.waitForSelector('.conn[data-state="open"]', { timeout: 15_000 });
  await page.waitForSelector('.marker.branch-summary[data-state="done"]');
  assert.equal(await page.locator(".token-screen").isVisible(), false, "the token was not asked for again");
  assert.equal(await currentSessionId(), mainSessionId);
  // loaded again (the branch left at the tree move ends before the manual compaction): the
  // threshold marker reads as it did live, what it summarized is in a closed block above it
  assert.equal(await page.locator('.marker.compaction[data-reason="threshold"] .marker-title').textContent(), liveThresholdTitle);
  assert.equal(await page.locator("details.history:not([open])").count(), 1);
  assert.match(await text(".title"), /Tidy up notes\.md/);
  // the session is live again in the new daemon, and usable
  await sendPrompt("Once more");
  await page.waitForSelector('.msg.user:has-text("Once more")');
  await page.waitForSelector('.msg.assistant:has-text("I\'ll read the notes first.")');
  await waitIdle();
});

test("a narrow window gets a drawer for sessions and the tree", { skip, timeout: 10_000 }, async () => {
  await page.setViewportSize({ width: 420, height: 800 });
  const sidebar = page.locator(".sidebar");
  await until("the sidebar to slide away", async () => ((await sidebar.boundingBox())?.x ?? 0) + 300 < 0);
  assert.equal(await page.locator(".prompt-input").isVisible(), true);
  const box = await page.locator(".transcript").boundingBox();
  assert.ok(box && box.width >= 400, "the transcript takes the width");
  await page.click("button.menu");
  await until("the drawer to open", async () => ((await sidebar.boundingBox())?.x ?? -1) >= 0);
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-narrow-drawer.png") });
  await page.keyboard.press("Escape");
  await until("the drawer to close", async () => ((await sidebar.boundingBox())?.x ?? 0) < 0);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test("a wrong token says it was refused; a missing one is asked for", { skip, timeout: 15_000 }, async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const p = await ctx.newPage();
    await p.goto(`${daemon!.url}/#token=not-the-token`);
    await p.waitForSelector(".token-screen:not([hidden])");
    await p.waitForSelector('.token-message:has-text("The token was refused.")');
    assert.equal(await p.locator('.conn[data-state="refused"]').count(), 1);
    await p.screenshot({ path: join(repoRoot, "test-artifacts", "web-token-refused.png") });
    assert.equal(await p.evaluate(() => sessionStorage.getItem("pith.token")), null, "a refused token is not kept");

    const q = await ctx.newPage();
    await q.goto(`${daemon!.url}/`);
    await q.waitForSelector(".token-screen:not([hidden])");
    assert.equal(await q.locator(".token-message").isVisible(), false);
    await q.fill(".token-form input[name=token]", TOKEN);
    await q.click(".token-form button[type=submit]");
    await q.waitForSelector('.conn[data-state="open"]');
    await q.waitForSelector(`.session-item[data-session-id="${mainSessionId}"]`);
  } finally {
    await ctx.close();
  }
});

test("transcript: retries count down, provider errors, failed attempts and a reply joined mid-stream", { skip, timeout: 15_000 }, async () => {
  // the demo has no transient errors: drive the transcript module with the events directly
  const p = await transcriptPage(browser);
  try {
    await p.evaluate(() => {
      type T = {
        el: HTMLElement;
        reset(m: unknown[]): void;
        messageStart(m: unknown): void;
        messageEnd(m: unknown, willRetry?: boolean): void;
        delta(d: unknown, model: unknown): void;
        retryStart(e: unknown): void;
        retryEnd(e: unknown): void;
        notice(kind: string, text: string, tag?: string): void;
        runEnd(e: unknown): void;
      };
      const mod = (window as unknown as { PithTranscript: { Transcript: new () => T } }).PithTranscript;
      const t = new mod.Transcript();
      document.getElementById("root")!.appendChild(t.el);
      (window as unknown as { t: T }).t = t;
      const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      const base = { api: "x", provider: "x", model: "x", usage };
      t.reset([{ role: "user", content: "hello", timestamp: 1 }]);
      // a failed attempt that will be retried, then the retry's countdown
      t.messageStart({ role: "assistant", content: [], ...base, stopReason: "stop", timestamp: 2 });
      t.delta({ type: "text", contentIndex: 0, text: "Partial rep" }, base);
      t.messageEnd({ role: "assistant", content: [{ type: "text", text: "Partial rep" }], ...base, stopReason: "error", errorMessage: "overloaded", timestamp: 2 }, true);
      t.retryStart({ attempt: 2, maxAttempts: 3, delayMs: 3000, error: { message: "overloaded", errorClass: "transient", status: 529 } });
    });
    const retry = p.locator('.notice[data-kind="retry"]');
    assert.match((await retry.textContent()) ?? "", /529 overloaded.*Retrying \(attempt 2 of 3\) in 3 s/s);
    await p.waitForFunction(() => /in [12] s/.test(document.querySelector('.notice[data-kind="retry"]')?.textContent ?? ""), undefined, { timeout: 3000 });
    assert.equal(await p.locator(".msg.assistant.retried").count(), 1, "the failed attempt is marked");
    await p.evaluate(() => {
      const t = (window as unknown as { t: { retryEnd(e: unknown): void; delta(d: unknown, m: unknown): void; messageEnd(m: unknown): void; runEnd(e: unknown): void; notice(k: string, s: string, tag?: string): void } }).t;
      const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      const base = { api: "x", provider: "x", model: "x", usage };
      t.retryEnd({ attempt: 2, aborted: false });
      // deltas with no message_start (the page joined mid-reply), then the whole message
      t.delta({ type: "text", contentIndex: 0, text: "Joined " }, base);
      t.delta({ type: "text", contentIndex: 0, text: "late" }, base);
      t.messageEnd({ role: "assistant", content: [{ type: "text", text: "Joined late, now whole." }], ...base, stopReason: "error", errorMessage: "the provider failed", timestamp: 3 });
      t.notice("error", "Provider error (fatal): boom", "provider-error");
      t.runEnd({ runId: "r", stopReason: "error", error: { message: "boom", status: 500 }, usage });
    });
    assert.match((await retry.textContent()) ?? "", /Retrying now \(attempt 2 of 3\)/);
    assert.equal(await retry.getAttribute("data-state"), "retried");
    const last = p.locator(".msg.assistant").last();
    assert.match((await last.textContent()) ?? "", /Joined late, now whole\..*Error: the provider failed/s);
    assert.equal(await p.locator(".msg.assistant.streaming").count(), 0);
    assert.match((await p.locator('.notice[data-kind="run-error"]').textContent()) ?? "", /Run failed: boom \(HTTP 500\)/);
    assert.equal(await p.locator('.notice[data-kind="provider-error"]').count(), 1);
  } finally {
    await p.close();
  }
});
