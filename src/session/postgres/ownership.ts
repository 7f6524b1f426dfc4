// Fenced single-writer ownership of a session shared by several daemons through one database.
//
// A node takes a session (takeOwnership), which bumps the session's epoch in `owners`: the
// (node, epoch) pair is the fencing token. It renews its lease while it writes (renewLease,
// every few seconds; the TTL defaults to 10 s). Another node may take the session once the lease
// has expired, or at once with `force`; re-taking one's own session bumps the epoch too. Every
// append is ONE statement that inserts only while the owners row still holds the writer's node
// and epoch, reading that row FOR SHARE: a takeover's update of the row waits for appends in
// flight to commit, and an append waiting behind a takeover re-reads the row and inserts nothing.
// Without the lock an append could read the old epoch, lose the race to the takeover, and commit
// after the new owner had read where the log ends. The writer says at which seq its entries go
// (takeOwnership returns the next one; an append returns the one after): seqs are contiguous,
// and a seq already taken fails on the primary key instead of leaving a gap or a fork.
//
// Times are the database's clock (now()), never a node's, so nodes with skewed clocks agree on
// when a lease expires.
//
// A take also succeeds at once, without force, when the owner node is dead (nodes.ts: its
// advisory lock is free and its last_seen says it is not just a server restart): compare-and-set
// on the (node, epoch) seen, so two takers of one dead owner's session do not both win.
//
// An append also keeps the sessions row's listing fields current (modified, message_count, and
// name / first_message when the caller says they changed), in the same statement.
import type { Pool, PoolClient } from "pg";
import { Fenced, NoSuchSession, OwnedElsewhere, SeqConflict, type OwnerInfo } from "./ownership-errors.js";
import type { SinkLine } from "../durable-sink.js";
import type { EntryBase } from "../types.js";
import { DEFAULT_DEAD_AFTER_MS, isDead } from "./nodes.js";

export const DEFAULT_LEASE_MS = 10_000;

/** The fencing token a node writes with, and where its next entry goes. */
export interface Ownership {
  sessionId: string;
  nodeId: string;
  epoch: number;
  /** the seq of the next entry to append (1 for an empty session) */
  nextSeq: number;
  leaseExpires: Date;
}

export interface TakeOptions {
  /** lease length in ms (default 10 s) */
  leaseMs?: number;
  /** take it even from a live owner (its next write is Fenced) */
  force?: boolean;
  /** a registered owner whose lock is free is dead once its last_seen is this old (default 6 s; see nodes.ts) */
  deadAfterMs?: number;
}

/** An entry as stored: its JSON line exactly, with its place and the epoch that wrote it. */
export interface StoredEntry {
  seq: number;
  id: string;
  parentId: string | null;
  type: string;
  line: string;
  epoch: number;
}

interface OwnerRow {
  node_id: string | null;
  epoch: string;
  lease_expires: Date;
}

const ownerInfo = (r: OwnerRow): OwnerInfo => ({ nodeId: r.node_id, epoch: Number(r.epoch), leaseExpires: r.lease_expires });

/** The session's owners row now, or undefined if it has never been taken. */
async function currentOwner(pool: Pool | PoolClient, sessionId: string): Promise<OwnerInfo | undefined> {
  const res = await pool.query<OwnerRow>("SELECT node_id, epoch, lease_expires FROM owners WHERE session_id = $1", [sessionId]);
  return res.rows[0] && ownerInfo(res.rows[0]);
}

/**
 * Makes `nodeId` the session's writer at a new epoch, if nobody holds it, the lease expired,
 * `nodeId` already holds it, `force`, or the owner node is dead (nodes.ts). Throws OwnedElsewhere otherwise, NoSuchSession if there
 * is no sessions row. Returns the token and the seq the next entry goes at.
 */
export async function takeOwnership(pool: Pool, sessionId: string, nodeId: string, opts: TakeOptions = {}): Promise<Ownership> {
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query("BEGIN");
    let res;
    try {
      res = await client.query<{ epoch: string; lease_expires: Date }>(
        `INSERT INTO owners AS o (session_id, node_id, epoch, lease_expires)
         VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
         ON CONFLICT (session_id) DO UPDATE
           SET node_id = EXCLUDED.node_id, epoch = o.epoch + 1, lease_expires = EXCLUDED.lease_expires
           WHERE o.node_id IS NULL OR o.node_id = EXCLUDED.node_id OR o.lease_expires <= now() OR $4::boolean
         RETURNING epoch, lease_expires`,
        [sessionId, nodeId, leaseMs, opts.force === true],
      );
    } catch (err) {
      if ((err as { code?: string }).code === "23503") throw new NoSuchSession(sessionId);
      throw err;
    }
    if (res.rowCount !== 1) {
      let owner = (await currentOwner(client, sessionId))!;
      if (owner.nodeId !== null && (await isDead(client, owner.nodeId, opts.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS))) {
        res = await client.query<{ epoch: string; lease_expires: Date }>(
          `UPDATE owners SET node_id = $2, epoch = epoch + 1, lease_expires = now() + $3 * interval '1 millisecond'
           WHERE session_id = $1 AND node_id = $4 AND epoch = $5 RETURNING epoch, lease_expires`,
          [sessionId, nodeId, leaseMs, owner.nodeId, owner.epoch],
        );
        if (res.rowCount !== 1) owner = (await currentOwner(client, sessionId))!;
      }
      if (res.rowCount !== 1) {
        await client.query("ROLLBACK");
        throw new OwnedElsewhere(sessionId, owner);
      }
    }
    // A new statement, so a new snapshot: every append of an older epoch that committed did so
    // before the row lock above was granted, and none can commit after it.
    const next = await client.query<{ next: string }>("SELECT coalesce(max(seq), 0) + 1 AS next FROM entries WHERE session_id = $1", [sessionId]);
    await client.query("COMMIT");
    const row = res.rows[0];
    return { sessionId, nodeId, epoch: Number(row.epoch), nextSeq: Number(next.rows[0].next), leaseExpires: row.lease_expires };
  } catch (err) {
    if (!(err instanceof OwnedElsewhere)) {
      failed = err as Error;
      await client.query("ROLLBACK").catch(() => {});
    }
    throw err;
  } finally {
    client.release(failed);
  }
}

/** Extends the lease from now; Fenced if the token is no longer the owner. Updates `own.leaseExpires`. */
export async function renewLease(pool: Pool, own: Ownership, leaseMs = DEFAULT_LEASE_MS): Promise<Date> {
  const res = await pool.query<{ lease_expires: Date }>(
    `UPDATE owners SET lease_expires = now() + $4 * interval '1 millisecond'
     WHERE session_id = $1 AND node_id = $2 AND epoch = $3 RETURNING lease_expires`,
    [own.sessionId, own.nodeId, own.epoch, leaseMs],
  );
  if (res.rowCount !== 1) throw new Fenced(own.sessionId, await currentOwner(pool, own.sessionId));
  own.leaseExpires = res.rows[0].lease_expires;
  return own.leaseExpires;
}

/** Gives the session up (anyone may take it at once); false if the token was no longer the owner. */
export async function releaseOwnership(pool: Pool, own: Ownership): Promise<boolean> {
  const res = await pool.query(
    "UPDATE owners SET node_id = NULL, lease_expires = now() WHERE session_id = $1 AND node_id = $2 AND epoch = $3",
    [own.sessionId, own.nodeId, own.epoch],
  );
  return res.rowCount === 1;
}

/** An entry to append: its JSON line exactly as it will be exported, and the fields indexed beside it. */
export type EntryLine = SinkLine;

/** Listing fields an append changes: a new name ("" clears it), the session's first user message. */
export interface ListingChange {
  name?: string;
  firstMessage?: string;
}

/** appendLines of entries serialized with JSON.stringify. */
export function appendEntries(pool: Pool, own: Ownership, entries: readonly EntryBase[]): Promise<number> {
  return appendLines(pool, own, entries.map((e) => ({ id: e.id, parentId: e.parentId, type: e.type, line: JSON.stringify(e) })));
}

/**
 * Appends entries (a turn's, or one) at seqs own.nextSeq, own.nextSeq + 1, ... in ONE statement:
 * all or nothing. On success advances own.nextSeq and returns it. Fenced (nothing written) if
 * another node took the session or it was released; SeqConflict if the owner's nextSeq is taken.
 */
export async function appendLines(pool: Pool, own: Ownership, entries: readonly EntryLine[], listing: ListingChange = {}): Promise<number> {
  if (entries.length === 0) return own.nextSeq;
  let inserted: number;
  try {
    const res = await pool.query<{ n: number }>(
      `WITH ins AS (
         INSERT INTO entries (session_id, seq, id, parent_id, type, line, epoch)
         SELECT o.session_id, $4::bigint + e.ord - 1, e.id, e.parent_id, e.type, e.line, o.epoch
         FROM owners o, unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS e (id, parent_id, type, line, ord)
         WHERE o.session_id = $1 AND o.node_id = $2 AND o.epoch = $3
         FOR SHARE OF o
         RETURNING type
       ), touched AS (
         UPDATE sessions SET modified = now(), message_count = message_count + (SELECT count(*) FROM ins WHERE type = 'message'),
           name = CASE WHEN $9::text IS NULL THEN name ELSE nullif($9::text, '') END,
           first_message = coalesce(first_message, $10::text)
         WHERE id = $1 AND EXISTS (SELECT 1 FROM ins)
       )
       SELECT count(*)::int AS n FROM ins`,
      [own.sessionId, own.nodeId, own.epoch, own.nextSeq, entries.map((e) => e.id), entries.map((e) => e.parentId), entries.map((e) => e.type), entries.map((e) => e.line), listing.name ?? null, listing.firstMessage ?? null],
    );
    inserted = res.rows[0].n;
  } catch (err) {
    if ((err as { code?: string }).code !== "23505") throw err;
    // The seq is taken: by a new owner (we are fenced) or by ourselves (a wrong nextSeq).
    const owner = await currentOwner(pool, own.sessionId);
    if (owner && owner.nodeId === own.nodeId && owner.epoch === own.epoch) throw new SeqConflict(own.sessionId, own.nextSeq);
    throw new Fenced(own.sessionId, owner);
  }
  if (inserted !== entries.length) throw new Fenced(own.sessionId, await currentOwner(pool, own.sessionId));
  own.nextSeq += entries.length;
  return own.nextSeq;
}

/** The session's entries from `fromSeq` (default 1) on, in seq order. */
export async function readEntries(pool: Pool, sessionId: string, fromSeq = 1): Promise<StoredEntry[]> {
  const res = await pool.query<{ seq: string; id: string; parent_id: string | null; type: string; line: string; epoch: string }>(
    "SELECT seq, id, parent_id, type, line, epoch FROM entries WHERE session_id = $1 AND seq >= $2 ORDER BY seq",
    [sessionId, fromSeq],
  );
  return res.rows.map((r) => ({ seq: Number(r.seq), id: r.id, parentId: r.parent_id, type: r.type, line: r.line, epoch: Number(r.epoch) }));
}
