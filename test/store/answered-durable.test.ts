// Answered means durable, from every front: `pith acp --store postgres://…` with the link to
// PostgreSQL slowed (every chunk either way 300 ms late, so a commit reaches the server late and
// its acknowledgment comes back late), killed with SIGKILL the moment an answer arrives. What the answer acknowledged is in the
// database afterwards: the mode (session/set_mode), the model (session/set_config_option and
// session/set_model), the thinking level, automatic compaction, and a prompt's messages. Before
// the operation layer, ACP answered the settings before any commit and lost them all. The same
// changes over JSON-RPC hold too: both fronts perform them through the one operation layer.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import pg from "pg";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { checkDist, FLOW_SETTINGS, SMALL_MODEL, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { startPostgres, postgresSkip, type Postgres } from "../support/postgres.js";
import { slowLink } from "../support/slow-link.js";
import { tempDir } from "../support/tmp.js";

if (postgresSkip) process.stderr.write(`[answered-durable tests] skipped: ${postgresSkip}\n`);

const OTHER_MODEL = { id: "other-model", contextWindow: 50_000, maxOutputTokens: 4_000 };
const DELAY_MS = 300;

/** The session's stored lines, straight from the database. */
async function storedLines(server: Postgres, sessionId: string): Promise<string[]> {
  const c = new pg.Client(server.config);
  await c.connect();
  try {
    const res = await c.query<{ line: string }>("SELECT line FROM entries WHERE session_id = $1 ORDER BY seq", [sessionId]);
    return res.rows.map((r) => r.line);
  } finally {
    await c.end();
  }
}

interface Operation {
  name: string;
  /** sends the request; resolves with its answer */
  send(a: AcpDaemon, sessionId: string, fake: FakeAnthropic): Promise<unknown>;
  /** the stored line that shows the change held */
  stored: (line: string) => boolean;
}

const OPERATIONS: Operation[] = [
  {
    name: "session/set_mode",
    send: (a, sessionId) => a.request(acp.methods.agent.session.setMode, { sessionId, modeId: "readonly" }),
    stored: (l) => l.includes('"permissionMode":"readonly"'),
  },
  {
    name: "session/set_config_option (model)",
    send: (a, sessionId) => a.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: OTHER_MODEL.id }),
    stored: (l) => l.includes('"type":"model_change"') && l.includes(OTHER_MODEL.id),
  },
  {
    name: "session/set_model",
    send: (a, sessionId) => a.request("session/set_model", { sessionId, modelId: OTHER_MODEL.id }),
    stored: (l) => l.includes('"type":"model_change"') && l.includes(OTHER_MODEL.id),
  },
  {
    name: "session/set_config_option (thinking level)",
    send: (a, sessionId) => a.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "thought_level", value: "high" }),
    stored: (l) => l.includes('"type":"thinking_level_change"') && l.includes('"high"'),
  },
  {
    name: "/autocompact off",
    send: (a, sessionId) => a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/autocompact off" }] }),
    stored: (l) => l.includes('"autoCompaction":false'),
  },
  {
    name: "session/prompt",
    send: (a, sessionId, fake) => {
      fake.enqueue(textReply("the stored reply"));
      return a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "remember this prompt" }] });
    },
    stored: (l) => l.includes("the stored reply"),
  },
];

async function world(t: TestContext) {
  checkDist(t);
  const server = await startPostgres(t);
  const link = await slowLink(t, server);
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  return { server, link, fake };
}

/** The same changes over pith's own protocol (stdio JSON-RPC): the one operation layer answers both fronts alike. */
const RPC_OPERATIONS: { name: string; send(d: RpcDaemon, sessionId: string): Promise<unknown>; stored: (line: string) => boolean }[] = [
  { name: "setPermissionMode", send: (d, sessionId) => d.peer.request("setPermissionMode", { sessionId, mode: "readonly" }), stored: OPERATIONS[0].stored },
  { name: "setModel", send: (d, sessionId) => d.peer.request("setModel", { sessionId, model: OTHER_MODEL.id }), stored: OPERATIONS[1].stored },
  { name: "setThinkingLevel", send: (d, sessionId) => d.peer.request("setThinkingLevel", { sessionId, level: "high" }), stored: OPERATIONS[3].stored },
  { name: "setAutoCompactionEnabled", send: (d, sessionId) => d.peer.request("setAutoCompactionEnabled", { sessionId, enabled: false }), stored: OPERATIONS[4].stored },
];

/** A fresh home whose settings know both models. */
function homeWithModels(t: TestContext): string {
  const home = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, models: [SMALL_MODEL, OTHER_MODEL], model: SMALL_MODEL.id });
  return home;
}

test("on PostgreSQL with a slowed commit, kill -9 at each answer loses nothing: ACP, and JSON-RPC alike", { skip: postgresSkip, timeout: 180_000 }, async (t) => {
  const { server, link, fake } = await world(t);
  const lost: string[] = [];
  const check = async (name: string, sessionId: string, ms: number, stored: (line: string) => boolean) => {
    if (!(await storedLines(server, sessionId)).some(stored)) lost.push(`${name} (answered in ${ms.toFixed(0)} ms)`);
    else t.diagnostic(`${name}: answered in ${ms.toFixed(0)} ms, stored`);
  };
  for (const op of OPERATIONS) {
    const cwd = tempDir(t);
    link.delayMs = 0;
    const a = await startAcp(t, { home: homeWithModels(t), fake, cwd, args: ["--store", link.url] });
    await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    link.delayMs = DELAY_MS;
    const sent = performance.now();
    await op.send(a, s.sessionId, fake);
    a.proc.kill("SIGKILL");
    const ms = performance.now() - sent;
    await new Promise((resolve) => a.proc.once("exit", resolve));
    await check(`ACP ${op.name}`, s.sessionId, ms, op.stored);
  }
  for (const op of RPC_OPERATIONS) {
    const cwd = tempDir(t);
    link.delayMs = 0;
    const d = startRpcDaemon(t, { home: homeWithModels(t), fake, cwd, args: ["--store", link.url] });
    await d.peer.initialize();
    const s = await d.peer.request("createSession", { cwd });
    link.delayMs = DELAY_MS;
    const sent = performance.now();
    await op.send(d, s.sessionId);
    d.proc.kill("SIGKILL");
    const ms = performance.now() - sent;
    await new Promise((resolve) => d.proc.once("exit", resolve));
    await check(`JSON-RPC ${op.name}`, s.sessionId, ms, op.stored);
  }
  assert.deepEqual(lost, [], "every acknowledged change is in the database after kill -9");
});
