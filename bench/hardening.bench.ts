// Hardening bench: what the trust boundary costs and how fast it acts.
// - fsync per prompt: a user message appended with and without fsync (the added cost of
//   "acknowledged means durable"), and prompt -> runId round trips through the daemon beside
//   getState ones (the same daemon, the same pipe);
// - the sandbox: a `true` command through the bash tool, sandboxed vs not (ratio);
// - tool processes after kill -9 of the daemon: how long until none is left, for a sandboxed
//   command, an unsandboxed one (the reaper) and the user's own bash;
// - hostile patterns: another session's getState round trips (p50 / p99) while a backtracking
//   grep runs in the JavaScript engine's worker, beside the same daemon idle; abort -> the tool's
//   end; ripgrep and find on the same hostile input.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MethodName, ParamsOf } from "../protocol/index.js";
import { SessionFile } from "../src/session/index.js";
import { bashTool } from "../src/tools/bash.js";
import { DEFAULT_LIMITS, sandboxAvailable } from "../src/tools/sandbox.js";
import { asEvent, FLOW_SETTINGS, poll, processWithArg, startRpcDaemon, writeSettings, type RpcDaemon } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { median, round, table } from "./util.js";

/** p50 and p99 of n getState round trips. */
async function getStateTimes(d: RpcDaemon, sessionId: string, n: number): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await d.peer.request("getState", { sessionId });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n / 2)], p99: ms[Math.floor(n * 0.99)] };
}

interface HostileFigures {
  idle: { p50: number; p99: number };
  duringJsGrep: { p50: number; p99: number };
  abortToToolEndMs: number;
  ripgrepMs: number;
  findMs: number;
}

/** Another session's getState while session A's model runs a backtracking grep (JavaScript engine), then abort. */
async function hostile(fake: FakeAnthropic): Promise<HostileFigures> {
  const hooks = new Hooks();
  const home = scratch("pith-bench-home-");
  const cwd = scratch("pith-bench-cwd-");
  writeSettings(home, FLOW_SETTINGS);
  writeFileSync(join(cwd, "victim.txt"), `${"a".repeat(40)}!\n`.repeat(20_000));
  for (let i = 0; i < 500; i++) writeFileSync(join(cwd, `${"a".repeat(60)}${i}`), "");
  const run = async (env: Record<string, string>, fn: (d: RpcDaemon, a: string, b: string) => Promise<void>) => {
    const d = startRpcDaemon(hooks, { home, fake, cwd, env });
    await d.peer.initialize();
    const a = (await d.peer.request("createSession", { cwd })).sessionId;
    const b = (await d.peer.request("createSession", { cwd })).sessionId;
    await fn(d, a, b);
    d.endStdin();
    await d.waitExit();
  };
  const toolRun = async (d: RpcDaemon, sessionId: string, tool: string, args: object) => {
    fake.enqueue(toolUseReply(tool, args), textReply("done"));
    const from = d.peer.mark();
    const t0 = performance.now();
    await d.peer.request("prompt", { sessionId, text: tool });
    const end = asEvent(await d.peer.waitEvent((e) => e.sessionId === sessionId && e.type === "tool_execution_end", "tool end", from, 120_000), "tool_execution_end");
    const ms = performance.now() - t0;
    await d.peer.runEvents(sessionId, end.runId, from, 120_000);
    return ms;
  };
  const figures = {} as HostileFigures;
  await run({ PITH_GREP_ENGINE: "js" }, async (d, a, b) => {
    figures.idle = await getStateTimes(d, b, 1000);
    // aborted mid-tool: the run asks the model nothing after the tool call
    fake.enqueue(toolUseReply("grep", { pattern: "^(a+)+$", path: "victim.txt" }));
    const from = d.peer.mark();
    await d.peer.request("prompt", { sessionId: a, text: "grep" });
    await d.peer.waitEvent((e) => e.sessionId === a && e.type === "tool_execution_start", "grep start", from);
    figures.duringJsGrep = await getStateTimes(d, b, 1000);
    const t0 = performance.now();
    await d.peer.request("abort", { sessionId: a });
    await d.peer.waitEvent((e) => e.sessionId === a && e.type === "tool_execution_end", "grep end", from);
    figures.abortToToolEndMs = performance.now() - t0;
    await d.peer.waitEvent((e) => e.sessionId === a && e.type === "agent_end", "agent_end", from);
  });
  await run({}, async (d, a) => {
    figures.ripgrepMs = await toolRun(d, a, "grep", { pattern: "^(a+)+$", path: "victim.txt" });
    figures.findMs = await toolRun(d, a, "find", { pattern: `${"*a".repeat(11)}*b` });
  });
  await hooks.run();
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  return figures;
}

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** startRpcDaemon wants a test's after() hook; the bench runs them itself. */
class Hooks {
  private fns: (() => unknown)[] = [];
  after(fn: () => unknown): void {
    this.fns.push(fn);
  }
  async run(): Promise<void> {
    for (const fn of this.fns.splice(0).reverse()) await fn();
  }
}

function scratch(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function appendMicros(sync: boolean, n = 400): number {
  const dir = scratch("pith-bench-fsync-");
  const s = SessionFile.create({ cwd: "/bench", sessionsDir: dir });
  const us: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    s.appendMessage({ role: "user", content: `prompt number ${i}: ${"words ".repeat(30)}`, timestamp: Date.now() }, { sync });
    us.push((performance.now() - t0) * 1000);
  }
  s.close();
  rmSync(dir, { recursive: true, force: true });
  return median(us);
}

async function roundTrip<M extends MethodName>(d: RpcDaemon, method: M, params: () => ParamsOf<M>, n: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await d.peer.request(method, params());
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

async function promptLatency(fake: FakeAnthropic): Promise<{ prompt: number; getState: number }> {
  const hooks = new Hooks();
  const home = scratch("pith-bench-home-");
  const cwd = scratch("pith-bench-cwd-");
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(hooks, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const n = 60;
  fake.setDefault(textReply("ok"));
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const from = d.peer.mark();
    const t0 = performance.now();
    const { runId } = await d.peer.request("prompt", { sessionId: s.sessionId, text: `question ${i}` });
    ms.push(performance.now() - t0);
    await d.peer.runEvents(s.sessionId, runId, from);
  }
  const getState = await roundTrip(d, "getState", () => ({ sessionId: s.sessionId }), 200);
  d.endStdin();
  await d.waitExit();
  await hooks.run();
  return { prompt: median(ms), getState };
}

async function bashMillis(sandboxed: boolean, n = 30): Promise<number> {
  const cwd = scratch("pith-bench-bash-");
  const ctx = { cwd, signal: new AbortController().signal, ...(sandboxed ? { sandbox: { mode: "workspace-write" as const, network: "off" as const, writableRoots: [], limits: DEFAULT_LIMITS } } : {}) };
  await bashTool.execute({ command: "true" }, ctx);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await bashTool.execute({ command: "true" }, ctx);
    ms.push(performance.now() - t0);
  }
  rmSync(cwd, { recursive: true, force: true });
  return median(ms);
}

type Kind = "sandboxed" | "unsandboxed" | "user bash";

/** ms from kill -9 of the daemon until no process of the command is left. */
async function survival(fake: FakeAnthropic, kind: Kind, run: number): Promise<number> {
  const hooks = new Hooks();
  const home = scratch("pith-bench-home-");
  const cwd = scratch("pith-bench-cwd-");
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(hooks, { home, fake, cwd, args: kind === "sandboxed" ? ["--sandbox", "workspace-write"] : ["--sandbox", "off"] });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const marker = `sleep 1${run}${kind.length}.${process.pid % 1000}`;
  if (kind === "user bash") void d.peer.call("bash", { sessionId: s.sessionId, command: `${marker} & ${marker}` }, 60_000);
  else {
    fake.enqueue(toolUseReply("bash", { command: `${marker} & ${marker}` }));
    void d.peer.call("prompt", { sessionId: s.sessionId, text: "sleep" });
  }
  await poll(() => processWithArg(marker), "the command to start");
  const t0 = performance.now();
  d.proc.kill("SIGKILL");
  for (;;) {
    if (processWithArg(marker) === undefined) break;
    if (performance.now() - t0 > 10_000) throw new Error(`${kind}: the command survived the daemon by 10 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - t0;
  await d.exited;
  await hooks.run();
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  return ms;
}

export async function runHardeningBench(): Promise<void> {
  const fake = await startFakeAnthropic();
  try {
    const noSync = appendMicros(false);
    const withSync = appendMicros(true);
    const { prompt, getState } = await promptLatency(fake);
    const sandbox = sandboxAvailable();
    const plain = await bashMillis(false);
    const boxed = sandbox.ok ? await bashMillis(true) : NaN;
    const kinds: Kind[] = sandbox.ok ? ["sandboxed", "unsandboxed", "user bash"] : ["unsandboxed", "user bash"];
    const hostileFigures = await hostile(fake);
    const survivals: Record<string, number[]> = {};
    for (const kind of kinds) {
      survivals[kind] = [];
      for (let i = 0; i < RUNS; i++) survivals[kind].push(await survival(fake, kind, i));
    }
    console.log("fsync per prompt (a user message appended to a session file, median of 400):");
    console.log(table([["append", "µs"], ["no fsync", round(noSync)], ["with fsync", round(withSync)], ["added per prompt", round(withSync - noSync)]]));
    console.log(`\nthrough the daemon (median): prompt -> runId ${round(prompt, 2)} ms, getState ${round(getState, 2)} ms (${round(prompt / getState, 1)}x)`);
    console.log(`\nbash \`true\` (median of 30): unsandboxed ${round(plain, 2)} ms, sandboxed ${sandbox.ok ? `${round(boxed, 2)} ms (${round(boxed / plain, 2)}x)` : `n/a (${sandbox.reason})`}`);
    console.log(`\ntool processes left after kill -9 of the daemon (ms until none, ${RUNS} runs):`);
    console.log(table([["command", "median", "max"], ...kinds.map((k) => [k, round(median(survivals[k])), round(Math.max(...survivals[k]))])]));
    const h = hostileFigures;
    console.log(`\nhostile patterns (another session's getState, 1,000 round trips):`);
    console.log(
      table([
        ["", "p50 ms", "p99 ms"],
        ["idle", round(h.idle.p50, 2), round(h.idle.p99, 2)],
        ["during a backtracking grep (JS worker)", round(h.duringJsGrep.p50, 2), round(h.duringJsGrep.p99, 2)],
      ]),
    );
    console.log(`abort -> the grep's end: ${round(h.abortToToolEndMs, 1)} ms; ripgrep on the same pattern over 20,000 hostile lines: ${round(h.ripgrepMs, 1)} ms (prompt -> tool end); find *a*a…b over 500 long names: ${round(h.findMs, 1)} ms`);
    console.log(
      JSON.stringify({
        hostile: {
          getStateIdle: { p50: round(h.idle.p50, 2), p99: round(h.idle.p99, 2) },
          getStateDuringJsGrep: { p50: round(h.duringJsGrep.p50, 2), p99: round(h.duringJsGrep.p99, 2) },
          p99Ratio: round(h.duringJsGrep.p99 / h.idle.p99, 2),
          abortToToolEndMs: round(h.abortToToolEndMs, 1),
          ripgrepMs: round(h.ripgrepMs, 1),
          findMs: round(h.findMs, 1),
        },
        fsyncAddedMicros: round(withSync - noSync),
        appendMicros: { noSync: round(noSync), sync: round(withSync) },
        promptAckMs: round(prompt, 2),
        getStateMs: round(getState, 2),
        bashMs: { unsandboxed: round(plain, 2), sandboxed: round(boxed, 2) },
        survivalMs: Object.fromEntries(kinds.map((k) => [k, { median: round(median(survivals[k])), max: round(Math.max(...survivals[k])) }])),
      }),
    );
  } finally {
    await fake.close();
  }
}
