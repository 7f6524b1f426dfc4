// Compaction the user never waits for, measured through the daemon and the fake Messages API:
// - latency: from the prompt that crosses the trigger to the model's request, with a summarizer
//   that takes 2 s and 10 s to write, preparation on (compaction.prepareAt 0.8) and off (0);
// - cost: summarizer requests and their input over a long session (60 prompts, the window
//   filling and compacting again and again), preparation on vs off.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bigText, byType, FLOW_SETTINGS, SMALL_MODEL, startRpcDaemon, writeSettings, type RpcDaemon } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { round, table } from "./util.js";

class Hooks {
  private fns: (() => unknown)[] = [];
  after(fn: () => unknown): void {
    this.fns.push(fn);
  }
  async run(): Promise<void> {
    for (const fn of this.fns.splice(0).reverse()) await fn();
  }
}

const SUMMARY = "SUMMARY: the user sent long requests; the model answered each; nothing is blocked.";

async function withDaemon<T>(fake: FakeAnthropic, prepareAt: number, fn: (d: RpcDaemon, sessionId: string) => Promise<T>): Promise<T> {
  const hooks = new Hooks();
  const home = mkdtempSync(join(tmpdir(), "pith-bench-aot-"));
  const cwd = mkdtempSync(join(tmpdir(), "pith-bench-aot-cwd-"));
  writeSettings(home, { ...FLOW_SETTINGS, compaction: { ...FLOW_SETTINGS.compaction, prepareAt } });
  const d = startRpcDaemon(hooks, { home, fake, cwd });
  try {
    await d.peer.initialize();
    const s = await d.peer.request("createSession", { cwd, model: SMALL_MODEL.id });
    return await fn(d, s.sessionId);
  } finally {
    d.endStdin();
    await d.waitExit();
    await hooks.run();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** ms from the prompt that crosses the trigger to the model's request, with a summarizer taking `summaryMs`. */
async function triggerLatency(fake: FakeAnthropic, prepareAt: number, summaryMs: number): Promise<number> {
  const frames = 2 + Math.ceil(SUMMARY.length / 4) + 4; // message_start, ping, the deltas, the stops
  const slow = textReply(SUMMARY, { delayMs: Math.round(summaryMs / frames), chunkSize: 4 });
  return withDaemon(fake, prepareAt, async (d, sessionId) => {
    fake.enqueue(textReply("first", { usage: { input_tokens: 3000 } }));
    await d.peer.runPrompt(sessionId, bigText("ONE"), 60_000);
    const from = d.peer.mark();
    // past prepareAt of the threshold (23,616 for the 40k model), under it
    fake.enqueue(textReply("second", { usage: { input_tokens: 23_000 } }), ...(prepareAt > 0 ? [slow] : []));
    await d.peer.runPrompt(sessionId, bigText("TWO"), 60_000);
    if (prepareAt > 0) await d.peer.waitEvent((e) => e.type === "compaction_update" && e.phase === "ready", "the summary written ahead of time", from, summaryMs * 3 + 10_000);
    else fake.enqueue(slow);
    fake.enqueue(textReply("third"));
    const before = fake.requests.length;
    const sent = Date.now();
    await d.peer.runPrompt(sessionId, bigText("THREE"), summaryMs * 3 + 10_000);
    const model = fake.requests.slice(before).find((r) => (r.body.tools ?? []).length > 0);
    if (!model) throw new Error("no model request after the prompt");
    return model.time - sent;
  });
}

interface Cost {
  requests: number;
  inputTokens: number;
  compactions: number;
  prepared: number;
}

/** Summarizer requests over a long session: every reply's usage is the fake's count of its request. */
async function summarizerCost(fake: FakeAnthropic, prepareAt: number, prompts: number): Promise<Cost> {
  return withDaemon(fake, prepareAt, async (d, sessionId) => {
    const first = fake.requests.length;
    const from = d.peer.mark();
    for (let i = 0; i < prompts; i++) await d.peer.runPrompt(sessionId, bigText(`PROMPT-${i}`), 60_000);
    const summarizer = fake.requests.slice(first).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length === 0);
    const ends = byType(d.peer.events.slice(from), "compaction_end").filter((e) => e.result);
    return {
      requests: summarizer.length,
      inputTokens: summarizer.reduce((sum, r) => sum + Math.ceil(r.rawBody.length / 4), 0),
      compactions: ends.length,
      prepared: ends.filter((e) => e.prepared).length,
    };
  });
}

export async function runAheadOfTimeBench(): Promise<void> {
  const fake = await startFakeAnthropic();
  fake.setDefault(textReply(SUMMARY));
  try {
    const rows: (string | number)[][] = [["summarizer takes", "prepared (ms)", "not prepared (ms)", "ratio"]];
    const latency: Record<string, { on: number; off: number }> = {};
    for (const summaryMs of [2000, 10_000]) {
      const on = await triggerLatency(fake, 0.8, summaryMs);
      const off = await triggerLatency(fake, 0, summaryMs);
      latency[`${summaryMs}ms`] = { on, off };
      rows.push([`${summaryMs / 1000} s`, on, off, round(on / off, 4)]);
    }
    const prompts = Number(process.env.BENCH_PROMPTS ?? 60);
    const on = await summarizerCost(fake, 0.8, prompts);
    const off = await summarizerCost(fake, 0, prompts);
    console.log("ahead-of-time compaction: the prompt that crosses the trigger -> the model's request");
    console.log(table(rows));
    console.log(`\nsummarizer cost over ${prompts} prompts (40k window; input counted 4 characters a token):`);
    console.log(
      table([
        ["", "compactions", "of them prepared", "summarizer requests", "summarizer input tokens"],
        ["preparation on", on.compactions, on.prepared, on.requests, on.inputTokens],
        ["preparation off", off.compactions, off.prepared, off.requests, off.inputTokens],
      ]),
    );
    console.log(`extra summarizer input with preparation: ${round((on.inputTokens / Math.max(1, off.inputTokens) - 1) * 100, 1)}%`);
    console.log(JSON.stringify({ aheadOfTime: { latency, cost: { on, off, extraInputRatio: round(on.inputTokens / Math.max(1, off.inputTokens), 3) } } }));
  } finally {
    await fake.close();
  }
}
