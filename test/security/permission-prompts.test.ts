// A permission question shows everything that would run (issue 32, row 12): the model asks for a
// 5,000-character bash command whose harmful part is its last line. In the web UI (headless
// Chromium, the real `pith serve`) the prompt holds the whole command, says it is longer than its
// box, and scrolled to the end shows that last line; a bidi override in it is shown as an escape.
// In ACP (the real `pith acp`, the SDK's client side) session/request_permission's title says
// the command is cut and its content carries the whole command, the override written out there
// too.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { repoRoot, tempDir } from "../support/tmp.js";
import { webSkipReason, webStage, type WebStage } from "../support/web-harness.js";

const LAST_LINE = "touch pwned-by-the-last-line";
/** Harmless lines to 5,000 characters, a line with a bidi override, then the one that matters. */
function longCommand(): string {
  const lines: string[] = ["echo 'tidying up' \u202e# a comment shown reversed"];
  for (let i = 0; lines.join("\n").length < 5_000 - LAST_LINE.length - 40; i++) lines.push(`echo "step ${i}: nothing to see here, just a long list of harmless steps"`);
  lines.push(LAST_LINE);
  return lines.join("\n");
}
const COMMAND = longCommand();

const skipWeb = webSkipReason();
let stage: WebStage | undefined;
after(async () => {
  await stage?.close();
});

test("web: the prompt holds the whole 5,000-character command, says it is longer than its box, and scrolls to its last line", { skip: skipWeb, timeout: 60_000 }, async () => {
  stage = await webStage("permission-prompts-test");
  const { fake, daemon, page, client, cwd } = stage;
  const { sessionId } = await client.createSession({ cwd, model: SMALL_MODEL.id });
  await client.setPermissionMode(sessionId, "ask");
  await page.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}&session=${encodeURIComponent(sessionId)}`);
  await page.waitForSelector(".prompt-input:not([disabled])");
  fake.enqueue(toolUseReply("bash", { command: COMMAND }), textReply("Not run, then."));
  await page.locator(".prompt-input").fill("Tidy up");
  await page.locator(".prompt-input").press("Enter");
  const prompt = page.locator(".permission:not([hidden])");
  await prompt.waitFor();
  const box = prompt.locator(".permission-args");
  const shown = (await box.textContent()) ?? "";
  assert.ok(COMMAND.length >= 4_900, String(COMMAND.length));
  assert.ok(shown.includes(JSON.stringify(LAST_LINE).slice(1, -1)), `the last line is in the prompt (${shown.length} characters shown, ending ${JSON.stringify(shown.slice(-80))})`);
  assert.ok(shown.includes("\\u202e# a comment"), "the bidi override is shown as an escape");
  assert.ok(!shown.includes("\u202e"), "and not obeyed");
  assert.match((await prompt.locator(".permission-note").textContent()) ?? "", /Long: [\d,]+ characters.*Scroll/);
  assert.equal(await prompt.locator(".permission-note").isVisible(), true, "the note about the length is shown");

  // scrolled to its end, the box shows the last line
  const lastLineInView = await box.evaluate((el, needle) => {
    el.scrollTop = el.scrollHeight;
    const text = el.firstChild as Text;
    const at = text.data.indexOf(needle);
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + needle.length);
    const line = range.getBoundingClientRect();
    const frame = el.getBoundingClientRect();
    return { scrolls: el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY === "auto", inView: line.top >= frame.top && line.bottom <= frame.bottom + 1 && line.height > 0 };
  }, LAST_LINE);
  assert.deepEqual(lastLineInView, { scrolls: true, inView: true });
  await page.screenshot({ path: join(repoRoot, "test-artifacts", "web-permission-long-command.png") }).catch(() => undefined);

  await prompt.locator("button.deny").click();
  await page.waitForSelector('.msg.assistant:has-text("Not run, then.")');
  assert.equal(existsSync(join(cwd, "pwned-by-the-last-line")), false, "denied: not run");
});

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("ACP: session/request_permission's content carries the whole command, and its title says it is cut", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  const a = await startAcp(t, { home, fake, cwd });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  const asked: acp.RequestPermissionRequest[] = [];
  a.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "reject_once" } }));
  fake.enqueue(toolUseReply("bash", { command: COMMAND }), textReply("Not run, then."));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Tidy up" }] });
  assert.equal(asked.length, 1, "the command asked");
  const { toolCall } = asked[0]!;
  assert.match(toolCall.title ?? "", /^Run `echo 'tidying up' .*…` \(full command below\)$/);
  assert.ok(toolCall.title?.includes("\\u202e# a comment"), "the bidi override is shown as an escape in the title");
  const texts = (toolCall.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : []));
  assert.ok(
    texts.some((text) => text.includes(COMMAND.replace("\u202e", "\\u202e"))),
    `the whole command is in the content, the override shown as an escape (${JSON.stringify(toolCall.content)?.slice(0, 300)})`,
  );
  assert.ok(![toolCall.title, ...texts].some((text) => text?.includes("\u202e")), "no override left to obey");
  assert.equal(existsSync(join(cwd, "pwned-by-the-last-line")), false, "rejected: not run");
  assert.deepEqual(a.violations, []);
  await a.end();
});
