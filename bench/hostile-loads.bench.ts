// Hostile loads: does the daemon keep answering another session while one session's model (or
// another local user) does its worst? For each load, session B's getState round trips are timed
// from the moment the load starts until it ends, beside the same daemon idle (the baseline, in
// the same run). Target: p99 under 50 ms during every load.
//   fork storm        the model's bash starts processes until the sandbox's limit refuses one
//   300 MB output     the model's bash prints 300 MB (cut for the model, spilled, capped)
//   100 MB line       the model reads a file holding one 100 MB line of text
//   300k-file find    the model's find walks 300,000 files
//   1,000 idle sockets another local user opens TCP connections to `pith serve` and says nothing
//   endless reply      a hostile endpoint streams one session's reply for ever (cut at maxReplyMB),
//                      then the same for that session's next prompt, automatic compaction on
// Beside each: the daemon's peak RSS during the load (VmRSS, sampled every 20 ms).
// BENCH_LOADS=endless,sockets (words of the load names) runs only those loads.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asEvent, FLOW_SETTINGS, startServeDaemon, writeSettings, type RpcPeer, type ServeDaemon } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { endlessReplyLoad, HOSTILE_PROVIDER, peakRss, startEndlessApi } from "./endless-reply-load.js";
import { round, table } from "./util.js";

interface Times {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function summarize(ms: number[]): Times {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

/** getState round trips on `sessionId` until `until` settles (at least `min` of them). */
async function sampleWhile(peer: RpcPeer, sessionId: string, until: Promise<unknown>, min = 50): Promise<Times> {
  let done = false;
  void until.finally(() => (done = true));
  const ms: number[] = [];
  while (!done || ms.length < min) {
    const t0 = performance.now();
    await peer.request("getState", { sessionId });
    ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

class Hooks {
  private fns: (() => unknown)[] = [];
  after(fn: () => unknown): void {
    this.fns.push(fn);
  }
  async run(): Promise<void> {
    for (const fn of this.fns.splice(0).reverse()) await fn();
  }
}

/** Whether BENCH_LOADS (absent: every load) selects the load named `name`. */
function selected(name: string): boolean {
  const words = (process.env.BENCH_LOADS ?? "").split(",").filter(Boolean);
  return words.length === 0 || words.some((w) => name.includes(w));
}

interface Rig {
  d: ServeDaemon;
  peer: RpcPeer;
  cwd: string;
  a: string;
  b: string;
}

/** One tool call by session A's model; resolves when the tool has ended (and says how). */
async function toolLoad(rig: Rig, fake: FakeAnthropic, tool: string, args: object): Promise<{ times: Times; rss: number; isError: boolean; text: string }> {
  fake.enqueue(toolUseReply(tool, args), textReply("done"));
  const from = rig.peer.mark();
  await rig.peer.request("prompt", { sessionId: rig.a, text: tool });
  await rig.peer.waitEvent((e) => e.sessionId === rig.a && e.type === "tool_execution_start", "tool start", from, 60_000);
  const end = rig.peer.waitEvent((e) => e.sessionId === rig.a && e.type === "tool_execution_end", "tool end", from, 600_000);
  const [times, rss] = await Promise.all([sampleWhile(rig.peer, rig.b, end), peakRss(rig.d.pid, end)]);
  const ev = asEvent(await end, "tool_execution_end");
  await rig.peer.waitEvent((e) => e.sessionId === rig.a && e.type === "agent_end", "agent_end", from, 60_000);
  const text = JSON.stringify(ev.result ?? "").slice(0, 200);
  return { times, rss, isError: ev.isError === true, text };
}

function writeLongLine(file: string, bytes: number): void {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(1 << 20, "x");
  for (let left = bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  writeSync(fd, "\n");
  closeSync(fd);
}

function makeTree(root: string, dirs: number, perDir: number): void {
  const script = `for d in $(seq 0 ${dirs - 1}); do mkdir -p "t/d$d" && (cd "t/d$d" && touch $(seq -f 'f%g.txt' 0 ${perDir - 1})); done`;
  const r = spawnSync("bash", ["-c", script], { cwd: root, stdio: "ignore" });
  if (r.status !== 0) throw new Error("could not make the tree");
}

async function idleSockets(rig: Rig, count: number): Promise<{ times: Times; rss: number; open: number }> {
  const sockets: Socket[] = [];
  await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<void>((resolve) => {
        const s = connect(rig.d.port, "127.0.0.1", () => resolve());
        s.on("error", () => resolve());
        s.on("close", () => resolve());
        sockets.push(s);
      }),
    ),
  );
  // the daemon closes the oldest past its caps: let those closes arrive before counting
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const open = sockets.filter((s) => !s.destroyed && s.readyState === "open").length;
  const ms: number[] = [];
  const sampled = (async () => {
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      await rig.peer.request("getState", { sessionId: rig.b });
      ms.push(performance.now() - t0);
    }
  })();
  const rss = await peakRss(rig.d.pid, sampled);
  for (const s of sockets) s.destroy();
  return { times: summarize(ms), rss, open };
}

export async function runHostileLoadsBench(): Promise<void> {
  const fake = await startFakeAnthropic();
  const api = await startEndlessApi();
  const hooks = new Hooks();
  const home = mkdtempSync(join(tmpdir(), "pith-bench-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "pith-bench-cwd-"));
  try {
    // the endless endpoint is one more provider; maxReplyMB is left at its default. Automatic
    // compaction stays on: the cut reply counts in the context as its bounded view
    // (messages/cut-reply.ts), so it does not make the daemon compact 32 MiB afterwards
    writeSettings(home, {
      ...FLOW_SETTINGS,
      providers: { [HOSTILE_PROVIDER]: { api: "anthropic", baseUrl: api.url, apiKeyEnv: "HOSTILE_KEY" } },
    });
    if (selected("read of a 100 MB line")) writeLongLine(join(cwd, "line.txt"), 100 * 1024 * 1024);
    if (selected("find over 300,000 files")) makeTree(cwd, 300, 1000);
    const d = await startServeDaemon(hooks, { home, fake, cwd, stdio: true, env: { HOSTILE_KEY: "hostile-key" } });
    const peer = d.peer!;
    await peer.initialize();
    const a = (await peer.request("createSession", { cwd })).sessionId;
    const b = (await peer.request("createSession", { cwd })).sessionId;
    const rig: Rig = { d, peer, cwd, a, b };
    let idleRss = NaN;
    const idle = await (async () => {
      const sampled = sampleWhile(peer, b, Promise.resolve(), 1000);
      idleRss = await peakRss(d.pid, sampled);
      return sampled;
    })();
    const rows: [string, Times, number, string][] = [];
    const tool = async (name: string, toolName: string, args: object, outcome: (r: Awaited<ReturnType<typeof toolLoad>>) => string) => {
      if (!selected(name)) return;
      const r = await toolLoad(rig, fake, toolName, args);
      rows.push([name, r.times, r.rss, outcome(r)]);
    };
    await tool("fork storm (1,500 sleeps)", "bash", { command: "for i in $(seq 1 1500); do sleep 3 & done; wait", timeout: 60 }, (r) => (r.isError ? "refused" : "ran"));
    await tool("300 MB of output", "bash", { command: "yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -c 300000000", timeout: 120 }, (r) =>
      r.isError ? "cut, error" : "cut",
    );
    await tool("read of a 100 MB line", "read", { path: "line.txt" }, (r) => (r.isError ? "error" : "shown in part"));
    await tool("find over 300,000 files", "find", { pattern: "**/*.txt" }, (r) => (r.isError ? "error" : "listed in part"));
    if (selected("1,000 idle sockets")) {
      const sockets = await idleSockets(rig, 1000);
      rows.push(["1,000 idle sockets", sockets.times, sockets.rss, `${sockets.open} held open`]);
    }
    if (selected("endless reply (hostile endpoint)")) {
      const e = (await peer.request("createSession", { cwd, model: `${HOSTILE_PROVIDER}/claude-sonnet-4-5` })).sessionId;
      const load = await endlessReplyLoad(d, peer, api, e, (until) => sampleWhile(peer, b, until));
      rows.push(["endless reply (hostile endpoint)", load.times, load.rss, load.outcome]);
      // the next prompt of that session: its context holds the cut reply (as its bounded view), and
      // automatic compaction may ask the same endpoint for a summary (cut in its turn)
      const next = await endlessReplyLoad(d, peer, api, e, (until) => sampleWhile(peer, b, until));
      rows.push(["endless reply, the next prompt", next.times, next.rss, next.outcome]);
    }
    console.log("another session's getState while one hostile load runs (ms), and the daemon's peak RSS (MiB):");
    console.log(
      table([
        ["load", "n", "p50", "p99", "max", "p99 / idle p99", "RSS MiB", "outcome"],
        ["idle (baseline)", idle.n, round(idle.p50, 2), round(idle.p99, 2), round(idle.max, 2), 1, round(idleRss), ""],
        ...rows.map(([name, t, rss, outcome]) => [name, t.n, round(t.p50, 2), round(t.p99, 2), round(t.max, 2), round(t.p99 / idle.p99, 1), round(rss), outcome]),
      ]),
    );
    console.log(
      JSON.stringify({
        hostileLoads: {
          idle: { p50: round(idle.p50, 2), p99: round(idle.p99, 2), rssMB: round(idleRss) },
          ...Object.fromEntries(rows.map(([name, t, rss]) => [name, { n: t.n, p50: round(t.p50, 2), p99: round(t.p99, 2), max: round(t.max, 2), rssMB: round(rss) }])),
        },
      }),
    );
  } finally {
    await hooks.run();
    await fake.close();
    await api.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}
