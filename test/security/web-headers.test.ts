// The web UI's answers tell a browser what the page may do (issue 32, row 12): through the real
// `pith serve`, every HTTP answer (the page, a script, a 404, a 405, plain GET /rpc, and each
// refusal of an upgrade to /rpc) carries a Content-Security-Policy that allows only the UI's own
// scripts, styles and WebSocket and no framing, plus X-Frame-Options, nosniff and no referrer.
// Then in headless Chromium: the UI loads and runs a prompt under that policy with no violation
// reported, and a page on another origin that frames the UI gets nothing (frame-ancestors).
import assert from "node:assert/strict";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { PithClient, connectWebSocket } from "../../clients/ts/index.js";
import { Cleanup, FLOW_SETTINGS, SMALL_MODEL, startServeDaemon, writeSettings, type ServeDaemon } from "../support/daemon-client.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { ensureWebBundle } from "../support/fresh-dist.js";
import { tempDir } from "../support/tmp.js";
import { launchChromium, webSkipReason } from "../support/web-harness.js";

const EXPECTED: Record<string, string | RegExp> = {
  "content-security-policy": /^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const cleanup = new Cleanup();
let fake: FakeAnthropic;
let daemon: ServeDaemon;
let cwd: string;

before(async () => {
  ensureWebBundle();
  fake = await startFakeAnthropic();
  const home = tempDir(cleanup);
  cwd = tempDir(cleanup);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, args: ["--sandbox", "off"] });
});
after(async () => {
  await cleanup.run();
  await fake.close();
});

function assertHeaders(headers: IncomingHttpHeaders, what: string): void {
  for (const [name, want] of Object.entries(EXPECTED)) {
    const got = headers[name];
    assert.equal(typeof got, "string", `${what}: ${name} is missing (${JSON.stringify(headers)})`);
    if (typeof want === "string") assert.equal(got, want, `${what}: ${name}`);
    else assert.match(got as string, want, `${what}: ${name}`);
  }
}

/** One HTTP request to the daemon: its status and headers (an upgrade request gets a plain answer when refused). */
function fetchHead(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: daemon.port, method, path, headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on("upgrade", () => reject(new Error(`${path}: the upgrade succeeded`)));
    req.on("error", reject);
    req.end();
  });
}

const UPGRADE = { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==" };

test("every HTTP answer of pith serve carries the CSP, frame, nosniff and referrer headers", async () => {
  const cases: [string, string, Record<string, string>, number][] = [
    ["GET", "/", {}, 200],
    ["GET", "/app.js", {}, 200],
    ["GET", "/app.css", {}, 200],
    ["HEAD", "/", {}, 200],
    ["GET", "/no-such-file.js", {}, 404],
    ["GET", "/%2e%2e/etc/passwd", {}, 404],
    ["POST", "/", {}, 405],
    ["GET", "/rpc", {}, 426],
    ["GET", "/rpc", UPGRADE, 401],
    ["GET", "/rpc", { ...UPGRADE, Authorization: `Bearer ${daemon.token}`, Origin: "http://evil.example" }, 403],
    ["GET", "/elsewhere", UPGRADE, 404],
  ];
  for (const [method, path, headers, status] of cases) {
    const what = `${method} ${path}${headers.Upgrade ? " (upgrade)" : ""}`;
    const r = await fetchHead(method, path, headers);
    assert.equal(r.status, status, what);
    assertHeaders(r.headers, `${what} → ${r.status}`);
  }
});

const skip = webSkipReason();

test("in Chromium the UI works under the policy with no violation, and another origin cannot frame it", { skip, timeout: 60_000 }, async () => {
  const browser = await launchChromium();
  cleanup.after(() => browser.close().catch(() => undefined));
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);
  const complaints: string[] = [];
  page.on("console", (m) => /Content Security Policy|Refused to/i.test(m.text()) && complaints.push(m.text()));
  page.on("pageerror", (e) => complaints.push(`page error: ${e.message}`));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const client = new PithClient(await connectWebSocket(`http://127.0.0.1:${daemon.port}`, daemon.token));
  cleanup.after(() => client.close());
  await client.initialize({ name: "web-headers-test" });
  const { sessionId } = await client.createSession({ cwd, model: SMALL_MODEL.id });
  fake.enqueue(textReply("Here is **bold** text, `code` and a [link](https://example.com)."));
  await page.goto(`http://127.0.0.1:${daemon.port}/#token=${daemon.token}&session=${encodeURIComponent(sessionId)}`);
  await page.waitForSelector(".prompt-input:not([disabled])");
  await page.locator(".prompt-input").fill("Say something");
  await page.locator(".prompt-input").press("Enter");
  await page.waitForSelector('.msg.assistant:has-text("Here is")');
  await page.waitForSelector('.app[data-busy="false"]');
  assert.equal(await page.locator(".msg.assistant strong").first().textContent(), "bold", "the reply rendered: the script ran and the WebSocket connected");
  assert.deepEqual(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), [], "no violation reported");
  assert.deepEqual(complaints, []);

  // a page elsewhere (another port is another origin) that frames the UI
  const port = daemon.port;
  const framer: Server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(`<!doctype html><iframe id="ui" src="http://127.0.0.1:${port}/"></iframe>`);
  });
  await new Promise<void>((resolve) => framer.listen(0, "127.0.0.1", resolve));
  cleanup.after(() => new Promise((resolve) => framer.close(() => resolve(undefined))));
  const framing = await page.context().newPage();
  await framing.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
  await framing.waitForFunction(() => (document.getElementById("ui") as HTMLIFrameElement | null) !== null);
  // the framed document never becomes the UI: Chromium puts its error page in the frame instead
  let shown = "";
  for (let i = 0; i < 100; i++) {
    const frame = framing.frames().find((f) => f !== framing.mainFrame());
    shown = frame?.url() ?? "";
    if (shown !== "" && shown !== "about:blank") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const frame = framing.frames().find((f) => f !== framing.mainFrame())!;
  const hasUi = await frame.evaluate(() => document.querySelector("#app") !== null).catch(() => false);
  assert.equal(hasUi, false, `the framed UI was refused (frame at ${shown})`);
});
