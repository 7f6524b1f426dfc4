// Node liveness, so a dead owner's sessions can be taken at once instead of after its lease.
//
// A node registers (registerNode): it opens a connection of its own, takes a session-level
// advisory lock keyed by its node id on it and keeps both for as long as it lives, and upserts its
// row in `nodes` (id, url, roots, last_seen). It heartbeats every few seconds (DEFAULT_HEARTBEAT_MS) on
// that connection: last_seen = now(), but only while it holds the lock (re-taking it first if the
// connection or the server went away), so a last_seen written after the server started proves
// the node held its lock in this server's lifetime.
//
// When a node's process dies (kill -9 included), the kernel closes its socket, its backend exits
// within milliseconds and the lock is free. A node is DEAD when (1) its lock can be taken by
// someone else (pg_try_advisory_lock, then unlocked at once, in one CASE so the unlock always runs
// when the lock was got) AND (2) either its last_seen is from before now() - deadAfterMs (stale),
// or its last_seen is from after pg_postmaster_start_time(): it held the lock since the server
// started, and does not any more. After a PostgreSQL restart every advisory lock is gone at once:
// a node whose last_seen is from the previous server is then dead only once that last_seen is
// stale, i.e. when its heartbeat has not re-taken the lock within deadAfterMs (default 2x the
// heartbeat). Until then its sessions are taken as before: lease expiry or force.
//
// The key is the two-int form (NODE_LOCK_CLASS, hashtext(node id)): a lock space apart from the
// one-bigint keys (migrations.ts). Two node ids may hash alike (32 bits). Registration takes the
// lock with pg_try_advisory_lock and fails with NodeLockHeld if it is held, so two live nodes never
// share a key (a second daemon with the same id, or a colliding id: the error names the other id
// with that hash if there is one in `nodes`). A collision can only make a dead node look alive (its
// key held by the other), never a live one dead: the take then falls back to the lease.
//
// Not covered: a backend crash that makes the postmaster reinitialise shared memory WITHOUT
// restarting (pg_postmaster_start_time stays) drops every lock too, and live nodes whose last_seen
// is from after the start then look dead until their next heartbeat: their sessions may be taken
// (fenced, so safe, only churn). The server's clock going back across a restart likewise.
// isDead must not run on a node's own lock connection (advisory locks are re-entrant per session).
import type { Client, ClientConfig, Pool, PoolClient } from "pg";

const DEFAULT_HEARTBEAT_MS = 3_000;
/** A node is stale when its last_seen is older than this (2 heartbeats). */
export const DEFAULT_DEAD_AFTER_MS = 2 * DEFAULT_HEARTBEAT_MS;
/** The first int of a node's advisory lock key ("pith" in ASCII). */
const NODE_LOCK_CLASS = 0x70697468;

/** registerNode while the node's lock is held by another connection (the same id live elsewhere, or a hash collision). */
export class NodeLockHeld extends Error {
  readonly code = "NodeLockHeld" as const;
  constructor(
    readonly nodeId: string,
    readonly collidesWith: string | undefined,
  ) {
    super(
      collidesWith
        ? `node id ${nodeId} hashes to the same lock key as live node ${collidesWith}: choose another id`
        : `node ${nodeId} is already live (its advisory lock is held by another connection)`,
    );
    this.name = "NodeLockHeld";
  }
}

export interface NodeOptions {
  /** the URL other nodes redirect clients to */
  url?: string;
  /** the workspace roots this node reaches (absolute); undefined: it does not say (stored NULL: any directory) */
  roots?: string[];
  /** heartbeat period (default 3 s); 0: no timer, the caller calls beat() */
  heartbeatMs?: number;
  /** errors of background heartbeats (default: ignored; the next beat retries) */
  onError?: (err: Error) => void;
}

/** A live node: the lock connection and the heartbeat. close() ends both (the node is dead at once). */
export interface NodePresence {
  readonly nodeId: string;
  /** whether the lock was held after the last beat */
  readonly holdsLock: boolean;
  /** one heartbeat: reconnects and re-takes the lock if needed, then last_seen = now(); true if the lock is held */
  beat(): Promise<boolean>;
  /** changes the URL the node advertises (stored at once) */
  setUrl(url: string): Promise<void>;
  close(): Promise<void>;
}

const LOCK = "pg_try_advisory_lock($2::int, hashtext($1))";

/** Holds the lock if it can, then, only if it does, records last_seen; returns whether it holds it. */
async function lockAndTouch(client: Client, nodeId: string, url: string | null, roots: string[] | null): Promise<boolean> {
  const res = await client.query<{ held: boolean }>(
    `WITH l AS (SELECT ${LOCK} AS held),
          up AS (INSERT INTO nodes (id, url, roots, last_seen) SELECT $1, $3, $4::text[], now() FROM l WHERE l.held
                 ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, roots = EXCLUDED.roots, last_seen = EXCLUDED.last_seen)
     SELECT held FROM l`,
    [nodeId, NODE_LOCK_CLASS, url, roots],
  );
  return res.rows[0].held;
}

/**
 * Registers `nodeId`: a dedicated connection holding its lock, its nodes row, a heartbeat.
 * Throws NodeLockHeld if the lock is held elsewhere.
 */
export async function registerNode(config: ClientConfig, nodeId: string, opts: NodeOptions = {}): Promise<NodePresence> {
  const pg = (await import("pg")).default;
  let url = opts.url ?? null;
  const roots = opts.roots ?? null;
  const onError = opts.onError ?? (() => {});
  let client: Client | undefined;
  let held = false;
  let closed = false;
  let beating: Promise<boolean> | undefined;

  const connect = async (): Promise<Client> => {
    const c = new pg.Client(config);
    // A dropped connection (server restart, crash) errors here; the next beat reconnects.
    c.on("error", () => {
      if (client === c) client = undefined;
      held = false;
      c.end().catch(() => {});
    });
    c.on("end", () => {
      if (client === c) client = undefined;
      held = false;
    });
    await c.connect();
    return c;
  };

  const once = async (retry = true): Promise<boolean> => {
    const reused = client !== undefined;
    try {
      client ??= await connect();
      // re-taking a held session lock would stack a second hold: only when not held
      held = held ? (await client.query("UPDATE nodes SET last_seen = now() WHERE id = $1", [nodeId]), true) : await lockAndTouch(client, nodeId, url, roots);
    } catch (err) {
      held = false;
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
      if (reused && retry && !closed) return once(false); // the server dropped it (a restart): once more, anew
      throw err;
    }
    return held;
  };
  const beat = (): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    beating ??= once().finally(() => (beating = undefined));
    return beating;
  };

  if (!(await beat())) {
    const other = await client!.query<{ id: string }>("SELECT id FROM nodes WHERE id <> $1 AND hashtext(id) = hashtext($1) LIMIT 1", [nodeId]);
    await client!.end().catch(() => {});
    throw new NodeLockHeld(nodeId, other.rows[0]?.id);
  }
  const period = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const timer = period > 0 ? setInterval(() => beat().catch(onError), period) : undefined;
  timer?.unref();

  return {
    nodeId,
    get holdsLock() {
      return held;
    },
    beat,
    async setUrl(next: string) {
      url = next;
      await client?.query("UPDATE nodes SET url = $2 WHERE id = $1", [nodeId, next]);
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await beating?.catch(() => {});
      const c = client;
      client = undefined;
      held = false;
      await c?.end().catch(() => {}); // ending the session releases the lock
    },
  };
}

/** Why a node is (not) dead, as of one query. */
export interface Liveness {
  /** false if the node has no nodes row: it never registered, so it is never taken for dead */
  known: boolean;
  /** its advisory lock was free (and was released again at once) */
  lockFree: boolean;
  /** last_seen is from after the server started: it held its lock in this server's lifetime */
  seenSinceStart: boolean;
  /** last_seen is older than deadAfterMs */
  stale: boolean;
  dead: boolean;
}

/** The liveness of `nodeId`, seen from a connection that is not its lock connection. */
export async function liveness(db: Pool | PoolClient, nodeId: string, deadAfterMs = DEFAULT_DEAD_AFTER_MS): Promise<Liveness> {
  const res = await db.query<Omit<Liveness, "dead">>(
    `SELECT n.id IS NOT NULL AS known,
            CASE WHEN n.id IS NULL THEN false WHEN ${LOCK} THEN pg_advisory_unlock($2::int, hashtext($1)) ELSE false END AS "lockFree",
            coalesce(n.last_seen >= pg_postmaster_start_time(), false) AS "seenSinceStart",
            coalesce(n.last_seen < now() - $3 * interval '1 millisecond', false) AS stale
     FROM (SELECT 1) AS one LEFT JOIN nodes n ON n.id = $1`,
    [nodeId, NODE_LOCK_CLASS, deadAfterMs],
  );
  const r = res.rows[0];
  return { ...r, dead: r.known && r.lockFree && (r.seenSinceStart || r.stale) };
}

/** Whether `nodeId` is dead by the rule above. */
export async function isDead(db: Pool | PoolClient, nodeId: string, deadAfterMs = DEFAULT_DEAD_AFTER_MS): Promise<boolean> {
  return (await liveness(db, nodeId, deadAfterMs)).dead;
}
