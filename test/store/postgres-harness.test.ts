// The PostgreSQL test harness (test/support/postgres.ts) itself, before any store is built on it:
// a server it starts takes connections from `pg` through its URL, a transaction acknowledged as
// committed survives kill9() + restart() (crash recovery, not a clean shutdown: the log says so)
// while one left open does not, and stop() leaves no process of the server behind. Skipped, with
// the reason, where PostgreSQL cannot run (see postgresSkip).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import pg from "pg";
import { postgresSkip, startPostgres } from "../support/postgres.js";

if (postgresSkip) process.stderr.write(`[postgres harness tests] skipped: ${postgresSkip}\n`);

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** pids of live processes whose command line mentions `text` */
function processesMentioning(text: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text) && alive(Number(name))) out.push(Number(name));
    } catch {}
  }
  return out;
}

async function connect(config: pg.ClientConfig | string): Promise<pg.Client> {
  const client = new pg.Client(config);
  client.on("error", () => {}); // a killed server ends the connection with an error event
  await client.connect();
  return client;
}

test("a transaction acknowledged as committed survives kill -9 of the server and a restart; an open one does not", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  let t0 = Date.now();
  const server = await startPostgres(t);
  t.diagnostic(`start: ${Date.now() - t0} ms`);
  assert.match(server.url, /^postgresql:\/\//);

  const a = await connect(server.url);
  t.after(() => a.end().catch(() => {}));
  const settings = await a.query<{ name: string; setting: string }>("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'listen_addresses') ORDER BY name");
  assert.deepEqual(
    settings.rows.map((r) => `${r.name}=${r.setting}`),
    ["fsync=on", "listen_addresses=", "synchronous_commit=on"],
  );
  assert.equal((await a.query<{ db: string }>("SELECT current_database() AS db")).rows[0].db, server.database);
  await a.query("CREATE TABLE entries (id int PRIMARY KEY, body text NOT NULL)");

  // left open across the crash: never acknowledged, so it must be gone afterwards
  const b = await connect(server.config);
  t.after(() => b.end().catch(() => {}));
  await b.query("BEGIN");
  await b.query("INSERT INTO entries VALUES (3, 'never committed')");

  await a.query("BEGIN");
  await a.query("INSERT INTO entries VALUES (1, 'first')");
  await a.query("INSERT INTO entries VALUES (2, 'second')");
  await a.query("COMMIT");

  const postmaster = server.pid;
  assert.ok(postmaster !== undefined);
  const before = server.pids();
  assert.ok(before.length >= 4, `the postmaster and its children (two backends, checkpointer, ...): ${before.join(" ")}`);
  t0 = Date.now();
  await server.kill9(); // right after the COMMIT returned
  const killMs = Date.now() - t0;
  assert.equal(server.pid, undefined);
  assert.deepEqual(before.filter(alive), [], "every process of the server is dead after kill9()");
  await assert.rejects(a.query("SELECT 1"), "the old connection is dead");

  t0 = Date.now();
  await server.restart();
  t.diagnostic(`kill9: ${killMs} ms, restart with crash recovery: ${Date.now() - t0} ms`);
  assert.ok(server.pid !== undefined && server.pid !== postmaster);
  assert.match(server.log(), /not properly shut down; automatic recovery in progress/, "the restart recovered from a crash");

  const c = await connect(server.url);
  t.after(() => c.end().catch(() => {}));
  const rows = await c.query<{ id: number; body: string }>("SELECT id, body FROM entries ORDER BY id");
  assert.deepEqual(rows.rows, [
    { id: 1, body: "first" },
    { id: 2, body: "second" },
  ]);
  // the server works on after recovery
  await c.query("INSERT INTO entries VALUES (3, 'after the crash')");
  assert.equal((await c.query("SELECT count(*)::int AS n FROM entries")).rows[0].n, 3);
});

test("stop() ends the postmaster and all its children and leaves a cleanly shut down cluster", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t, { database: "other db" });
  const client = await connect(server.url);
  t.after(() => client.end().catch(() => {}));
  assert.equal((await client.query<{ db: string }>("SELECT current_database() AS db")).rows[0].db, "other db");

  const pids = server.pids();
  assert.ok(pids.length >= 3, `the postmaster and its children: ${pids.join(" ")}`);
  assert.deepEqual(processesMentioning(server.dataDir), [server.pid], "the postmaster's command line names its data dir");
  const t0 = Date.now();
  await server.stop();
  t.diagnostic(`stop: ${Date.now() - t0} ms`);
  assert.equal(server.pid, undefined);
  assert.deepEqual(pids.filter(alive), [], "no process of the server is left");
  assert.deepEqual(processesMentioning(server.dataDir), [], "no process names the data dir");
  assert.equal(existsSync(join(server.dataDir, "postmaster.pid")), false, "a clean shutdown removes postmaster.pid");
  await assert.rejects(client.query("SELECT 1"));

  // and it starts again from a clean shutdown without recovery
  await server.restart();
  const again = await connect(server.config);
  t.after(() => again.end().catch(() => {}));
  assert.equal((await again.query("SELECT 1 AS one")).rows[0].one, 1);
  assert.doesNotMatch(server.log(), /automatic recovery in progress/);
});
