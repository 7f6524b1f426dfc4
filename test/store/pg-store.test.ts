// The PostgreSQL store beyond the shared contract (conformance.test.ts): a writer deposed by a
// takeover is fenced (its sink rejects, nothing of its epoch lands after the take, its session
// says where it went); commits survive kill -9 of PostgreSQL; import and export round-trip a Pi
// file and Pi reads the export as it read the original.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { createLogger } from "../../src/log/logger.js";
import type { SessionOwner } from "../../src/session/durable-sink.js";
import { readEntries, takeOwnership } from "../../src/session/postgres/ownership.js";
import { exportSession, insertSession, readSessionLines } from "../../src/session/postgres/pg-interop.js";
import { PgSessionStore } from "../../src/session/postgres/pg-store.js";
import { SessionHost } from "../../src/host/session-host.js";
import { SessionFile } from "../../src/session/session-file.js";
import { asStored, CONTEXT_EDIT_DIR, CONTEXT_EDIT_FIXTURES, piView } from "../support/context-edit-fixtures.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { openWithPi } from "../support/pi.js";
import { startPostgres, postgresSkip, type Postgres } from "../support/postgres.js";

if (postgresSkip) process.stderr.write(`[pg store tests] skipped: ${postgresSkip}\n`);

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
let nodes = 0;

async function node(t: TestContext, server: Postgres, opts: { leaseMs?: number } = {}): Promise<PgSessionStore> {
  const store = await PgSessionStore.connect({ url: server.url, nodeId: `n${++nodes}`, spoolDir: temp("pith-spool-"), logger: createLogger("silent"), heartbeatMs: 0, ...opts });
  t.after(() => store.close().catch(() => {}));
  return store;
}

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: Date.now() });
const code = (name: string) => (err: unknown) => (err as { code?: string }).code === name;

test("a writer deposed by a takeover is fenced: its sink rejects with SessionMoved naming the taker, nothing of its epoch lands after the take", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const f = await a.create({ cwd: temp("pith-cwd-") });
  f.appendMessage(user("before"));
  await f.flushed();
  const fenced: SessionOwner[] = [];
  f.sink!.onFenced((o) => fenced.push(o));

  const taken = await takeOwnership(a.db, f.sessionId, "thief", { force: true });
  f.appendMessage(user("after the take"));
  await assert.rejects(f.flushed(), (err: unknown) => code("SessionMoved")(err) && (err as { data: { owner: SessionOwner } }).data.owner.nodeId === "thief");
  assert.deepEqual(fenced.map((o) => o.nodeId), ["thief"], "the session's listeners are told once");
  assert.throws(() => f.appendMessage(user("later")), code("SessionMoved"), "a fenced session refuses writes at once");
  const rows = await readEntries(a.db, f.sessionId);
  assert.equal(rows.length, 1, "only the line committed before the take");
  assert.ok(rows.every((r) => r.epoch < taken.epoch));
  await f.closeAsync();
  const owner = await a.db.query("SELECT node_id FROM owners WHERE session_id = $1", [f.sessionId]);
  assert.equal(owner.rows[0].node_id, "thief", "closing a fenced session does not release the new owner's hold");
});

test("the sink's commits survive kill -9 of PostgreSQL: lines written while it is down are committed once it is back, each once", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const f = await a.create({ cwd: temp("pith-cwd-") });
  t.after(() => f.closeAsync().catch(() => {}));
  for (let i = 0; i < 20; i++) f.appendMessage(user(`m${i}`));
  await f.flushed();
  await server.kill9();
  for (let i = 20; i < 40; i++) f.appendMessage(user(`m${i}`));
  let done = false;
  const flushed = f.flushed().then(() => (done = true));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(done, false, "not durable while the server is down");
  await server.restart();
  await flushed;
  const rows = await readEntries(a.db, f.sessionId);
  assert.deepEqual(
    rows.map((r) => JSON.parse(r.line).message.content),
    Array.from({ length: 40 }, (_, i) => `m${i}`),
  );
  assert.deepEqual(rows.map((r) => r.seq), Array.from({ length: 40 }, (_, i) => i + 1));
});

test("import then export: a v3 file comes back byte for byte; the Pi v1 fixture comes back migrated, and Pi reads it as it read the original", { skip: postgresSkip || fixtureSkip, timeout: 120_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const dir = temp("pith-interop-");
  const original = copyFixture(dir);
  const pi = await openWithPi(original);

  const imported = await insertSession(a.db, await readSessionLines(original));
  let exported = "";
  await exportSession(a.db, imported, async (text) => void (exported += text));
  const out = join(dir, "exported.jsonl");
  writeFileSync(out, exported);
  assert.equal(JSON.parse(exported.slice(0, exported.indexOf("\n"))).version, 3, "migrated to v3 on the way in");
  const fromPi = await openWithPi(out);
  assert.equal(fromPi.entries, pi.entries);
  assert.deepEqual(fromPi.messages, pi.messages, "Pi's context of the export is its context of the original");
  assert.deepEqual(fromPi.model, pi.model);

  // the export is a v3 file: a second round trip is byte for byte
  const copy = readSessionLines(out).then((lines) => {
    const header = JSON.parse(lines.header);
    header.id = "0198a3c0-0000-7000-8000-0000000000c3";
    return { ...lines, header: JSON.stringify(header) };
  });
  const second = await insertSession(a.db, await copy);
  let again = "";
  await exportSession(a.db, second, async (text) => void (again += text));
  const expected = readFileSync(out, "utf8").split("\n");
  expected[0] = JSON.stringify({ ...JSON.parse(expected[0]), id: second });
  assert.equal(again, expected.join("\n"), "byte for byte, header aside (its id was changed for the second import)");

  // and the store opens it as pith opens the file
  const opened = await a.open({ sessionId: imported });
  t.after(() => opened.closeAsync());
  const local = SessionFile.open(out, { readOnly: true });
  t.after(() => local.close());
  assert.deepEqual(opened.buildContext(), local.buildContext());
  await assert.rejects(insertSession(a.db, await readSessionLines(out)), (err: unknown) => (err as { data?: { reason?: string } }).data?.reason === "SessionExists");
});

test("sessions Pi 1.5.2 edited with context_edit entries, imported, open with Pi 1.5.2's context", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  for (const name of CONTEXT_EDIT_FIXTURES) {
    const id = await insertSession(a.db, await readSessionLines(join(CONTEXT_EDIT_DIR, `${name}.jsonl`)));
    const opened = await a.open({ sessionId: id });
    const ctx = opened.buildContext();
    const pi = piView(name);
    assert.equal(opened.leafId, pi.leafId, name);
    assert.deepEqual(asStored(ctx.messages), asStored(pi.messages), name);
    assert.deepEqual(ctx.model, pi.model, name);
    await opened.closeAsync();
  }
});

test("import refuses what is not a session, and an id already stored; lines that are not entries are left out and counted", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const dir = temp("pith-interop-");
  const notSession = join(dir, "notes.jsonl");
  writeFileSync(notSession, '{"hello":"world"}\n');
  await assert.rejects(readSessionLines(notSession), code("NotASession"));
  const torn = join(dir, "torn.jsonl");
  const header = { type: "session", version: 3, id: "0198a3c0-0000-7000-8000-0000000000d1", timestamp: new Date().toISOString(), cwd: dir };
  const entry = { type: "message", id: "aaaa0001", parentId: null, timestamp: new Date().toISOString(), message: user("hi") };
  writeFileSync(torn, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\nnot json\n{"type":"messa`);
  const lines = await readSessionLines(torn);
  assert.equal(lines.entries.length, 1);
  assert.equal(lines.skipped, 2);
  assert.equal(await insertSession(a.db, lines), header.id);
  const [listed] = await a.list({ cwd: dir });
  assert.equal(listed.firstMessage, "hi");
  assert.equal(listed.messageCount, 1);
});

test("a commit whose answer was lost, retried with more lines queued since: the stored part is recognized as ours, the rest follows, nothing twice", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const f = await a.create({ cwd: temp("pith-cwd-") });
  t.after(() => f.closeAsync().catch(() => {}));
  const query = a.db.query.bind(a.db) as (...args: unknown[]) => Promise<unknown>;
  let cut = false;
  // the first append commits, then its answer is "lost" while two more lines are written
  (a.db as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
    const result = await query(...args);
    if (!cut && String(args[0]).includes("INSERT INTO entries")) {
      cut = true;
      f.appendMessage(user("two"));
      f.appendMessage(user("three"));
      throw new Error("connection lost after COMMIT");
    }
    return result;
  };
  f.appendMessage(user("one"));
  await f.flushed();
  assert.ok(cut, "the answer of the first commit was lost");
  await f.flushed(); // now also the two lines written while it was lost
  assert.equal(f.sink!.fenced, undefined);
  const rows = await readEntries(a.db, f.sessionId);
  assert.deepEqual(rows.map((r) => JSON.parse(r.line).message.content), ["one", "two", "three"]);
  assert.deepEqual(rows.map((r) => r.seq), [1, 2, 3]);
});

test("a session asked for by its id and by its pg: name at once is taken once", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const a = await node(t, server);
  const created = await a.create({ cwd: temp("pith-cwd-") });
  const id = created.sessionId;
  await created.closeAsync();
  const home = temp("pith-home-");
  const host = new SessionHost({ sessionsDir: join(home, "sessions"), store: a, logger: createLogger("silent"), env: { PITH_HOME: home } });
  t.after(() => host.shutdown());
  const [byId, byName] = await Promise.all([host.open({ sessionId: id }), host.open({ sessionFile: `pg:${id}` })]);
  assert.equal(byId, byName, "one live session");
  const owner = await a.db.query<{ epoch: string; node_id: string }>("SELECT epoch, node_id FROM owners WHERE session_id = $1", [id]);
  assert.deepEqual(owner.rows.map((r) => [Number(r.epoch), r.node_id]), [[2, a.nodeId]], "taken once after its creation's take: no second take fenced the first");
});
