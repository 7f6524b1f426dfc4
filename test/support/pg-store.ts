// The store tests' common start: a real PostgreSQL (test/support/postgres.ts), pools on it closed
// when the test ends, the schema migrated, and the sessions the test writes to created.
import assert from "node:assert/strict";
import type { Pool } from "pg";
import { migrate } from "../../src/session/postgres/migrations.js";
import { openPool } from "../../src/session/postgres/pool.js";
import { createSession } from "../../src/session/postgres/sessions.js";
import { startPostgres, type Postgres } from "./postgres.js";

type Hooks = { after(fn: () => unknown): void };

/** A pool on `server`, ended when the test ends. */
export async function testPool(t: Hooks, server: Postgres, max = 4): Promise<Pool> {
  const p = await openPool({ ...server.config, max });
  t.after(() => p.end().catch(() => {}));
  return p;
}

/** A migrated server with two pools (two writers) and the given sessions created. */
export async function storeWith(t: Hooks, sessionIds: readonly string[], max = 4): Promise<{ server: Postgres; a: Pool; b: Pool }> {
  const server = await startPostgres(t);
  const a = await testPool(t, server, max);
  const b = await testPool(t, server, max);
  await migrate(a);
  for (const id of sessionIds) assert.equal(await createSession(a, { type: "session", version: 3, id, timestamp: new Date().toISOString(), cwd: "/tmp/x" }), true, `session ${id} created`);
  return { server, a, b };
}
