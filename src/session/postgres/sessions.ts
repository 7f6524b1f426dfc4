// Creating a session row: the header line, exactly as the JSONL file's line 1, plus the fields a
// listing shows without reading entries. Entries and ownership need the row (foreign keys).
import type { Pool } from "pg";
import type { SessionHeader } from "../types.js";

/** Inserts the session; false if a session with that id already exists (nothing changed). */
export async function createSession(pool: Pool, header: SessionHeader): Promise<boolean> {
  const res = await pool.query(
    `INSERT INTO sessions (id, header, cwd, created, modified) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (id) DO NOTHING`,
    [header.id, JSON.stringify(header), header.cwd, header.timestamp],
  );
  return res.rowCount === 1;
}
