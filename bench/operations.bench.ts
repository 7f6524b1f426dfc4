// Operations bench (`npm run bench -- operations`): what answering only once durable costs, per
// front and per store. Every front performs its operations through the host's one operation
// layer, which answers a change only once what it stored is synced (file store) or committed
// (PostgreSQL). Measured: the time from a request to its answer for a session change
// (setPermissionMode / ACP session/set_mode), an exclusive one (setModel / session/set_model) and
// a prompt (JSON-RPC answers once the user message is durable; ACP's session/prompt answers at the
// run's end, a one-line reply), over `pith --mode rpc` and `pith acp`, on the file store and on a
// real PostgreSQL. Two baselines in the same run: the same session change when it stores nothing
// (the front's round trip through the layer), and one durable write of the store by itself (a
// line appended and fsynced; one INSERT committed by a plain pg client). The ratio (operation −
// nothing stored) ÷ one durable write: what answering once durable adds, in durable writes.
import * as acp from "@agentclientprotocol/sdk";
import { appendFileSync, closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { startAcp } from "../test/support/acp-daemon.js";
import { Cleanup, FLOW_SETTINGS, SMALL_MODEL, startRpcDaemon, writeSettings } from "../test/support/daemon-client.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../test/support/fake-anthropic.js";
import { postgresSkip, startPostgres } from "../test/support/postgres.js";
import { tempDir } from "../test/support/tmp.js";
import { median, round, table } from "./util.js";

const OTHER_MODEL = { id: "other-model", contextWindow: 50_000, maxOutputTokens: 4_000 };
const OPS = ["nothing stored", "session change", "exclusive change", "prompt"] as const;
type Op = (typeof OPS)[number];

/**
 * One front's session: how it sends each operation (`i` alternates the value, so each is a
 * change); what it answers may carry `settle`, what must end before the next one (not timed).
 */
interface FrontSession {
  send(op: Op, i: number): Promise<unknown>;
}

type Settle = { settle(): Promise<unknown> };
const settles = (answer: unknown): answer is Settle => typeof answer === "object" && answer !== null && "settle" in answer;

async function timed(session: FrontSession, op: Op, runs: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const answer = await session.send(op, i);
    ms.push(performance.now() - t0);
    if (settles(answer)) await answer.settle();
  }
  return median(ms);
}

function home(hooks: Cleanup): string {
  const dir = tempDir(hooks);
  writeSettings(dir, { ...FLOW_SETTINGS, models: [SMALL_MODEL, OTHER_MODEL], model: SMALL_MODEL.id });
  return dir;
}

async function rpcSession(hooks: Cleanup, fake: FakeAnthropic, args: string[]): Promise<FrontSession> {
  const cwd = tempDir(hooks);
  const d = startRpcDaemon(hooks, { home: home(hooks), fake, cwd, args });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd });
  return {
    send: async (op, i) => {
      if (op === "nothing stored") return d.peer.request("setPermissionMode", { sessionId, mode: "readonly" });
      if (op === "session change") return d.peer.request("setPermissionMode", { sessionId, mode: i % 2 ? "auto" : "readonly" });
      if (op === "exclusive change") return d.peer.request("setModel", { sessionId, model: i % 2 ? SMALL_MODEL.id : OTHER_MODEL.id });
      fake.enqueue(textReply("ok"));
      const from = d.peer.mark();
      const { runId } = await d.peer.request("prompt", { sessionId, text: `prompt ${i}` });
      return { settle: () => d.peer.runEvents(sessionId, runId, from) } satisfies Settle;
    },
  };
}

async function acpSession(hooks: Cleanup, fake: FakeAnthropic, args: string[]): Promise<FrontSession> {
  const cwd = tempDir(hooks);
  const a = await startAcp(hooks, { home: home(hooks), fake, cwd, args });
  await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return {
    send: (op, i) => {
      if (op === "nothing stored") return a.request(acp.methods.agent.session.setMode, { sessionId, modeId: "readonly" });
      if (op === "session change") return a.request(acp.methods.agent.session.setMode, { sessionId, modeId: i % 2 ? "auto" : "readonly" });
      if (op === "exclusive change") return a.request("session/set_model", { sessionId, modelId: i % 2 ? SMALL_MODEL.id : OTHER_MODEL.id });
      fake.enqueue(textReply("ok"));
      return a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `prompt ${i}` }] });
    },
  };
}

/** One line appended and fsynced, as the file store writes an entry. */
function fileBaseline(hooks: Cleanup, runs: number): number {
  const path = join(tempDir(hooks), "baseline.jsonl");
  appendFileSync(path, "");
  const fd = openSync(path, "a");
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    writeSync(fd, `{"type":"custom","i":${i}}\n`);
    fsyncSync(fd);
    ms.push(performance.now() - t0);
  }
  closeSync(fd);
  return median(ms);
}

/** One INSERT committed by a plain pg client, as the PostgreSQL store commits a line. */
async function pgBaseline(url: string, runs: number): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("CREATE TABLE IF NOT EXISTS bench_baseline (i int, line text)");
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await c.query("BEGIN");
      await c.query("INSERT INTO bench_baseline VALUES ($1, $2)", [i, `{"type":"custom","i":${i}}`]);
      await c.query("COMMIT");
      ms.push(performance.now() - t0);
    }
    return median(ms);
  } finally {
    await c.end();
  }
}

export async function runOperationsBench(runs = Number(process.env.BENCH_OPS_RUNS ?? 30)) {
  const hooks = new Cleanup();
  try {
    const fake = await startFakeAnthropic();
    hooks.after(() => fake.close());
    const stores: { name: string; args: string[]; baseline: number }[] = [{ name: "file", args: [], baseline: fileBaseline(hooks, runs) }];
    if (postgresSkip) console.log(`operations on PostgreSQL: skipped (${postgresSkip.split("\n")[0]})`);
    else {
      const server = await startPostgres(hooks);
      stores.push({ name: "PostgreSQL", args: ["--store", server.url], baseline: await pgBaseline(server.url, runs) });
    }
    const rows: (string | number)[][] = [["store", "front", "operation", "median ms", "(ms − nothing stored) ÷ one durable write"]];
    const figures: Record<string, number> = {};
    for (const store of stores) {
      for (const [front, open] of [["JSON-RPC", rpcSession], ["ACP", acpSession]] as const) {
        const session = await open(hooks, fake, store.args);
        let unchanged = 0;
        for (const op of OPS) {
          const ms = await timed(session, op, runs);
          if (op === "nothing stored") unchanged = ms;
          rows.push([store.name, front, op, round(ms, 2), op === "nothing stored" ? "" : round((ms - unchanged) / store.baseline, 1)]);
          figures[`${store.name} ${front} ${op}`] = round(ms, 2);
        }
      }
      rows.push([store.name, "(baseline)", "one durable write", round(store.baseline, 2), ""]);
    }
    console.log(`\nrequest to answer, median of ${runs} (prompt: JSON-RPC answers once the user message is durable, ACP at the run's end):`);
    console.log(table(rows));
    const result = { bench: "operations", runs, baselines: Object.fromEntries(stores.map((s) => [s.name, round(s.baseline, 3)])), figures };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
  }
}
