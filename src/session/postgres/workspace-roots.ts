// Which node may take a session: one that reaches its cwd. A node advertises its workspace roots
// (--workspace-root, stored in nodes.roots); a node that gave none (roots NULL) is taken to reach
// any directory. A cwd is reached when it is a root or lies under one, by whole path segments:
// /a/b covers /a/b and /a/b/c, not /a/bc. Paths are compared as stored (path.resolve'd absolute
// paths, no symbolic links followed): the nodes must name a shared directory alike.
import { resolve, sep } from "node:path";
import type { Pool } from "pg";
import { SessionError } from "../session-error.js";
import type { SessionOwner } from "../durable-sink.js";
import { liveness } from "./nodes.js";

/** Whether `roots` reach `cwd`: no roots given (undefined or null) reaches every directory. */
export function covers(roots: readonly string[] | null | undefined, cwd: string): boolean {
  if (roots == null) return true;
  const dir = resolve(cwd);
  return roots.some((r) => {
    const root = resolve(r);
    return dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep);
  });
}

/**
 * A live node other than `selfId` that reaches `cwd` and advertised a URL, or undefined. The
 * session's current owner is tried first (the client would be relayed to it anyway), then by id.
 */
async function nodeReaching(pool: Pool, sessionId: string, cwd: string, selfId: string, deadAfterMs?: number): Promise<{ nodeId: string; url: string } | undefined> {
  const res = await pool.query<{ id: string; url: string | null; roots: string[] | null }>(
    `SELECT n.id, n.url, n.roots FROM nodes n LEFT JOIN owners o ON o.session_id = $1 AND o.node_id = n.id
     ORDER BY (o.node_id IS NULL), n.id`,
    [sessionId],
  );
  for (const n of res.rows) {
    if (n.id === selfId || !n.url || !covers(n.roots, cwd)) continue;
    if ((await liveness(pool, n.id, deadAfterMs)).dead === false) return { nodeId: n.id, url: n.url };
  }
  return undefined;
}

function rootsText(roots: readonly string[]): string {
  return roots.length ? roots.join(", ") : "none";
}

/** Refusing to create a session in a directory this node does not reach. */
export function cannotCreate(cwd: string, roots: readonly string[]): SessionError {
  return new SessionError("CwdUnreachable", `cannot create a session in ${cwd}: this node does not reach it (its workspace roots: ${rootsText(roots)})`, { cwd });
}

/**
 * Before this node takes a session: nothing if it reaches `cwd`; else SessionMoved naming a live
 * node that does (the RPC layer relays the client there), or CwdUnreachable.
 */
export async function checkReach(pool: Pool, o: { sessionId: string; cwd: string; selfId: string; roots: readonly string[] | undefined; deadAfterMs?: number }): Promise<void> {
  if (covers(o.roots, o.cwd)) return;
  const { sessionId, cwd } = o;
  const other = await nodeReaching(pool, sessionId, cwd, o.selfId, o.deadAfterMs);
  if (other) {
    const owner: SessionOwner = other;
    throw new SessionError("SessionMoved", `session ${sessionId} works in ${cwd}, which this node does not reach: node ${other.nodeId} (${other.url}) does`, { sessionId, owner });
  }
  throw new SessionError(
    "CwdUnreachable",
    `session ${sessionId} works in ${cwd}, which this node does not reach (its workspace roots: ${rootsText(o.roots ?? [])}) and no live node that does is known`,
    { sessionId, cwd },
  );
}
