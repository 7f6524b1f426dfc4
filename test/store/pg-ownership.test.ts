// The PostgreSQL store's schema and fenced ownership (src/session/postgres), against a real
// server from test/support/postgres.ts: migrations are idempotent and safe to run concurrently;
// a deposed owner's append throws Fenced and writes nothing; a lease renewed is not stolen; in a
// steal storm between three nodes (separate pools) the log stays contiguous and no append of an
// older epoch lands after a takeover; acknowledged appends survive kill -9 of the server.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { Fenced, OwnedElsewhere, SeqConflict } from "../../src/session/postgres/ownership-errors.js";
import { MIGRATIONS, migrate } from "../../src/session/postgres/migrations.js";
import { appendEntries, readEntries, releaseOwnership, renewLease, takeOwnership, type Ownership } from "../../src/session/postgres/ownership.js";
import type { EntryBase } from "../../src/session/types.js";
import { storeWith, testPool } from "../support/pg-store.js";
import { postgresSkip, startPostgres } from "../support/postgres.js";

if (postgresSkip) process.stderr.write(`[pg ownership tests] skipped: ${postgresSkip}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SID = "0198a3c0-0000-7000-8000-000000000001";

const pool = testPool;
const ready = (t: TestContext) => storeWith(t, [SID]);

let counter = 0;
function entry(tag: string): EntryBase & { tag: string } {
  return { type: "custom", id: (counter++).toString(16).padStart(8, "0"), parentId: null, timestamp: new Date().toISOString(), tag };
}

test("migrate is idempotent, also when several processes run it at once", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const pools = await Promise.all([1, 2, 3, 4].map(() => pool(t, server, 2)));
  const t0 = Date.now();
  const results = await Promise.all(pools.map((p) => migrate(p)));
  t.diagnostic(`4 concurrent migrates: ${Date.now() - t0} ms`);
  const all = MIGRATIONS.map((m) => m.version);
  assert.deepEqual(results.flat(), all, "exactly one of them applied every version");
  assert.equal(results.filter((r) => r.length > 0).length, 1);
  assert.deepEqual(await migrate(pools[0]), [], "again: nothing to do");
  const v = await pools[0].query("SELECT version FROM schema_migrations ORDER BY version");
  assert.deepEqual(v.rows, all.map((version) => ({ version })));
  const tables = await pools[0].query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  assert.deepEqual(tables.rows.map((r) => r.tablename), ["entries", "nodes", "owners", "schema_migrations", "sessions"]);
});

test("take, append, a steal after the lease expires or by force: the deposed owner's append throws Fenced and writes nothing", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { a, b } = await ready(t);
  const ownA = await takeOwnership(a, SID, "node-a", { leaseMs: 200 });
  assert.equal(ownA.epoch, 1);
  assert.equal(ownA.nextSeq, 1);
  assert.equal(await appendEntries(a, ownA, [entry("a1")]), 2);
  assert.equal(await appendEntries(a, ownA, [entry("a2"), entry("a3")]), 4, "a batch");

  await assert.rejects(takeOwnership(b, SID, "node-b"), (err: unknown) => err instanceof OwnedElsewhere && err.owner.nodeId === "node-a");
  await sleep(250); // the lease expires
  const ownB = await takeOwnership(b, SID, "node-b");
  assert.deepEqual([ownB.epoch, ownB.nextSeq], [2, 4]);

  await assert.rejects(appendEntries(a, ownA, [entry("late")]), (err: unknown) => {
    assert.ok(err instanceof Fenced);
    assert.equal(err.code, "Fenced");
    assert.equal(err.sessionId, SID);
    assert.deepEqual([err.owner?.nodeId, err.owner?.epoch], ["node-b", 2]);
    return true;
  });
  await assert.rejects(renewLease(a, ownA), Fenced);
  assert.equal(await releaseOwnership(a, ownA), false);
  assert.equal(await appendEntries(b, ownB, [entry("b1")]), 5);

  // a forced take from a live owner; then the deposed one, with a seq that the new one has taken
  const ownA2 = await takeOwnership(a, SID, "node-a", { force: true });
  assert.deepEqual([ownA2.epoch, ownA2.nextSeq], [3, 5]);
  await appendEntries(a, ownA2, [entry("a4")]);
  await assert.rejects(appendEntries(b, ownB, [entry("b-late-1"), entry("b-late-2")]), Fenced, "a seq already taken by the new owner is Fenced too");
  ownB.nextSeq = 99;
  await assert.rejects(appendEntries(b, ownB, [entry("b-late-3")]), Fenced);

  // the owner's own wrong seq is a SeqConflict, not Fenced
  const stale = { ...ownA2, nextSeq: 2 };
  await assert.rejects(appendEntries(a, stale, [entry("dup")]), SeqConflict);

  const rows = await readEntries(a, SID);
  assert.deepEqual(rows.map((r) => [r.seq, JSON.parse(r.line).tag, r.epoch]), [
    [1, "a1", 1],
    [2, "a2", 1],
    [3, "a3", 1],
    [4, "b1", 2],
    [5, "a4", 3],
  ]);
  assert.deepEqual((await readEntries(a, SID, 4)).map((r) => r.seq), [4, 5]);
  const session = await a.query("SELECT message_count, modified > created AS touched FROM sessions WHERE id = $1", [SID]);
  assert.deepEqual(session.rows, [{ message_count: 0, touched: true }]);

  // release: the releaser's writes are fenced, anyone may take it at once, the epoch goes on
  assert.equal(await releaseOwnership(a, ownA2), true);
  await assert.rejects(appendEntries(a, ownA2, [entry("after release")]), Fenced);
  const ownB2 = await takeOwnership(b, SID, "node-b", { leaseMs: 60_000 });
  assert.deepEqual([ownB2.epoch, ownB2.nextSeq], [4, 6]);
  // re-taking one's own session bumps the epoch and fences the older token
  const ownB3 = await takeOwnership(b, SID, "node-b");
  assert.equal(ownB3.epoch, 5);
  await assert.rejects(appendEntries(b, ownB2, [entry("old token")]), Fenced);
});

test("renewing keeps the lease: no steal while the owner renews", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { a, b } = await ready(t);
  const own = await takeOwnership(a, SID, "node-a", { leaseMs: 300 });
  const first = own.leaseExpires;
  for (let i = 0; i < 6; i++) {
    await sleep(100);
    await renewLease(a, own, 300);
    await assert.rejects(takeOwnership(b, SID, "node-b"), OwnedElsewhere);
  }
  assert.ok(own.leaseExpires.getTime() >= first.getTime() + 500, "the lease moved on");
  await appendEntries(a, own, [entry("still mine")]);
  await sleep(400); // no renewal: it expires
  const ownB = await takeOwnership(b, SID, "node-b");
  assert.equal(ownB.epoch, 2);
  await assert.rejects(appendEntries(a, own, [entry("too late")]), Fenced);
});

test("a steal storm: three nodes forcing takeovers and appending for 2 s leave a contiguous log with no write of a deposed owner after a takeover", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { server, a } = await ready(t);
  const pools = [a, await pool(t, server), await pool(t, server)];
  const acked = new Map<string, { seq: number; epoch: number }>(); // entry id -> where its append said it went
  const takes: { epoch: number; nextSeq: number }[] = [];
  const stats = { takes: 0, appends: 0, fenced: 0, other: [] as string[] };
  const until = Date.now() + 2_000;
  const node = async (i: number) => {
    const p = pools[i];
    let own: Ownership | undefined;
    let k = 0;
    while (Date.now() < until) {
      if (!own || k++ % 4 === 0) {
        own = await takeOwnership(p, SID, `node-${i}`, { force: true });
        takes.push({ epoch: own.epoch, nextSeq: own.nextSeq });
        stats.takes++;
      }
      const batch = Array.from({ length: 1 + (k % 3) }, () => entry(`n${i}`));
      const at = own.nextSeq;
      try {
        await appendEntries(p, own, batch);
        batch.forEach((e, j) => acked.set(e.id, { seq: at + j, epoch: own!.epoch }));
        stats.appends++;
      } catch (err) {
        if (err instanceof Fenced) stats.fenced++;
        else stats.other.push(String(err));
        own = undefined;
      }
    }
  };
  await Promise.all([0, 1, 2].map(node));
  t.diagnostic(`storm: ${stats.takes} takes, ${stats.appends} appends acknowledged, ${stats.fenced} fenced`);
  assert.deepEqual(stats.other, [], "no error but Fenced (a SeqConflict means a deposed write got in)");
  assert.ok(stats.takes > 30 && stats.appends > 30 && stats.fenced > 5, JSON.stringify(stats));

  const rows = await readEntries(a, SID);
  assert.deepEqual(rows.map((r) => r.seq), rows.map((_, i) => i + 1), "seq contiguous from 1, no duplicates");
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.equal(byId.size, rows.length);
  for (const [id, where] of acked) {
    const row = byId.get(id);
    assert.ok(row, `acknowledged entry ${id} is stored`);
    assert.deepEqual({ seq: row.seq, epoch: row.epoch }, where);
  }
  assert.equal(acked.size, rows.length, "nothing stored that was not acknowledged");
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i].epoch >= rows[i - 1].epoch, `seq ${rows[i].seq}: epoch ${rows[i].epoch} after ${rows[i - 1].epoch}`);
  for (const take of takes) {
    const older = rows.filter((r) => r.seq >= take.nextSeq && r.epoch < take.epoch);
    assert.deepEqual(older, [], `nothing of an epoch before ${take.epoch} at or after seq ${take.nextSeq}`);
  }
});

test("acknowledged appends survive kill -9 of PostgreSQL and a restart", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { server, a } = await ready(t);
  const own = await takeOwnership(a, SID, "node-a");
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const batch = [entry(`e${i}`), entry(`e${i}b`)];
    await appendEntries(a, own, batch);
    ids.push(...batch.map((e) => e.id));
  }
  await server.kill9(); // right after the last append was acknowledged
  await server.restart();
  const c = await pool(t, server);
  const rows = await readEntries(c, SID);
  assert.deepEqual(rows.map((r) => r.id), ids);
  assert.deepEqual(rows.map((r) => r.seq), ids.map((_, i) => i + 1));
  // the owner goes on where it left off after the crash (its lease survived too)
  await appendEntries(c, own, [entry("after")]);
  assert.equal((await readEntries(c, SID, 41)).length, 1);
});
