// A listing of the PostgreSQL store's sessions, from the sessions table alone (its listing columns
// are kept current by every append: ownership.ts): no entry is read.
import { resolve } from "node:path";
import type { Pool } from "pg";
import type { SessionSummary } from "../list.js";

/** How a listing and getState name a stored session's file. */
export const PG_LOCATOR_PREFIX = "pg:";

/** Every session (or a cwd's), newest first. */
export async function listStoredSessions(pool: Pool, options: { cwd?: string } = {}): Promise<SessionSummary[]> {
  const res = await pool.query<{ id: string; header: string; cwd: string; name: string | null; created: Date; modified: Date; message_count: number; first_message: string | null }>(
    `SELECT id, header, cwd, name, created, modified, message_count, first_message FROM sessions
     WHERE $1::text IS NULL OR cwd = $1 ORDER BY modified DESC, id`,
    [options.cwd === undefined ? null : resolve(options.cwd)],
  );
  return res.rows.map((r) => {
    const parent = (JSON.parse(r.header) as { parentSession?: unknown }).parentSession;
    return {
      id: r.id,
      file: PG_LOCATOR_PREFIX + r.id,
      cwd: r.cwd,
      ...(r.name ? { name: r.name } : {}),
      ...(typeof parent === "string" ? { parentSession: parent } : {}),
      created: r.created.toISOString(),
      modified: r.modified.toISOString(),
      messageCount: r.message_count,
      firstMessage: r.first_message ?? "",
    };
  });
}
