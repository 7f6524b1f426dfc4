// How the web transcript words two compaction outcomes, driving the transcript module in headless
// Chromium with the events directly: a skipped automatic compaction (compaction_skipped) is a quiet
// line, not an error or a warning; a full context with automatic compaction off (-32021) is an
// error that says what to do.
import assert from "node:assert/strict";
import { test } from "node:test";
import { launchChromium, transcriptPage, webSkipReason } from "../support/web-harness.js";

const skip = webSkipReason();

test("compaction_skipped: a quiet line; -32021: an error notice with the sizes", { skip, timeout: 30_000 }, async () => {
  const browser = await launchChromium();
  try {
    const p = await transcriptPage(browser);
    await p.evaluate(() => {
      type T = { el: HTMLElement; reset(m: unknown[]): void; apply(ev: unknown): void };
      const t = new (window as unknown as { PithTranscript: { Transcript: new () => T } }).PithTranscript.Transcript();
      document.getElementById("root")!.appendChild(t.el);
      t.reset([{ role: "user", content: "hello", timestamp: 1 }]);
      t.apply({ type: "compaction_skipped", reason: "threshold", code: "too_little_gain", tokensBefore: 6737, message: "compaction skipped: it would free about 300 of 6737 tokens, under 10%" });
      t.apply({ type: "error", code: -32021, message: "the context is full", data: { class: "overflow", status: 400, retryable: false, contextTokens: 210_500, contextWindow: 200_000 } });
    });
    const skipped = p.locator('.notice[data-kind="compaction-skipped"]');
    assert.equal(await skipped.count(), 1);
    assert.equal(await skipped.getAttribute("class"), "notice quiet", "neither an error nor a warning");
    assert.equal(await skipped.textContent(), "Automatic compaction skipped: it would free too little (6,737 tokens in context).");
    assert.match((await skipped.getAttribute("title")) ?? "", /about 300 of 6737/);
    const full = p.locator('.notice.error[data-kind="context-full"]');
    assert.match((await full.textContent()) ?? "", /context is full \(about 210,500 of 200,000 tokens\) and automatic compaction is off: compact the session/);
  } finally {
    await browser.close();
  }
});
