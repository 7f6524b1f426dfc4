// MCP bench (`npm run bench -- mcp`): what an MCP server costs a session, through the real daemon
// (`pith --mode rpc`) and the fake Messages API, with the tests' servers (test/support/mcp-server.mjs
// over stdio, mcp-http-server.ts over streamable HTTP, in a process of its own: mcp-http-child.ts)
// configured in the user's settings.
//  - One tool call: the model reads the same small file with the built-in `read` and with the
//    servers' `read_file` (mcp__stdio__read_file, mcp__http__read_file), calls interleaved. The
//    tool's span is the time between its tool_execution_start and tool_execution_end events as they
//    reach the client; the run is prompt → agent_end (two model requests around the call). Medians;
//    the MCP figures also as "added" (minus the built-in) and as a ratio to it. That daemon's home
//    (its sessions) is on tmpfs where there is one (/dev/shm): the result's durable write (an fsync,
//    about 20 ms on this machine's disk, inside every span alike) would otherwise bury the difference.
//  - A session's start: createSession → its first model request answered (a one-text reply's
//    agent_end), with 0, 1 and 5 stdio servers in the settings; the first model request waits for
//    servers still connecting, so this is what they make the user wait. Each session is closed
//    (its servers stopped) before the next opens. Medians, and the ratio to 0 servers.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { asEvent, Cleanup, FLOW_SETTINGS, startRpcDaemon, writeSettings, type RpcDaemon } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { tempDir } from "../test/support/tmp.js";
import { median, round, table } from "./util.js";

const SERVER = fileURLToPath(new URL("../test/support/mcp-server.mjs", import.meta.url));
const stdioServer = () => ({ command: process.execPath, args: [SERVER] });
const SERVER_COUNTS = [0, 1, 5] as const;

interface Variant {
  label: string;
  tool: string;
}
const VARIANTS: Variant[] = [
  { label: "built-in read", tool: "read" },
  { label: "MCP stdio read_file", tool: "mcp__stdio__read_file" },
  { label: "MCP HTTP read_file", tool: "mcp__http__read_file" },
];

/** When each tool call's start and end events reached the client (performance.now()). */
function eventClock(d: RpcDaemon): Map<string, { start?: number; end?: number }> {
  const seen = new Map<string, { start?: number; end?: number }>();
  d.peer.transport.onMessage((text) => {
    if (!text.includes('"tool_execution_')) return;
    const at = performance.now();
    const msg = JSON.parse(text) as { method?: string; params?: { toolCallId?: string } };
    const id = msg.params?.toolCallId;
    if (id === undefined) return;
    const times = seen.get(id) ?? {};
    if (msg.method === "tool_execution_start") times.start = at;
    else if (msg.method === "tool_execution_end") times.end = at;
    seen.set(id, times);
  });
  return seen;
}

/** One run in which the model calls `tool` once: the tool's span and the run's length, in ms. */
async function toolRun(d: RpcDaemon, fake: FakeAnthropic, clock: ReturnType<typeof eventClock>, sessionId: string, tool: string, path: string, marker: string) {
  fake.enqueue(toolUseReply(tool, { path }), textReply("done"));
  const from = d.peer.mark();
  const t0 = performance.now();
  const { runId } = await d.peer.request("prompt", { sessionId, text: `read it with ${tool}` });
  const events = await d.peer.runEvents(sessionId, runId, from, 60_000);
  const runMs = performance.now() - t0;
  const end = asEvent(events.find((e) => e.type === "tool_execution_end"), "tool_execution_end");
  const text = JSON.stringify(end.result.content);
  if (end.isError || end.toolName !== tool || !text.includes(marker)) throw new Error(`${tool}: the call did not read the file: ${text.slice(0, 300)}`);
  const times = clock.get(end.toolCallId);
  if (times?.start === undefined || times.end === undefined) throw new Error(`${tool}: no start or end event seen`);
  return { toolMs: times.end - times.start, runMs };
}

/** The HTTP server runs in a process of its own, not beside the fake Messages API in this one. */
async function startHttpServer(hooks: Cleanup): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("mcp-http-child.ts", import.meta.url))], { stdio: ["ignore", "pipe", "inherit"] });
  hooks.after(() => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM"))));
  return new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the MCP HTTP server exited (${code})`)));
    child.stdout.once("data", (d) => resolve(String(d).trim()));
  });
}

/** A directory on tmpfs if the machine has one, removed at the end. */
function memoryDir(hooks: Cleanup): { dir: string; tmpfs: boolean } {
  const tmpfs = existsSync("/dev/shm");
  const dir = mkdtempSync(join(tmpfs ? "/dev/shm" : tmpdir(), "pith-bench-mcp-"));
  hooks.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, tmpfs };
}

async function callLatency(hooks: Cleanup, fake: FakeAnthropic, calls: number, warmups: number) {
  const httpUrl = await startHttpServer(hooks);
  const { dir: home, tmpfs } = memoryDir(hooks);
  writeSettings(home, { ...FLOW_SETTINGS, mcpServers: { stdio: stdioServer(), http: { url: httpUrl } } });
  const cwd = tempDir(hooks);
  const path = join(cwd, "small.txt");
  const marker = "the small file's last line";
  writeFileSync(path, Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a small file read by every tool`).join("\n") + `\n${marker}\n`);
  const d = startRpcDaemon(hooks, { home, fake, cwd });
  const clock = eventClock(d);
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd });
  const ms = new Map(VARIANTS.map((v) => [v.tool, { tool: [] as number[], run: [] as number[] }]));
  // warm-up calls (first use of a code path, first request of a connection), then interleaved
  for (let i = -warmups; i < calls; i++) {
    for (const v of VARIANTS) {
      const r = await toolRun(d, fake, clock, sessionId, v.tool, path, marker);
      if (i < 0) continue;
      ms.get(v.tool)!.tool.push(r.toolMs);
      ms.get(v.tool)!.run.push(r.runMs);
    }
  }
  d.endStdin();
  await d.waitExit();
  return { tmpfs, variants: VARIANTS.map((v) => ({ ...v, toolMs: median(ms.get(v.tool)!.tool), runMs: median(ms.get(v.tool)!.run) })) };
}

async function sessionStart(hooks: Cleanup, fake: FakeAnthropic, starts: number, warmups: number) {
  const daemons = await Promise.all(
    SERVER_COUNTS.map(async (n) => {
      const home = tempDir(hooks);
      const mcpServers = Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i + 1}`, stdioServer()]));
      writeSettings(home, { ...FLOW_SETTINGS, ...(n > 0 ? { mcpServers } : {}) });
      const cwd = tempDir(hooks);
      const d = startRpcDaemon(hooks, { home, fake, cwd });
      await d.peer.initialize();
      return { n, d, cwd, ms: [] as number[] };
    }),
  );
  for (let i = -warmups; i < starts; i++) {
    for (const s of daemons) {
      fake.enqueue(textReply("ok"));
      const asked = fake.requests.length;
      const from = s.d.peer.mark();
      const t0 = performance.now();
      const { sessionId } = await s.d.peer.request("createSession", { cwd: s.cwd });
      const { runId } = await s.d.peer.request("prompt", { sessionId, text: "hello" });
      await s.d.peer.runEvents(sessionId, runId, from, 60_000);
      const took = performance.now() - t0;
      const tools: { name: string }[] = fake.requests[asked]?.body.tools ?? [];
      const fromServers = new Set(tools.filter((t) => t.name.startsWith("mcp__")).map((t) => t.name.split("__")[1]));
      if (fromServers.size !== s.n) throw new Error(`${s.n} servers configured, the first request had tools of ${fromServers.size}`);
      await s.d.peer.request("closeSession", { sessionId });
      if (i >= 0) s.ms.push(took);
    }
  }
  for (const s of daemons) {
    s.d.endStdin();
    await s.d.waitExit();
  }
  return daemons.map((s) => ({ servers: s.n, ms: median(s.ms) }));
}

/** `warmups` (default 1): calls and session starts done first and not counted. */
export async function runMcpBench(opts: { calls?: number; starts?: number; warmups?: number } = {}) {
  const calls = opts.calls ?? Number(process.env.BENCH_MCP_CALLS ?? 30);
  const starts = opts.starts ?? Number(process.env.BENCH_MCP_STARTS ?? 10);
  const warmups = opts.warmups ?? 1;
  const hooks = new Cleanup();
  try {
    const fake = await startFakeAnthropic();
    hooks.after(() => fake.close());
    const { tmpfs, variants: latency } = await callLatency(hooks, fake, calls, warmups);
    const builtin = latency[0];
    const where = tmpfs ? "sessions on tmpfs" : "sessions on disk (no /dev/shm)";
    console.log(`\none tool call reading a small file, median of ${calls}, ${where} (tool: tool_execution_start → end at the client; run: prompt → agent_end):`);
    console.log(
      table([
        ["tool", "tool ms", "added ms", "× built-in", "run ms", "added ms", "× built-in"],
        ...latency.map((v) => [
          v.label,
          round(v.toolMs, 2),
          v === builtin ? "" : round(v.toolMs - builtin.toolMs, 2),
          v === builtin ? "" : round(v.toolMs / builtin.toolMs, 1),
          round(v.runMs, 2),
          v === builtin ? "" : round(v.runMs - builtin.runMs, 2),
          v === builtin ? "" : round(v.runMs / builtin.runMs, 2),
        ]),
      ]),
    );
    const start = await sessionStart(hooks, fake, starts, warmups);
    const none = start[0].ms;
    console.log(`\na session's start, createSession → first model request answered, median of ${starts}:`);
    console.log(table([["stdio servers", "ms", "× 0 servers"], ...start.map((s) => [s.servers, round(s.ms, 1), round(s.ms / none, 2)])]));
    const result = {
      bench: "mcp",
      calls,
      starts,
      tmpfs,
      toolCall: Object.fromEntries(latency.map((v) => [v.label, { toolMs: round(v.toolMs, 3), runMs: round(v.runMs, 2), toolRatio: round(v.toolMs / builtin.toolMs, 2), runRatio: round(v.runMs / builtin.runMs, 3) }])),
      sessionStart: Object.fromEntries(start.map((s) => [String(s.servers), { ms: round(s.ms, 1), ratio: round(s.ms / none, 2) }])),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
  }
}
