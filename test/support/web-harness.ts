// What the web UI tests share: whether they can run here (Chromium, the built bundle), headless
// Chromium launched the same way, and the usual stage: the fake Messages API, `pith serve` with
// the flow settings, a client of the daemon and a desktop-sized page.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { PithClient, connectWebSocket } from "../../clients/ts/index.js";
import { startFakeAnthropic, type FakeAnthropic } from "./fake-anthropic.js";
import { Cleanup, FLOW_SETTINGS, SMALL_MODEL, startServeDaemon, writeSettings, type ServeDaemon } from "./daemon-client.js";
import { ensureWebBundle } from "./fresh-dist.js";
import { repoRoot, tempDir } from "./tmp.js";

const CHROMIUM = "/usr/bin/chromium";

/** Why the web tests cannot run here (false: they can); brings the web bundle up to date first. */
export function webSkipReason(): string | false {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM}: install it to run the web UI tests (Debian/Ubuntu: apt-get install -y chromium)`;
  ensureWebBundle();
  return existsSync(join(repoRoot, "clients", "web", "dist", "app.js")) ? false : "clients/web/dist is missing: run npm run build first";
}

/** Headless Chromium, quiet: no network of its own, no first-run work. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--no-first-run", "--disable-component-update", "--disable-sync"] });
}

/**
 * A blank page with the web UI's transcript module (clients/web/src/transcript.ts, bundled as the
 * global `PithTranscript`) and its stylesheet loaded, for tests that drive the transcript with
 * events directly instead of through a daemon.
 */
export async function transcriptPage(browser: Browser): Promise<Page> {
  const { build } = await import("esbuild");
  const bundle = await build({ entryPoints: [join(repoRoot, "clients", "web", "src", "transcript.ts")], bundle: true, format: "iife", globalName: "PithTranscript", write: false, logLevel: "silent" });
  const p = await browser.newPage();
  await p.setContent('<link rel="icon" href="data:,"><div id="root"></div>');
  await p.addStyleTag({ path: join(repoRoot, "clients", "web", "src", "app.css") });
  await p.addScriptTag({ content: bundle.outputFiles[0].text });
  return p;
}

export interface WebStage {
  fake: FakeAnthropic;
  daemon: ServeDaemon;
  client: PithClient;
  browser: Browser;
  page: Page;
  /** the project directory sessions are created in */
  cwd: string;
  close(): Promise<void>;
}

/**
 * An init script (context.addInitScript) that lets a test drop the page's WebSocket and keep it
 * from reconnecting (and the daemon probe failing): window.__net.drop(block), window.__net.unblock().
 */
export const NETWORK_SWITCH = `(() => {
  const NativeWebSocket = window.WebSocket;
  const nativeFetch = window.fetch.bind(window);
  const sockets = [];
  let blocked = false;
  window.__net = {
    drop(block) { blocked = block; for (const s of sockets) s.close(); },
    unblock() { blocked = false; },
  };
  window.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      super(blocked ? "ws://127.0.0.1:9/rpc" : url, protocols);
      sockets.push(this);
    }
  };
  window.fetch = (...args) => (blocked ? Promise.reject(new TypeError("network blocked by the test")) : nativeFetch(...args));
})();`;

/** The fake API, a daemon with the flow settings and the small model (and `settings` over them), a client and a 1280×800 page. */
export async function webStage(clientName: string, settings: object = {}): Promise<WebStage> {
  const cleanup = new Cleanup();
  const fake = await startFakeAnthropic();
  const home = tempDir(cleanup);
  const cwd = tempDir(cleanup);
  writeSettings(home, { ...FLOW_SETTINGS, models: [SMALL_MODEL], ...settings });
  const daemon = await startServeDaemon(cleanup, { home, fake, cwd, args: ["--sandbox", "off"] });
  const client = new PithClient(await connectWebSocket(daemon.wsUrl.replace("/rpc", ""), daemon.token));
  await client.initialize({ name: clientName });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);
  return {
    fake, daemon, client, browser, page, cwd,
    async close() {
      client.close();
      await browser.close().catch(() => undefined);
      await cleanup.run();
      await fake.close();
    },
  };
}
