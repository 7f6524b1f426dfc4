// The PostgreSQL session store's schema, versioned in code. `migrate(pool)` runs at start on every
// daemon: it applies, in one transaction, the migrations the database has not seen, and records
// each in schema_migrations. Several daemons may start at once against one database, so the
// transaction first takes a transaction-level advisory lock (released by COMMIT or ROLLBACK, or by
// the server when the connection dies): the second one waits, then finds everything applied and
// does nothing. The lock is taken before even creating schema_migrations, since two concurrent
// CREATE TABLE IF NOT EXISTS can both miss the table and one then fails.
//
// Tables: sessions (the header line and the fields a listing shows), entries (every entry line
// of every session, exactly as written, numbered by a contiguous per-session seq, with the epoch
// of the owner that wrote it), owners (who may write a session: the fencing token), nodes (the
// daemons: liveness, redirects, and (version 2) the workspace roots each reaches). Migrations are append-only: never edit one that
// shipped, add the next version.
import type { Pool } from "pg";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, entries, owners, nodes",
    sql: `
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        header text NOT NULL,            -- line 1 of the JSONL file, exactly
        cwd text NOT NULL,
        name text,
        created timestamptz NOT NULL,
        modified timestamptz NOT NULL,
        message_count integer NOT NULL DEFAULT 0,
        first_message text
      );
      CREATE TABLE entries (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL CHECK (seq >= 1),
        id text NOT NULL,
        parent_id text,
        type text NOT NULL,
        line text NOT NULL,              -- the entry's JSON line, exactly
        epoch bigint NOT NULL,           -- the owner's epoch that wrote it
        PRIMARY KEY (session_id, seq)
      );
      CREATE INDEX entries_by_id ON entries (session_id, id);
      CREATE TABLE owners (
        session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        node_id text,                    -- null once released; the epoch stays and only grows
        epoch bigint NOT NULL CHECK (epoch >= 1),
        lease_expires timestamptz NOT NULL
      );
      CREATE TABLE nodes (
        id text PRIMARY KEY,
        url text,
        last_seen timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: "nodes.roots",
    // the workspace roots a node reaches (--workspace-root); NULL: it did not say, so any directory
    sql: `ALTER TABLE nodes ADD COLUMN roots text[];`,
  },
];

/** The advisory lock key migrations take (any constant; this one spells "pithmigr" in ASCII). */
const MIGRATION_LOCK_KEY = "8100950336465300338";

/** Applies the migrations this database lacks; returns the versions it applied (empty if none). */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  let failed: unknown;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (err) {
    failed = err;
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release(failed instanceof Error ? failed : undefined);
  }
}
