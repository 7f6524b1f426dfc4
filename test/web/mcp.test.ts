// The session's MCP servers in the web UI, in headless Chromium against the real daemon, the fake
// Messages API and the real stdio test server (official SDK) named in the user's settings: the
// controls row's closed "MCP" badge counts them and marks the one that failed; opened, it lists
// each with its transport, state and tools (read-only ones marked) and the failed one with its
// reason; a model call of an MCP tool shows as a tool card naming its server; and the same at
// phone size, inside the screen. Screenshots go to test-artifacts/.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { textReply, toolUseReply } from "../support/fake-anthropic.js";
import { SMALL_MODEL } from "../support/daemon-client.js";
import { repoRoot } from "../support/tmp.js";
import { webSkipReason, webStage, type WebStage } from "../support/web-harness.js";

const skip = webSkipReason();
const SERVER = join(repoRoot, "test", "support", "mcp-server.mjs");
const ARTIFACTS = join(repoRoot, "test-artifacts");
let stage: WebStage;

before(async () => {
  if (skip) return;
  stage = await webStage("web-mcp-test", {
    mcpServers: {
      notes: { command: process.execPath, args: [SERVER, "--only", "echo,write_note"] },
      broken: { command: process.execPath, args: [SERVER, "--fail-start"] },
    },
  });
});

after(async () => {
  if (!skip) await stage?.close();
});

async function show(p: Page, id: string): Promise<void> {
  await p.goto(`http://127.0.0.1:${stage.daemon.port}/#token=${stage.daemon.token}&session=${encodeURIComponent(id)}`);
  await p.waitForSelector(".prompt-input:not([disabled])");
}

test("the MCP badge lists the servers with their tools and the failed one's reason; an MCP tool's card names its server", { skip, timeout: 60_000 }, async () => {
  const { page, client, fake, cwd, browser } = stage;
  const { sessionId: id } = await client.createSession({ cwd, model: SMALL_MODEL.id });
  await show(page, id);

  const badge = page.locator("details.mcp");
  // closed, yet the failure is marked in words (the reason in its tooltip)
  const mark = badge.locator(".mcp-failed-mark");
  await mark.waitFor();
  assert.equal(await mark.textContent(), "⚠ 1 failed");
  assert.match((await mark.getAttribute("title")) ?? "", /^broken: .*cannot open the database: \/nope/);
  await page.waitForSelector('details.mcp[data-failed="1"] .mcp-counts:text-is("1/2 ready")');
  assert.equal(await badge.evaluate((d) => (d as HTMLDetailsElement).open), false, "closed by default");

  await badge.locator("summary").click();
  const notes = badge.locator('.mcp-server[data-server="notes"][data-state="ready"]');
  await notes.waitFor();
  assert.equal((await notes.locator(".mcp-server-head").innerText()).replace(/\s+/g, " "), "notes stdio ready 2 tools");
  assert.equal(await notes.locator('.mcp-tool[data-tool="mcp__notes__echo"] code').textContent(), "echo");
  assert.equal(await notes.locator('.mcp-tool[data-tool="mcp__notes__echo"] .mcp-ro').textContent(), "read-only");
  assert.equal(await notes.locator('.mcp-tool[data-tool="mcp__notes__write_note"] .mcp-ro').count(), 0, "write_note is not marked read-only");
  const broken = badge.locator('.mcp-server[data-server="broken"][data-state="failed"]');
  assert.match((await broken.locator(".mcp-error").textContent()) ?? "", /it exited before it was ready \(it said: cannot open the database: \/nope\)/);
  await page.screenshot({ path: join(ARTIFACTS, "web-mcp-servers.png") });

  fake.enqueue(toolUseReply("mcp__notes__echo", { text: "from the page" }), textReply("Echoed it."));
  await page.locator(".prompt-input").fill("Echo something");
  await page.locator(".prompt-input").press("Enter");
  const card = page.locator('.tool[data-tool-name="mcp__notes__echo"][data-status="done"]');
  await card.waitFor();
  await page.waitForSelector('.msg.assistant:has-text("Echoed it.")');
  assert.equal(await card.getAttribute("data-mcp-server"), "notes");
  assert.equal(await card.locator(".tool-server").textContent(), "notes");
  assert.equal(await card.locator(".tool-name").textContent(), "echo");
  await card.locator("summary").click();
  assert.equal(await card.locator(".tool-result pre").first().textContent(), "echo: from the page");
  await page.screenshot({ path: join(ARTIFACTS, "web-mcp-tool-card.png") });

  // a reload draws the card from the stored result (details.mcp) the same way
  await page.reload();
  await page.waitForSelector(".prompt-input:not([disabled])");
  assert.equal(await page.locator('.tool[data-tool-name="mcp__notes__echo"] .tool-server').textContent(), "notes");

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const p = await phone.newPage();
    p.setDefaultTimeout(10_000);
    await show(p, id);
    // on a phone the session's controls (the MCP badge among them) are behind the menu
    await p.locator("button.session-menu").tap();
    await p.locator("details.mcp summary").tap();
    await p.locator('.mcp-server[data-server="broken"] .mcp-error').waitFor();
    for (const sel of ["details.mcp > summary", '.mcp-server[data-server="broken"] .mcp-error', '.mcp-server[data-server="notes"]', '.tool[data-tool-name="mcp__notes__echo"] .tool-server']) {
      const box = await p.locator(sel).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 + 1, `${sel} is inside the screen: ${JSON.stringify(box)}`);
    }
    await p.screenshot({ path: join(ARTIFACTS, "web-mcp-phone.png") });
  } finally {
    await phone.close();
  }
});
