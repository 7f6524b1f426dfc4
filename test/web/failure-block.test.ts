// One failure, one message: a prompt to a local OpenAI-compatible server that is not running.
// The real daemon (bin/pith --mode rpc) retries it, and says in each retry_start and in the run's
// error which provider failed, at which URL, and what to check; the web transcript, fed exactly
// the events the daemon sent, shows one block for the failed prompt, updated in place by each
// retry (not one per attempt, nor an error, a failed reply and a "run failed" beside it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { closedPort } from "../support/closed-port.js";
import { agentEnd, byType, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";
import { launchChromium, transcriptPage, webSkipReason } from "../support/web-harness.js";

const skip = webSkipReason();

test("a provider that cannot be reached: named with its URL in every retry and the run's error; one block in the web transcript", { skip, timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  writeSettings(home, { providers: { local: { api: "openai-completions", baseUrl } } });
  const d = startRpcDaemon(t, { home, cwd, env: { PITH_RETRY_DELAY_MS: "1" } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: "local/qwen3-coder" });
  const run = await d.peer.runPrompt(s.sessionId, "hello", 30_000);
  d.endStdin();
  await d.waitExit();

  const worded = `cannot reach provider local at ${baseUrl} (connection refused); is the server running? \`pith models\` lists what pith can reach`;
  const retries = byType(run.events, "retry_start");
  assert.deepEqual(
    retries.map((r) => [r.attempt, r.error.message, r.error.provider]),
    [1, 2, 3].map((n) => [n, worded, { name: "local", baseUrl }]),
  );
  const end = agentEnd(run.events);
  assert.equal(end.stopReason, "error");
  assert.deepEqual(end.error, { message: worded, errorClass: "transient", provider: { name: "local", baseUrl } });
  const error = byType(run.events, "error")[0];
  assert.equal(error?.message, worded);
  assert.deepEqual((error?.data as { provider?: unknown }).provider, { name: "local", baseUrl });

  const browser = await launchChromium();
  try {
    const p = await transcriptPage(browser);
    await p.evaluate(() => {
      type T = { el: HTMLElement; reset(m: unknown[]): void; apply(ev: unknown): void };
      const w = window as unknown as { PithTranscript: { Transcript: new () => T }; t: T };
      w.t = new w.PithTranscript.Transcript();
      document.getElementById("root")!.appendChild(w.t.el);
      w.t.reset([]);
    });
    /** The blocks the transcript shows besides the user's prompt: [kind, text]. */
    const blocks = () => p.evaluate(() => [...document.querySelectorAll("#root .notice, #root [data-stop-reason]")].map((el) => [(el as HTMLElement).dataset.kind ?? "reply", el.textContent ?? ""]));
    const feed = (events: readonly unknown[]) => p.evaluate((evs) => {
      for (const ev of evs) (window as unknown as { t: { apply(ev: unknown): void } }).t.apply(ev);
    }, events as unknown[]);

    const firstRetry = run.events.indexOf(retries[0]!);
    const secondRetry = run.events.indexOf(retries[1]!);
    await feed(run.events.slice(0, firstRetry + 1));
    const first = await blocks();
    assert.equal(first.length, 1, JSON.stringify(first));
    assert.equal(first[0]![0], "retry");
    assert.match(first[0]![1], /cannot reach provider local at .* \(connection refused\).*attempt 1 of 3/);
    await feed(run.events.slice(firstRetry + 1, secondRetry + 1));
    const second = await blocks();
    assert.equal(second.length, 1, `the second attempt updates the block: ${JSON.stringify(second)}`);
    assert.match(second[0]![1], /attempt 2 of 3/);
    assert.equal(await p.locator('#root [data-kind="retry"][data-attempt="2"]').count(), 1);

    await feed(run.events.slice(secondRetry + 1));
    const last = await blocks();
    assert.deepEqual(last.map(([kind]) => kind), ["provider-error"], JSON.stringify(last));
    assert.ok(last[0]![1].includes(worded), last[0]![1]);
  } finally {
    await browser.close();
  }
});
