// The Ollama provider's cost per streamed token: OllamaProvider.stream against reading the same
// NDJSON stream raw with fetch (cut lines, JSON.parse each, take its delta), from a fake Ollama in
// its own process. Two shapes: many small deltas (a token a line, as Ollama streams) and long
// lines. Two baselines: the bare read, which drops each delta, and the read that keeps the reply's
// text as any client must (the SDK streams the other providers are measured against keep the
// final message too): the target, within 1.1x, is against that one. Runs rotate between the three
// readers (and which goes first) so drift hits all; the figures are ratios of medians, of wall time
// and of this process's CPU time (the reader's own work, which other load on the machine disturbs less).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OllamaProvider } from "../../src/llm/ollama.js";
import type { ModelInfo } from "../../src/llm/types.js";
import { collectGarbage, median, round, table } from "../util.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEFAULT_RUNS = Number(process.env.BENCH_RUNS ?? 15);
const DEFAULT_SMALL = Number(process.env.BENCH_OLLAMA_SMALL ?? 20_000);
const DEFAULT_LONG = Number(process.env.BENCH_OLLAMA_LONG ?? 2000);

async function startServer(small: number, long: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench", "providers", "ollama-server-child.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, BENCH_OLLAMA_SMALL: String(small), BENCH_OLLAMA_LONG: String(long) },
  });
  const url = await new Promise<string>((resolve) => child.stdout!.once("data", (d) => resolve(String(d).trim())));
  return { url, stop: () => new Promise((r) => (child.once("exit", r), child.kill("SIGTERM"))) };
}

const model = (id: string): ModelInfo => ({ id, provider: "ollama", contextWindow: 32_768, maxOutputTokens: 8192, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, thinking: "none" });

/** tokens: lines with text (Ollama sends a token a line); chars: the text read, which all readers must agree on */
type Run = { ms: number; cpuMs: number; tokens: number; chars: number; events: number };
type Reader = "raw" | "rawKeep" | "provider";
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The baseline: fetch, cut lines, parse each, take its delta (and with `keep`, keep it). */
async function raw(url: string, id: string, keep: boolean): Promise<Run> {
  const c0 = cpuNow();
  const t0 = performance.now();
  const res = await fetch(`${url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: id, messages: [{ role: "user", content: "go" }], stream: true, options: { num_ctx: 32_768 } }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const kept: string[] = [];
  let rest = "";
  let tokens = 0;
  let chars = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line) continue;
      const o = JSON.parse(line) as { message?: { content?: string }; done?: boolean };
      const text = o.message?.content;
      if (text) {
        if (keep) kept.push(text);
        tokens++;
        chars += text.length;
      }
    }
  }
  if (chars === 0) throw new Error("raw: no text");
  return { ms: performance.now() - t0, cpuMs: cpuNow() - c0, tokens, chars, events: tokens };
}

async function viaProvider(provider: OllamaProvider, id: string): Promise<Run> {
  const c0 = cpuNow();
  const t0 = performance.now();
  let events = 0;
  let chars = 0;
  let last = "";
  for await (const ev of provider.stream({ model: model(id), systemPrompt: "", messages: [{ role: "user", content: "go", timestamp: 0 }], tools: [], maxTokens: 8192, signal: new AbortController().signal })) {
    if (ev.type === "text_delta") {
      events++;
      chars += ev.delta.length;
    }
    last = ev.type;
  }
  if (last !== "done") throw new Error(`provider: ended with ${last}`);
  return { ms: performance.now() - t0, cpuMs: cpuNow() - c0, tokens: 0, chars, events };
}

/** `small` / `long`: lines per reply of each shape; `runs`: timed runs per figure (the test runs it tiny) */
export async function runOllamaBench(opts: { log?: (line: string) => void; runs?: number; small?: number; long?: number } = {}): Promise<void> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const [RUNS, SMALL_LINES, LONG_LINES] = [opts.runs ?? DEFAULT_RUNS, opts.small ?? DEFAULT_SMALL, opts.long ?? DEFAULT_LONG];
  const server = await startServer(SMALL_LINES, LONG_LINES);
  const provider = new OllamaProvider({ baseURL: server.url });
  const read = (which: Reader, id: string) => (which === "provider" ? viaProvider(provider, id) : raw(server.url, id, which === "rawKeep"));
  const rows: (string | number)[][] = [["Ollama /api/chat NDJSON (fake Ollama in its own process)", "tokens", "raw ms", "raw+keep ms", "provider ms", "wall ratio", "CPU ratio", "CPU ratio to bare raw", "CPU µs/token"]];
  const figures: Record<string, unknown> = { bench: "providers-ollama", runs: RUNS };
  const ratios: number[] = [];
  try {
    for (const [shape, id, label] of [["smallDeltas", "small", `many small deltas (${SMALL_LINES} lines of 1-3 chars)`], ["longLines", "long", `long lines (${LONG_LINES} lines of 4 KiB)`]] as const) {
      const runs: Record<Reader, Run[]> = { raw: [], rawKeep: [], provider: [] };
      const order: Reader[] = ["raw", "rawKeep", "provider"];
      for (const which of order) await read(which, id);
      for (let i = 0; i < RUNS; i++) {
        for (let j = 0; j < order.length; j++) {
          const which = order[(i + j) % order.length];
          collectGarbage();
          runs[which].push(await read(which, id));
        }
      }
      const chars = new Set([...runs.raw, ...runs.rawKeep, ...runs.provider].map((r) => r.chars));
      if (chars.size !== 1) throw new Error(`${shape}: the readers disagree on the text (${[...chars].join(", ")} characters)`);
      const tokens = runs.raw[0].tokens;
      const wall = (w: Reader) => median(runs[w].map((x) => x.ms));
      const cpu = (w: Reader) => median(runs[w].map((x) => x.cpuMs));
      const wallRatio = wall("provider") / wall("rawKeep");
      const cpuRatio = cpu("provider") / cpu("rawKeep");
      const overheadUs = ((cpu("provider") - cpu("rawKeep")) * 1000) / tokens;
      ratios.push(wallRatio, cpuRatio);
      rows.push([label, tokens, round(wall("raw"), 1), round(wall("rawKeep"), 1), round(wall("provider"), 1), round(wallRatio, 3), round(cpuRatio, 3), round(cpu("provider") / cpu("raw"), 3), round(overheadUs, 2)]);
      figures[shape] = {
        tokens,
        providerTextEvents: median(runs.provider.map((x) => x.events)),
        wallMs: { raw: round(wall("raw"), 2), rawKeep: round(wall("rawKeep"), 2), provider: round(wall("provider"), 2) },
        cpuMs: { raw: round(cpu("raw"), 2), rawKeep: round(cpu("rawKeep"), 2), provider: round(cpu("provider"), 2) },
        ratio: { wall: round(wallRatio, 4), cpu: round(cpuRatio, 4), cpuToBareRaw: round(cpu("provider") / cpu("raw"), 4) },
        overheadUsPerToken: round(overheadUs, 3),
      };
    }
  } finally {
    await server.stop();
  }
  log(table(rows));
  log("(ratios are the provider's to the raw read that keeps the text; the provider merges the deltas that arrive in one read into one text_delta event)");
  log(`target: within 1.1x of the raw stream: ${ratios.every((x) => x <= 1.1) ? "met" : "MISSED"} (medians of ${RUNS} rotating runs)`);
  log(JSON.stringify(figures));
}

// `node --import tsx bench/providers/ollama.ts` runs it alone
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await runOllamaBench();
