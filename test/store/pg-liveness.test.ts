// Node liveness (src/session/postgres/nodes.ts) against a real server: a node killed with kill -9
// (a child process) loses its advisory lock within milliseconds and its session is taken without
// force well within a second, its epoch fenced; a live node's session is not taken without force,
// also when its last_seen is stale; two live nodes never share a lock key (the same id, a hash
// collision); after kill -9 + restart of PostgreSQL every lock is gone, yet a node whose last_seen
// is fresh is not dead, its heartbeat re-takes the lock, and a node that never comes back is dead
// once its last_seen is stale.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { test, type TestContext } from "node:test";
import { Fenced, OwnedElsewhere } from "../../src/session/postgres/ownership-errors.js";
import { liveness, NodeLockHeld, registerNode, type NodePresence } from "../../src/session/postgres/nodes.js";
import { appendEntries, readEntries, renewLease, takeOwnership } from "../../src/session/postgres/ownership.js";
import type { EntryBase } from "../../src/session/types.js";
import { storeWith, testPool } from "../support/pg-store.js";
import { postgresSkip, type Postgres } from "../support/postgres.js";
import { repoRoot } from "../support/tmp.js";

if (postgresSkip) process.stderr.write(`[pg liveness tests] skipped: ${postgresSkip}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SID = "0198a3c0-0000-7000-8000-0000000000a1";
const SID2 = "0198a3c0-0000-7000-8000-0000000000a2";

async function node(t: TestContext, server: Postgres, id: string, heartbeatMs = 0): Promise<NodePresence> {
  const n = await registerNode(server.config, id, { heartbeatMs });
  t.after(() => n.close());
  return n;
}

const ready = (t: TestContext) => storeWith(t, [SID, SID2], 3);

let counter = 0;
const entry = (tag: string): EntryBase & { tag: string } => ({ type: "custom", id: `e${counter++}`, parentId: null, timestamp: new Date().toISOString(), tag });
const isOwnedElsewhere = (nodeId: string) => (err: unknown) => err instanceof OwnedElsewhere && err.owner.nodeId === nodeId;

test("kill -9 of an owner node's process: another node takes its session without force within 1 s, the dead epoch is fenced", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { server, a, b } = await ready(t);
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "test/support/pg-node-child.ts"), server.host, String(server.port), server.database, "node-a", SID], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => child.kill("SIGKILL"));
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.once("exit", () => resolve(performance.now())));
  const acked = () => [...out.matchAll(/^acked (\d+)$/gm)].map((m) => Number(m[1]));
  for (const deadline = Date.now() + 20_000; acked().length < 5; await sleep(10)) {
    assert.ok(Date.now() < deadline && child.exitCode === null, `the child did not start appending: ${out}${err}`);
  }
  assert.match(out, /^owner 1 1$/m);
  // alive: no take without force, also with a tiny staleness threshold (its lock is held)
  await assert.rejects(takeOwnership(b, SID, "node-b", { deadAfterMs: 1 }), isOwnedElsewhere("node-a"));
  assert.equal((await liveness(b, "node-a")).dead, false);

  child.kill("SIGKILL");
  const killed = performance.now();
  let tries = 0;
  let own;
  while (!own) {
    try {
      tries++;
      own = await takeOwnership(b, SID, "node-b");
    } catch (e) {
      if (!(e instanceof OwnedElsewhere) || performance.now() - killed > 5_000) throw e;
      await sleep(1);
    }
  }
  const tookMs = performance.now() - killed;
  const exitMs = (await exited) - killed;
  t.diagnostic(`taken ${tookMs.toFixed(1)} ms after kill -9 (${tries} tries; the child's exit was seen after ${exitMs.toFixed(1)} ms)`);
  assert.ok(tookMs < 1_000, `took ${tookMs} ms`);
  assert.equal(own.epoch, 2);

  const seqs = acked();
  const rows = await readEntries(a, SID);
  assert.ok(rows.length >= seqs.length, "every acknowledged append is stored");
  assert.deepEqual(rows.map((r) => r.seq), rows.map((_, i) => i + 1));
  assert.ok(rows.every((r) => r.epoch === 1));
  assert.equal(own.nextSeq, rows.length + 1);
  await appendEntries(a, own, [entry("b1"), entry("b2")]);
  const dead = { sessionId: SID, nodeId: "node-a", epoch: 1, nextSeq: own.nextSeq, leaseExpires: new Date() };
  await assert.rejects(appendEntries(a, dead, [entry("zombie")]), Fenced);
  await assert.rejects(renewLease(a, dead), Fenced);
  const after = await readEntries(a, SID);
  assert.deepEqual(after.slice(-2).map((r) => [JSON.parse(r.line).tag, r.epoch]), [["b1", 2], ["b2", 2]]);
  assert.equal(after.length, rows.length + 2);
});

test("a live node's session is not taken without force; closed, it is at once; two live nodes never share a lock key", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { server, a, b } = await ready(t);
  const na = await node(t, server, "node-a");
  const ownA = await takeOwnership(a, SID, "node-a", { leaseMs: 60_000 });
  await sleep(50); // no heartbeat: last_seen is stale by a 10 ms threshold, but the lock is held
  await assert.rejects(takeOwnership(b, SID, "node-b"), isOwnedElsewhere("node-a"));
  await assert.rejects(takeOwnership(b, SID, "node-b", { deadAfterMs: 10 }), isOwnedElsewhere("node-a"));
  assert.deepEqual(await liveness(b, "node-a", 10), { known: true, lockFree: false, seenSinceStart: true, stale: true, dead: false });
  // the probe released the lock it got: still free for the next one, not held by b's connection
  assert.equal((await b.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted")).rows[0].n, 1);
  // an owner that never registered is never dead: the lease rules
  await takeOwnership(a, SID2, "unregistered", { leaseMs: 60_000 });
  await assert.rejects(takeOwnership(b, SID2, "node-b", { deadAfterMs: 1 }), isOwnedElsewhere("unregistered"));
  assert.equal((await liveness(b, "unregistered", 1)).dead, false);

  // the same id twice: refused while the first lives
  await assert.rejects(registerNode(server.config, "node-a", { heartbeatMs: 0 }), (e: unknown) => e instanceof NodeLockHeld && e.collidesWith === undefined);
  // two ids with the same hashtext (found by the birthday bound among 200 000): refused, named
  const pair = await a.query<{ ids: string[] }>(
    "SELECT array_agg(id ORDER BY id) AS ids FROM (SELECT 'n' || i AS id FROM generate_series(1, 200000) AS i) s GROUP BY hashtext(id) HAVING count(*) > 1 LIMIT 1",
  );
  assert.equal(pair.rowCount, 1, "a hashtext collision among 200 000 ids");
  const [x, y] = pair.rows[0].ids;
  await node(t, server, x);
  await assert.rejects(registerNode(server.config, y, { heartbeatMs: 0 }), (e: unknown) => e instanceof NodeLockHeld && e.collidesWith === x);

  await na.close(); // a clean shutdown: dead at once, no staleness needed
  assert.deepEqual(await liveness(b, "node-a"), { known: true, lockFree: true, seenSinceStart: true, stale: false, dead: true });
  const ownB = await takeOwnership(b, SID, "node-b");
  assert.equal(ownB.epoch, 2);
  await assert.rejects(appendEntries(a, ownA, [entry("late")]), Fenced);
});

test("after kill -9 and restart of PostgreSQL every lock is gone: a node with a fresh last_seen is not dead, its heartbeat re-takes the lock; one that never comes back is dead once stale", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const { server, a } = await ready(t);
  const na = await node(t, server, "node-a"); // comes back: beats by hand below, so the first check is not racing it
  const nd = await node(t, server, "node-d", 150); // comes back by its own heartbeat timer
  const nc = await node(t, server, "node-c"); // never beats again: a node that died while the server was down
  await takeOwnership(a, SID, "node-a", { leaseMs: 60_000 });
  await takeOwnership(a, SID2, "node-c", { leaseMs: 60_000 });
  await server.kill9();
  await server.restart();
  const restarted = performance.now();
  const b = await testPool(t, server, 3);

  // both locks are gone, neither node is dead yet: their last_seen is from before the restart and fresh
  for (const id of ["node-a", "node-c"]) {
    const l = await liveness(b, id, 5_000);
    assert.deepEqual(l, { known: true, lockFree: true, seenSinceStart: false, stale: false, dead: false }, id);
  }
  await assert.rejects(takeOwnership(b, SID, "node-b", { deadAfterMs: 5_000 }), isOwnedElsewhere("node-a"));
  await assert.rejects(takeOwnership(b, SID2, "node-b", { deadAfterMs: 5_000 }), isOwnedElsewhere("node-c"));

  // a heartbeat reconnects (its connection died with the server) and re-takes the lock
  assert.equal(await na.beat(), true);
  while (!(await liveness(b, "node-d", 5_000)).seenSinceStart) {
    assert.ok(performance.now() - restarted < 5_000, "node-d's heartbeat timer did not re-take its lock");
    await sleep(20);
  }
  t.diagnostic(`node-d's heartbeat timer held its lock again ${(performance.now() - restarted).toFixed(0)} ms after the restart`);
  assert.deepEqual([na.holdsLock, nd.holdsLock, nc.holdsLock], [true, true, false]);
  await sleep(300);
  // node-a's last_seen is now older than 1 ms, but it holds its lock: alive
  assert.deepEqual(await liveness(b, "node-a", 1), { known: true, lockFree: false, seenSinceStart: true, stale: true, dead: false });
  await assert.rejects(takeOwnership(b, SID, "node-b", { deadAfterMs: 1 }), isOwnedElsewhere("node-a"));
  // node-c: lock free and last_seen older than the threshold: dead
  assert.deepEqual(await liveness(b, "node-c", 250), { known: true, lockFree: true, seenSinceStart: false, stale: true, dead: true });
  const own = await takeOwnership(b, SID2, "node-b", { deadAfterMs: 250 });
  assert.equal(own.epoch, 2);
  // node-c coming back late re-takes its lock but has lost the session
  assert.equal(await nc.beat(), true);
  await assert.rejects(appendEntries(b, { sessionId: SID2, nodeId: "node-c", epoch: 1, nextSeq: 1, leaseExpires: new Date() }, [entry("late")]), Fenced);
  await appendEntries(b, own, [entry("b1")]);
});
