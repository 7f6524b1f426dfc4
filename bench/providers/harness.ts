// The providers bench's measure: what pith adds per streamed token on top of the vendor SDK.
// For each provider and stream shape, the same fake server (in its own process) streams the same
// reply to (a) the raw SDK stream, iterated with the least work that still reads each delta, and
// (b) provider.stream, consumed to its final message. Runs alternate between the two, after a
// warm-up of each; the figures are medians, and the overhead a ratio within the same run. The
// ratio is taken on this process's CPU time (process.cpuUsage): the client's work is what pith
// adds to, and on a shared machine CPU time shifts far less with other processes' load than
// wall time does (which is printed beside it).
import type { ModelInfo, Provider } from "../../src/llm/types.js";
import { collectGarbage, median, round, table } from "../util.js";

export type Shape = "text" | "tools";

export interface BenchServer {
  /** the SDK's base URL */
  baseURL: string;
  stop(): Promise<void>;
}

/** One provider's part of the bench; each provider adds one (bench/providers/<provider>.ts). */
export interface ProviderBenchCase {
  provider: string;
  shapes: readonly Shape[];
  model: ModelInfo;
  /** a fake server streaming `deltas` deltas of `shape` to every request */
  startServer(shape: Shape, deltas: number): Promise<BenchServer>;
  /** reads one reply straight from the SDK; returns how many deltas it saw */
  raw(server: BenchServer, shape: Shape): Promise<number>;
  /** the provider under test, pointed at `server` */
  create(server: BenchServer): Provider;
}

export interface ProviderFigures {
  provider: string;
  shape: Shape;
  deltas: number;
  /** CPU ms of this process per reply, medians */
  rawCpuMs: number;
  pithCpuMs: number;
  /** pith's CPU time over the raw stream's (target: within 1.1) */
  ratio: number;
  /** CPU µs pith adds per delta */
  overheadUsPerDelta: number;
  /** wall ms per reply, medians */
  rawWallMs: number;
  pithWallMs: number;
  rawCpuRuns: number[];
  pithCpuRuns: number[];
}

interface Timing {
  wall: number;
  cpu: number;
}

async function timed(fn: () => Promise<number>, expect: number, what: string): Promise<Timing> {
  collectGarbage();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const n = await fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (n !== expect) throw new Error(`${what}: ${n} deltas, expected ${expect}`);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

/** consumes provider.stream to its end; returns the deltas it reported */
async function throughProvider(provider: Provider, model: ModelInfo): Promise<number> {
  let n = 0;
  for await (const ev of provider.stream({ model, systemPrompt: "bench", messages: [{ role: "user", content: "go", timestamp: 0 }], tools: [], maxTokens: 100_000, signal: new AbortController().signal })) {
    if (ev.type === "text_delta" || ev.type === "toolcall_delta") n++;
    else if (ev.type === "error") throw ev.error;
  }
  return n;
}

async function measureCase(c: ProviderBenchCase, shape: Shape, deltas: number, runs: number): Promise<ProviderFigures> {
  const server = await c.startServer(shape, deltas);
  try {
    const provider = c.create(server);
    const raw = () => timed(() => c.raw(server, shape), deltas, `${c.provider} raw ${shape}`);
    const pith = () => timed(() => throughProvider(provider, c.model), deltas, `${c.provider} provider ${shape}`);
    await raw();
    await pith();
    const rawRuns: Timing[] = [];
    const pithRuns: Timing[] = [];
    for (let i = 0; i < runs; i++) {
      // alternate the order so neither side always runs on a warmer machine
      if (i % 2 === 0) rawRuns.push(await raw()), pithRuns.push(await pith());
      else pithRuns.push(await pith()), rawRuns.push(await raw());
    }
    const rawCpu = median(rawRuns.map((r) => r.cpu));
    const pithCpu = median(pithRuns.map((r) => r.cpu));
    return {
      provider: c.provider,
      shape,
      deltas,
      rawCpuMs: round(rawCpu, 2),
      pithCpuMs: round(pithCpu, 2),
      ratio: round(pithCpu / rawCpu, 3),
      overheadUsPerDelta: round(((pithCpu - rawCpu) * 1000) / deltas, 3),
      rawWallMs: round(median(rawRuns.map((r) => r.wall)), 2),
      pithWallMs: round(median(pithRuns.map((r) => r.wall)), 2),
      rawCpuRuns: rawRuns.map((r) => round(r.cpu, 1)),
      pithCpuRuns: pithRuns.map((r) => round(r.cpu, 1)),
    };
  } finally {
    await server.stop();
  }
}

export async function runProviderCases(cases: readonly ProviderBenchCase[], options: { deltas?: number; runs?: number; log?: (line: string) => void } = {}): Promise<ProviderFigures[]> {
  const deltas = options.deltas ?? Number(process.env.BENCH_DELTAS ?? 20_000);
  const runs = options.runs ?? Number(process.env.BENCH_RUNS ?? 7);
  const log = options.log ?? ((line: string) => console.log(line));
  const figures: ProviderFigures[] = [];
  for (const c of cases) for (const shape of c.shapes) figures.push(await measureCase(c, shape, deltas, runs));
  log(
    table([
      [`${deltas} deltas per reply, median of ${runs} (fake server in its own process)`, "raw SDK cpu ms", "provider cpu ms", "ratio", "cpu µs/delta added", "raw wall ms", "provider wall ms"],
      ...figures.map((f) => [`${f.provider}: ${f.shape === "text" ? "text deltas" : "tool-call argument deltas"}`, f.rawCpuMs, f.pithCpuMs, f.ratio, f.overheadUsPerDelta, f.rawWallMs, f.pithWallMs]),
    ]),
  );
  const worst = Math.max(...figures.map((f) => f.ratio));
  log(`worst ratio ${worst} (target: within 1.1 of the raw stream): ${worst <= 1.1 ? "met" : "MISSED"}`);
  return figures;
}
