// ACP bench (`npm run bench -- acp`): what the ACP front costs beside pith's own protocol.
// - Time from sending a prompt to the first streamed text: `session/prompt` → the first
//   agent_message_chunk over `pith acp`, against `prompt` → the first message_update over
//   `pith --mode rpc`, same fake Messages API reply, same machine, same run (a ratio).
// - `session/load` of a large session (BENCH_MB, default 100; the whole active branch is replayed
//   as updates), against a plain readFileSync + split + JSON.parse of the same file.
import * as acp from "@agentclientprotocol/sdk";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startAcp } from "../test/support/acp-daemon.js";
import { Cleanup, FLOW_SETTINGS, SMALL_MODEL, startRpcDaemon, writeSettings } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { tempDir } from "../test/support/tmp.js";
import { writeShape } from "./shapes.js";
import { median, round, table } from "./util.js";

const REPLY = () => textReply("The first words of a reply, then the rest of it. ".repeat(20), { chunkSize: 16 });

async function firstChunkAcp(fake: FakeAnthropic, hooks: Cleanup, runs: number): Promise<number[]> {
  const home = tempDir(hooks);
  const cwd = tempDir(hooks);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  const a = await startAcp(hooks, { home, fake, cwd });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    fake.enqueue(REPLY());
    const from = a.updates.length;
    const t0 = performance.now();
    const done = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: `question ${i}` }] });
    await a.waitUpdate((u) => u.sessionUpdate === "agent_message_chunk", "the first chunk", from);
    out.push(performance.now() - t0);
    await done;
  }
  await a.end();
  return out;
}

async function firstChunkRpc(fake: FakeAnthropic, hooks: Cleanup, runs: number): Promise<number[]> {
  const home = tempDir(hooks);
  const cwd = tempDir(hooks);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  const d = startRpcDaemon(hooks, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    fake.enqueue(REPLY());
    const from = d.peer.mark();
    const t0 = performance.now();
    const { runId } = await d.peer.request("prompt", { sessionId: s.sessionId, text: `question ${i}` });
    await d.peer.waitEvent((e) => e.type === "message_update", "the first delta", from);
    out.push(performance.now() - t0);
    await d.peer.waitEvent((e) => e.type === "agent_end" && e.runId === runId, "the run's end", from);
  }
  d.endStdin();
  await d.waitExit();
  return out;
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
    const rpc = await firstChunkRpc(fake, hooks, runs);
    const viaAcp = await firstChunkAcp(fake, hooks, runs);
    const rpcMs = round(median(rpc), 2);
    const acpMs = round(median(viaAcp), 2);
    console.log(table([["prompt → first text", "median ms", "runs"], ["pith --mode rpc", rpcMs, runs], ["pith acp", acpMs, runs]]));
    console.log(`ACP ÷ pith's own protocol: ${round(acpMs / rpcMs, 2)}x`);
    const load = await loadLarge(fake, hooks, mb);
    console.log(`session/load of a ${mb} MB session (${load.entries} entries): ${round(load.loadMs)} ms for ${load.updates} updates; plain parse of the file ${round(load.plainMs)} ms (${round(load.loadMs / load.plainMs, 2)}x)`);
    const result = { bench: "acp", runs, firstChunk: { rpcMs, acpMs, ratio: round(acpMs / rpcMs, 2) }, load: { mb, ...load, loadMs: round(load.loadMs), plainMs: round(load.plainMs), ratio: round(load.loadMs / load.plainMs, 2) } };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
    await fake.close();
  }
}
