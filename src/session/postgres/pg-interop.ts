// Moving whole sessions in and out of the PostgreSQL store: a session's lines inserted at once
// (an import of a Pi file, a fork), and a session written back out as a JSONL file. The stored
// header and lines are the text of the file's lines, so an export of a v3 file that was imported
// is byte for byte that file; v1 and v2 files are migrated to v3 on the way in (the export is
// then the migrated file). Lines that are not entries (blank, torn, malformed) are left out and
// counted.
import { readFile } from "node:fs/promises";
import type { Pool } from "pg";
import { SessionError } from "../session-error.js";
import { checkSessionId } from "../ids.js";
import { isHeader } from "../load.js";
import { fileVersion, migrateLines, serializeLines, type FileLine } from "../migrate.js";
import { CURRENT_SESSION_VERSION } from "../types.js";
import { firstUserText, parseObject, sessionNameOf } from "../listing-fields.js";
import type { EntryLine } from "./ownership.js";

const INSERT_PAGE = 1_000;

/** A session as lines: the header's text and each entry's. */
export interface SessionLines {
  header: string;
  entries: EntryLine[];
  /** lines that were not entries and were left out */
  skipped: number;
  /** the latest entry timestamp */
  modified?: string;
}


/** A session file's text as lines, migrated to v3 if older. NotASession if line 1 is not a session header. */
export function sessionLinesOf(text: string, file: string): SessionLines {
  let lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const header = parseObject(lines[0] ?? "");
  if (!isHeader(header)) throw new SessionError("NotASession", `not a session file (its first line is not a session header): ${file}`, { file });
  if (fileVersion(header) < CURRENT_SESSION_VERSION) {
    const parsed: FileLine[] = lines.map((l) => {
      const json = parseObject(l);
      return json ? { json } : { raw: l };
    });
    lines = serializeLines(migrateLines(parsed)).split("\n");
    lines.pop();
  }
  // the id names the session in the database and, on every node that opens it, a file
  checkSessionId(header.id, file);
  const out: SessionLines = { header: lines[0].replace(/\r$/, ""), entries: [], skipped: 0 };
  for (const raw of lines.slice(1)) {
    const line = raw.replace(/\r$/, "");
    const e = parseObject(line);
    if (!e || typeof e.id !== "string" || typeof e.type !== "string") {
      if (line.trim() !== "") out.skipped++;
      continue;
    }
    out.entries.push({ id: e.id, parentId: typeof e.parentId === "string" ? e.parentId : null, type: e.type, line });
    if (typeof e.timestamp === "string" && (!out.modified || e.timestamp > out.modified)) out.modified = e.timestamp;
  }
  return out;
}

export async function readSessionLines(file: string): Promise<SessionLines> {
  return sessionLinesOf(await readFile(file, "utf8"), file);
}

/** The listing fields of a whole session. */
function listingOf(s: SessionLines): { name: string | null; firstMessage: string | null; messages: number } {
  let name: string | null = null;
  let firstMessage: string | null = null;
  let messages = 0;
  for (const e of s.entries) {
    if (e.type === "message") {
      messages++;
      firstMessage ??= firstUserText(e.line) ?? null;
    } else if (e.type === "session_info") name = sessionNameOf(e.line) ?? name;
  }
  return { name, firstMessage, messages };
}

/**
 * Inserts a whole session in one transaction, owned by nobody (epoch 1, released): any node may
 * open it at once. Returns its id; SessionError "InvalidEntry" if a session with that id exists.
 */
export async function insertSession(pool: Pool, s: SessionLines): Promise<string> {
  const header = parseObject(s.header) as { id: string; cwd?: unknown; timestamp: string };
  const listing = listingOf(s);
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query("BEGIN");
    const made = await client.query(
      `INSERT INTO sessions (id, header, cwd, created, modified, message_count, name, first_message)
       VALUES ($1, $2, $3, $4, greatest($4::timestamptz, coalesce($5::timestamptz, $4::timestamptz)), $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
      [header.id, s.header, typeof header.cwd === "string" ? header.cwd : "", header.timestamp, s.modified ?? null, listing.messages, listing.name, listing.firstMessage],
    );
    if (made.rowCount !== 1) throw new SessionError("InvalidEntry", `session ${header.id} is already in the store`, { sessionId: header.id, reason: "SessionExists" });
    await client.query("INSERT INTO owners (session_id, node_id, epoch, lease_expires) VALUES ($1, NULL, 1, now())", [header.id]);
    for (let i = 0; i < s.entries.length; i += INSERT_PAGE) {
      const page = s.entries.slice(i, i + INSERT_PAGE);
      await client.query(
        `INSERT INTO entries (session_id, seq, id, parent_id, type, line, epoch)
         SELECT $1, $2::bigint + e.ord - 1, e.id, e.parent_id, e.type, e.line, 1
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e (id, parent_id, type, line, ord)`,
        [header.id, i + 1, page.map((e) => e.id), page.map((e) => e.parentId), page.map((e) => e.type), page.map((e) => e.line)],
      );
    }
    await client.query("COMMIT");
    return header.id;
  } catch (err) {
    failed = err instanceof SessionError ? undefined : (err as Error);
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release(failed);
  }
}

/** Writes a stored session as a JSONL file's text, a page of lines at a time; SessionNotFound if there is none. */
export async function exportSession(pool: Pool, sessionId: string, write: (text: string) => Promise<void>): Promise<{ entries: number }> {
  const head = await pool.query<{ header: string }>("SELECT header FROM sessions WHERE id = $1", [sessionId]);
  if (head.rows.length === 0) throw new SessionError("SessionNotFound", `no session ${sessionId} in the store`, { sessionId });
  await write(head.rows[0].header + "\n");
  let after = 0;
  let entries = 0;
  for (;;) {
    const res = await pool.query<{ seq: string; line: string }>("SELECT seq, line FROM entries WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [sessionId, after, INSERT_PAGE * 2]);
    if (res.rows.length === 0) return { entries };
    let text = "";
    for (const r of res.rows) text += r.line + "\n";
    await write(text);
    entries += res.rows.length;
    after = Number(res.rows[res.rows.length - 1].seq);
  }
}
