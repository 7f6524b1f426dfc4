// Session ids name files: a PostgreSQL node's local copy of a session is
// `$PITH_HOME/pg-spool/<node>/<id>.jsonl`, created on open and removed on close. An id like
// `../../../victim` (from an imported file's header, a row in the database, a client's params)
// made that copy outside the folder: any `*.jsonl` the daemon could write was overwritten and
// deleted. Ids are now 1 to 128 of A-Z a-z 0-9 _ -, checked where they arrive, before any path.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import pg from "pg";
import { ErrorCodes } from "../../protocol/index.js";
import { startFakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, FLOW_SETTINGS, runPith, startRpcDaemon, startServeDaemon, writeSettings } from "../support/daemon-client.js";
import { postgresSkip, startPostgres } from "../support/postgres.js";
import { tempDir } from "../support/tmp.js";

const VICTIM_TEXT = '{"victim":"a file outside the store that must survive"}\n';
/** From $PITH_HOME/pg-spool/node0/ up to the folder that holds $PITH_HOME. */
const HOSTILE_ID = "../../../victim";

function hostileSessionFile(dir: string, cwd: string): string {
  const file = join(dir, "hostile.jsonl");
  const timestamp = new Date().toISOString();
  const header = { type: "session", version: 3, id: HOSTILE_ID, timestamp, cwd };
  const entry = { type: "message", id: "a1b2c3d4", parentId: null, timestamp, message: { role: "user", content: "hi", timestamp: Date.now() } };
  writeFileSync(file, JSON.stringify(header) + "\n" + JSON.stringify(entry) + "\n");
  return file;
}

test("pith store import of a file whose id is ../../../victim is refused, and a node asked to open such a row leaves the victim file alone", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  checkDist(t);
  const server = await startPostgres(t);
  const parent = tempDir(t, "pith-ids-");
  const home = join(parent, "home");
  mkdirSync(home);
  writeSettings(home, FLOW_SETTINGS);
  const victim = join(parent, "victim.jsonl");
  writeFileSync(victim, VICTIM_TEXT);
  const file = hostileSessionFile(parent, parent);

  const imported = await runPith(["store", "import", file, "--store", server.url], { home, cwd: parent });
  assert.equal(imported.code, 1, `the import is refused: ${imported.stdout}${imported.stderr}`);
  assert.match(imported.stderr, /InvalidSessionId: .*not a valid session id/);

  // a row stored before ids were checked (or written by hand) is refused by the node as well
  const c = new pg.Client(server.config);
  await c.connect();
  try {
    const header = readFileSync(file, "utf8").split("\n")[0];
    await c.query("INSERT INTO sessions (id, header, cwd, created, modified) VALUES ($1, $2, $3, now(), now()) ON CONFLICT DO NOTHING", [HOSTILE_ID, header, parent]);
    await c.query("INSERT INTO owners (session_id, node_id, epoch, lease_expires) VALUES ($1, NULL, 1, now()) ON CONFLICT DO NOTHING", [HOSTILE_ID]);
  } finally {
    await c.end();
  }
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  const node = await startServeDaemon(t, { home, fake, cwd: parent, args: ["--store", server.url, "--node-id", "node0"] });
  const peer = await node.connect(t);
  await peer.initialize();
  const byId = await peer.call("openSession", { sessionId: HOSTILE_ID });
  assert.equal(byId.error?.code, ErrorCodes.InvalidParams, JSON.stringify(byId));
  const byName = await peer.call("openSession", { sessionFile: `pg:${HOSTILE_ID}` });
  assert.equal(byName.error?.code, ErrorCodes.InvalidParams, JSON.stringify(byName));
  assert.equal((byName.error?.data as { reason?: string }).reason, "InvalidSessionId");
  assert.equal(readFileSync(victim, "utf8"), VICTIM_TEXT, "the victim file is untouched");
});

test("a client's hostile session id is refused with -32602 by every method that names a session", async (t) => {
  checkDist(t);
  const home = tempDir(t);
  const cwd = tempDir(t);
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  for (const sessionId of ["../../x", "a/b", "..", "x\u0000y", "a".repeat(129)]) {
    for (const [method, params] of [
      ["openSession", { sessionId }],
      ["deleteSession", { sessionId }],
      ["getState", { sessionId }],
      ["closeSession", { sessionId }],
    ] as const) {
      const answer = await d.peer.call(method, params);
      assert.equal(answer.error?.code, ErrorCodes.InvalidParams, `${method} ${JSON.stringify(sessionId)}: ${JSON.stringify(answer)}`);
      assert.match(answer.error?.message ?? "", /session id/, "the message says what is wrong");
    }
  }
  // a UUID (what pith and Pi make) is still a session id: unknown, so -32010
  const unknown = await d.peer.call("openSession", { sessionId: "0b8f3c1e-1d2a-4a4e-9a57-3c2f0e6d9b10" });
  assert.equal(unknown.error?.code, ErrorCodes.SessionNotFound);
  d.endStdin();
  await d.waitExit();
});
