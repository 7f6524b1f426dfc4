// Workspace roots (docs/fleet.md): a node takes a session only when it reaches the session's cwd.
// Otherwise its open names a live node that does (SessionMoved, which the RPC layer relays to), or
// says nobody does (CwdUnreachable); it creates sessions only where it reaches.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { createLogger } from "../../src/log/logger.js";
import { PgSessionStore } from "../../src/session/postgres/pg-store.js";
import { covers } from "../../src/session/postgres/workspace-roots.js";
import { startPostgres, postgresSkip, type Postgres } from "../support/postgres.js";

if (postgresSkip) process.stderr.write(`[pg roots tests] skipped: ${postgresSkip}\n`);

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

async function node(t: TestContext, server: Postgres, nodeId: string, opts: { nodeUrl?: string; workspaceRoots?: string[] }): Promise<PgSessionStore> {
  const store = await PgSessionStore.connect({ url: server.url, nodeId, spoolDir: temp("pith-spool-"), logger: createLogger("silent"), heartbeatMs: 0, ...opts });
  t.after(() => store.close().catch(() => {}));
  return store;
}

type Err = { code?: string; message?: string; data?: Record<string, unknown> };

test("covers: a root covers itself and what lies under it, by whole path segments", () => {
  assert.equal(covers(["/a/b"], "/a/b"), true);
  assert.equal(covers(["/a/b"], "/a/b/c"), true);
  assert.equal(covers(["/a/b"], "/a/b/c/d/"), true);
  assert.equal(covers(["/a/b/"], "/a/b"), true);
  assert.equal(covers(["/a/b"], "/a/bc"), false);
  assert.equal(covers(["/a/b"], "/a"), false);
  assert.equal(covers(["/a/b"], "/x/a/b"), false);
  assert.equal(covers(["/x", "/a/b"], "/a/b/c"), true);
  assert.equal(covers(["/"], "/anything/at/all"), true);
  assert.equal(covers(undefined, "/anywhere"), true, "no roots given: any directory");
  assert.equal(covers(null, "/anywhere"), true, "roots NULL: any directory");
  assert.equal(covers([], "/a"), false);
});

test("a node opens only sessions whose cwd it reaches: else it names a live node that does, or says none does", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const server = await startPostgres(t);
  const dirA = temp("pith-root-a-");
  const dirB = temp("pith-root-b-");
  const dirC = temp("pith-root-c-");
  const a = await node(t, server, "roots-a", { nodeUrl: "ws://127.0.0.1:1", workspaceRoots: [dirA] });
  const b = await node(t, server, "roots-b", { nodeUrl: "ws://127.0.0.1:2", workspaceRoots: [dirB] });
  const roots = await a.db.query<{ id: string; roots: string[] | null }>("SELECT id, roots FROM nodes ORDER BY id");
  assert.deepEqual(roots.rows, [
    { id: "roots-a", roots: [dirA] },
    { id: "roots-b", roots: [dirB] },
  ]);

  // a session in dirB, created by B and given up again: nobody owns it, A does not reach it, B does
  const inB = await b.create({ cwd: join(dirB) });
  const idB = inB.sessionId;
  await inB.closeAsync();
  await assert.rejects(a.open({ sessionId: idB }), (err: Err) => {
    assert.equal(err.code, "SessionMoved", String(err.message));
    assert.deepEqual(err.data, { sessionId: idB, owner: { nodeId: "roots-b", url: "ws://127.0.0.1:2" } });
    return true;
  });
  const owner = await a.db.query("SELECT node_id FROM owners WHERE session_id = $1", [idB]);
  assert.equal(owner.rows[0].node_id, null, "A did not take it");
  const again = await b.open({ sessionId: idB });
  await again.closeAsync();

  // A reaches its own root and what is under it
  const sub = join(dirA, "sub", "dir");
  mkdirSync(sub, { recursive: true });
  const inA = await a.create({ cwd: sub });
  await inA.closeAsync();
  const reopened = await a.open({ sessionId: inA.sessionId });
  await reopened.closeAsync();

  // a session in dirC, made by a node without roots (reaching anything) that is then gone: no live node reaches it
  const c = await node(t, server, "roots-c", { nodeUrl: "ws://127.0.0.1:3" });
  const nullRoots = await a.db.query("SELECT roots FROM nodes WHERE id = 'roots-c'");
  assert.equal(nullRoots.rows[0].roots, null, "no roots given: NULL");
  const inC = await c.create({ cwd: dirC });
  const idC = inC.sessionId;
  await inC.closeAsync();
  await c.close();
  for (const n of [a, b]) {
    await assert.rejects(n.open({ sessionId: idC }), (err: Err) => {
      assert.equal(err.code, "CwdUnreachable", String(err.message));
      assert.deepEqual(err.data, { sessionId: idC, cwd: dirC });
      assert.match(String(err.message), /which this node does not reach \(its workspace roots: .*\) and no live node that does is known/);
      return true;
    });
  }

  // a node creates sessions only where it reaches
  await assert.rejects(a.create({ cwd: dirB }), (err: Err) => {
    assert.equal(err.code, "CwdUnreachable", String(err.message));
    assert.deepEqual(err.data, { cwd: dirB });
    return true;
  });
  await assert.rejects(a.create({ cwd: dirA + "x" }), (err: Err) => err.code === "CwdUnreachable");
  const count = await a.db.query<{ n: string }>("SELECT count(*) AS n FROM sessions");
  assert.equal(Number(count.rows[0].n), 3, "nothing stored by the refused creates");
});
