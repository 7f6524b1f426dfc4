// ACP bench (`npm run bench -- acp`): what the ACP front costs beside pith's own protocol.
// - The same fake-model turn over `pith acp` (through the ACP SDK's client) and over
//   `pith --mode rpc` (pith's own stdio JSON-RPC), same fake Messages API reply, same machine,
//   same run, turns alternating: the time from sending the prompt to the first line with reply
//   text and to the turn's last line, the daemon's CPU, and what went over the wire, on a short
//   reply, a long reply sent in one burst, a reply paced as a model streams it, and a turn with
//   tool calls. One more streamed chunk: the daemon's CPU per delta of the paced reply beyond the
//   short one, and the burst's turn time per delta beyond the short one. Ratios ACP ÷ pith's own
//   protocol.
// - A turn that writes a 1 MB file: the largest line each front writes, and what it is. The
//   target for ACP: no line over 64 KiB unless one content block itself is (the write's diff is).
// - `session/load` of a large session (BENCH_MB, default 100; the whole active branch is replayed
//   as updates), against a plain readFileSync + split + JSON.parse of the same file.
// Timed at the daemon's stdout (acp-fronts.ts): no client library's parsing is in the figures.
import * as acp from "@agentclientprotocol/sdk";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startAcp } from "../test/support/acp-daemon.js";
import { Cleanup } from "../test/support/daemon-client.js";
import { startFakeAnthropic, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { tempDir } from "../test/support/tmp.js";
import { acpFront, rpcFront, type Front } from "./acp-fronts.js";
import { BURST, bigWriteScript, describe, largestLines, medians, PACED, runShape, SHAPES, SHORT, sourceText, type LargestLines, type TurnFigures } from "./acp-turns.js";
import { writeShape } from "./shapes.js";
import { round, table } from "./util.js";

const LINE_LIMIT = 64 * 1024;

/** Each shape `runs` times over both fronts, alternating, after one warm-up turn each. */
async function compareTurns(fake: FakeAnthropic, fronts: Front[], runs: number): Promise<Map<string, TurnFigures[]>> {
  const enqueue = fake.enqueue.bind(fake);
  for (const f of fronts) await runShape(f, SHAPES[0], enqueue, "warm-up");
  const out = new Map<string, TurnFigures[]>();
  for (const shape of SHAPES) {
    const per: TurnFigures[][] = fronts.map(() => []);
    for (let i = 0; i < runs; i++) for (const [k, f] of fronts.entries()) per[k].push(await runShape(f, shape, enqueue, String(i)));
    out.set(shape.name, per.map(medians));
  }
  return out;
}

async function bigWrite(fake: FakeAnthropic, front: Front, content: string): Promise<LargestLines> {
  fake.enqueue(...bigWriteScript(content));
  const turn = await front.turn("Write big.ts.");
  const written = readFileSync(join(front.cwd, "big.ts"), "utf8");
  if (written !== content) throw new Error(`${front.name}: big.ts was not written whole`);
  return largestLines(turn.lines, LINE_LIMIT);
}

async function loadLarge(fake: FakeAnthropic, hooks: Cleanup, mb: number): Promise<{ loadMs: number; plainMs: number; updates: number; entries: number }> {
  const home = tempDir(hooks);
  const dir = join(home, "sessions", "--bench--");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "large.jsonl");
  const info = writeShape(file, "compacted-often", Math.round(mb * 1e6));
  const t1 = performance.now();
  const lines = readFileSync(file, "utf8").split("\n");
  for (const line of lines) if (line) JSON.parse(line);
  const plainMs = performance.now() - t1;
  const header = JSON.parse(lines[0]) as { id: string; cwd: string };
  const a = await startAcp(hooks, { home, fake, clientCapabilities: { session: { compaction: {} } } });
  const from = a.updates.length;
  const t0 = performance.now();
  await a.request(acp.methods.agent.session.load, { sessionId: header.id, cwd: header.cwd, mcpServers: [] });
  const loadMs = performance.now() - t0;
  const updates = a.updates.length - from;
  await a.end();
  return { loadMs, plainMs, updates, entries: info.entries };
}

export async function runAcpBench(runs = Number(process.env.BENCH_RUNS ?? 20), mb = Number(process.env.BENCH_MB ?? 100)) {
  const fake = await startFakeAnthropic();
  const hooks = new Cleanup();
  try {
    const fronts = [await rpcFront(fake, hooks), await acpFront(fake, hooks)];
    const [rpcName, acpName] = fronts.map((f) => f.name);
    const turns = await compareTurns(fake, fronts, runs);
    const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : 0);
    const rows: (string | number)[][] = [
      [`median of ${runs}`, "first text ms", "", "", "turn ms", "", "", "CPU ms (mean)", "", "lines", "", "KB", ""],
      ["", "rpc", "acp", "acp÷rpc", "rpc", "acp", "acp÷rpc", "rpc", "acp", "rpc", "acp", "rpc", "acp"],
    ];
    const figures: Record<string, unknown> = {};
    for (const [name, [r, a]] of turns) {
      rows.push([name, r.firstTextMs, a.firstTextMs, ratio(a.firstTextMs, r.firstTextMs), r.turnMs, a.turnMs, ratio(a.turnMs, r.turnMs), r.cpuMs, a.cpuMs, r.lines, a.lines, round(r.bytes / 1024), round(a.bytes / 1024)]);
      figures[name] = { rpc: r, acp: a, firstTextRatio: ratio(a.firstTextMs, r.firstTextMs), turnRatio: ratio(a.turnMs, r.turnMs) };
    }
    console.log(`the same fake-model turn: prompt → first reply text, → the turn's last line, the daemon's CPU; ${rpcName} (rpc) against ${acpName} (acp)`);
    console.log(table(rows));
    const [short, burst, paced] = [SHORT, BURST, PACED].map((i) => turns.get(SHAPES[i].name)!);
    // the cost of one more chunk: a long reply's figure beyond the short reply's, per extra delta
    const perDelta = (long: TurnFigures[], shape: number, figure: (f: TurnFigures) => number) =>
      [0, 1].map((k) => round(((figure(long[k]) - figure(short[k])) * 1000) / (SHAPES[shape].deltas - SHAPES[SHORT].deltas), 1));
    const [cpuRpc, cpuAcp] = perDelta(paced, PACED, (f) => f.cpuMs);
    const [wallRpc, wallAcp] = perDelta(burst, BURST, (f) => f.turnMs);
    const perChunk = { pacedCpuUs: { rpc: cpuRpc, acp: cpuAcp, ratio: ratio(cpuAcp, cpuRpc) }, burstWallUs: { rpc: wallRpc, acp: wallAcp, ratio: ratio(wallAcp, wallRpc) } };
    console.log(`one more streamed chunk, the daemon's CPU (${SHAPES[PACED].name} beyond the short reply, per delta): rpc ${cpuRpc} µs, acp ${cpuAcp} µs (${perChunk.pacedCpuUs.ratio}x)`);
    console.log(`one more streamed chunk, wall time (${SHAPES[BURST].name}'s turn beyond the short reply's, per delta): rpc ${wallRpc} µs, acp ${wallAcp} µs (${perChunk.burstWallUs.ratio}x); text lines rpc ${burst[0].textLines}, acp ${burst[1].textLines}`);

    const content = sourceText(1_000_000);
    const [bigRpc, bigAcp] = [await bigWrite(fake, fronts[0], content), await bigWrite(fake, fronts[1], content)];
    console.log(`a turn that writes a 1 MB file (${Buffer.byteLength(content).toLocaleString("en")} bytes):`);
    console.log(`  acp: largest line ${describe(bigAcp.largest)}; ${bigAcp.over.length} line(s) over 64 KiB (${bigAcp.over.map((o) => o.what).join(", ")}); largest line without a block over 64 KiB: ${describe(bigAcp.largestWithoutBigBlock)}`);
    console.log(`  rpc: largest line ${describe(bigRpc.largest)}; ${bigRpc.over.length} line(s) over 64 KiB (${bigRpc.over.map((o) => o.what).join(", ")})`);
    for (const f of fronts) await f.end();

    const load = await loadLarge(fake, hooks, mb);
    console.log(`session/load of a ${mb} MB session (${load.entries} entries): ${round(load.loadMs)} ms for ${load.updates} updates; plain parse of the file ${round(load.plainMs)} ms (${round(load.loadMs / load.plainMs, 2)}x)`);
    const result = {
      bench: "acp",
      runs,
      turns: figures,
      perChunk,
      write1MB: { acp: bigAcp, rpc: { largest: bigRpc.largest, over: bigRpc.over.length } },
      load: { mb, ...load, loadMs: round(load.loadMs), plainMs: round(load.plainMs), ratio: round(load.loadMs / load.plainMs, 2) },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
    await fake.close();
  }
}
