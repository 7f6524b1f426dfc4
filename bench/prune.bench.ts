// Prune bench: does leaving old tool outputs out pay for the prompt-cache writes it causes?
// The same long scripted session (prompts that each read several big files) runs through the
// daemon (bin/pith, fake Messages API) with compaction.prune off and on (the defaults, and
// OpenCode's 40k kept / 20k minimum), and every request the daemon sent is billed as the real API
// would bill it (cache-billing.ts: reads 0.1x, writes 1.25x, breakpoints, 5-minute life) on a
// simulated clock. Prints the total and per-request cost of each, and on / off as a ratio.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, textReply, toolUseReply } from "../test/support/fake-anthropic.js";
import { startRpcDaemon, writeSettings } from "../test/support/daemon-client.js";
import { addBills, CacheBilling, NO_BILL, type Bill } from "./cache-billing.js";
import { round, table } from "./util.js";

// 8 prompts: about 170k tokens of context with prune off, within a 200k window (compaction is off here)
const PROMPTS = Number(process.env.PRUNE_BENCH_PROMPTS ?? 8);
const READS_PER_PROMPT = 6;
/** lines per file: ~4000 estimated tokens of output each */
const FILE_LINES = 160;
/** simulated seconds between requests within a prompt, and between prompts */
const TOOL_GAP_MS = 15_000;
const PROMPT_GAP_MS = 90_000;
const OUTPUT_TOKENS = 150;

function fileText(n: number): string {
  return Array.from({ length: FILE_LINES }, (_, i) => `export const value${n}_${i} = computeSomething(input${i}, { retries: ${i % 5} });`).join("\n");
}

interface RunFigures {
  requests: number;
  bill: Bill;
  lastContextTokens: number;
}

type PruneConfig = { enabled: boolean; keepToolTokens?: number; minPruneTokens?: number };

async function runSession(prune: PruneConfig): Promise<RunFigures> {
  const root = mkdtempSync(join(tmpdir(), "pith-prune-bench-"));
  const cleanups: (() => unknown)[] = [];
  const hooks = { after: (fn: () => unknown) => void cleanups.push(fn) };
  const fake = await startFakeAnthropic();
  try {
    const home = join(root, "home");
    const cwd = join(root, "cwd");
    mkdirSync(cwd);
    writeSettings(home, { compaction: { enabled: false, prune } });
    for (let n = 0; n < PROMPTS * READS_PER_PROMPT; n++) writeFileSync(join(cwd, `mod${n}.ts`), fileText(n));
    const d = startRpcDaemon(hooks, { home, fake, cwd });
    await d.peer.initialize();
    const s = await d.peer.request("createSession", { cwd });
    const billing = new CacheBilling();
    let bill = NO_BILL;
    let now = 0;
    let billed = 0;
    let lastContextTokens = 0;
    for (let p = 0; p < PROMPTS; p++) {
      for (let r = 0; r < READS_PER_PROMPT; r++) fake.enqueue(toolUseReply("read", { path: `mod${p * READS_PER_PROMPT + r}.ts` }));
      fake.enqueue(textReply(`step ${p} done`));
      await d.peer.runPrompt(s.sessionId, `step ${p}: read the next modules and tell me what they compute`, 120_000);
      const sent = fake.requests.filter((q) => q.path === "/v1/messages");
      for (; billed < sent.length; billed++) {
        now += isPromptStart(sent[billed].body) ? PROMPT_GAP_MS : TOOL_GAP_MS;
        const b = billing.bill(sent[billed].body, now, OUTPUT_TOKENS);
        lastContextTokens = b.input + b.cacheRead + b.cacheWrite;
        bill = addBills(bill, b);
      }
    }
    d.endStdin();
    await d.waitExit();
    return { requests: billed, bill, lastContextTokens };
  } finally {
    for (const fn of cleanups.reverse()) await fn();
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** the first request of a prompt: its last message is the user's text */
function isPromptStart(body: Record<string, any>): boolean {
  const last = body.messages.at(-1);
  return last.role === "user" && (typeof last.content === "string" || last.content.some((b: { type: string }) => b.type === "text"));
}

const usd = (n: number) => round(n, 4);

/** prune settings compared with prune off: the defaults (batches larger than what is kept), and OpenCode's (smaller ones) */
const CONFIGS: { name: string; prune: PruneConfig }[] = [
  { name: "on (defaults: keep 20k / min 40k)", prune: { enabled: true } },
  { name: "on (keep 40k / min 20k)", prune: { enabled: true, keepToolTokens: 40_000, minPruneTokens: 20_000 } },
];

export async function runPruneBench(): Promise<void> {
  const off = await runSession({ enabled: false });
  const rows: (string | number)[][] = [["prune", "requests", "input", "cache read", "cache write", "total $", "$ / request", "last context", "on / off"]];
  const row = (name: string, f: RunFigures) => [name, f.requests, f.bill.input, f.bill.cacheRead, f.bill.cacheWrite, usd(f.bill.cost), usd(f.bill.cost / f.requests), f.lastContextTokens, round(f.bill.cost / off.bill.cost, 3)];
  rows.push(row("off", off));
  const figures: Record<string, unknown> = { off: { ...off.bill, requests: off.requests } };
  for (const c of CONFIGS) {
    const on = await runSession(c.prune);
    rows.push(row(c.name, on));
    figures[c.name] = { ...on.bill, requests: on.requests, ratio: round(on.bill.cost / off.bill.cost, 3) };
  }
  console.log(`${PROMPTS} prompts x ${READS_PER_PROMPT} reads of ~3.5k-token files, ${TOOL_GAP_MS / 1000} s between requests, ${PROMPT_GAP_MS / 1000} s between prompts; Sonnet prices`);
  console.log(table(rows));
  console.log(JSON.stringify({ bench: "prune", prompts: PROMPTS, ...figures }));
}
