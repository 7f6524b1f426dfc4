// The local copy of a session the PostgreSQL store opens: its header and every stored line, in
// seq order, written to a private file that SessionFile then reads as it reads any session file
// (synchronous, lazy, by byte span). The copy is a cache, never the truth: it is written anew on
// every open, after this node took the session (so no other node appends meanwhile), and removed
// on close. Lines are fetched in pages by primary key, so a 100k-entry session never sits in memory.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { Pool } from "pg";
import { PRIVATE_DIR } from "../atomic-write.js";
import { checkSessionId } from "../ids.js";

const PAGE = 2_000;

/** The folder of this node's copies; stale ones (left by a crash of an earlier run under this node id) are removed. */
export function prepareSpoolDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true });
}

/** The copy's file; an id that could leave the folder (`../x`) is refused, whoever let it through. */
export function spoolPath(dir: string, sessionId: string): string {
  return join(dir, `${checkSessionId(sessionId, "the session store")}.jsonl`);
}

/** Writes the copy of `sessionId`: its header line, then its lines with seq < beforeSeq. */
export async function writeSpool(pool: Pool, sessionId: string, header: string, file: string, beforeSeq: number): Promise<void> {
  rmSync(file, { force: true });
  const out = await open(file, "wx", 0o600);
  const page = (after: number) =>
    pool.query<{ seq: string; line: string }>("SELECT seq, line FROM entries WHERE session_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq LIMIT $4", [sessionId, after, beforeSeq, PAGE]);
  let next: ReturnType<typeof page> | undefined;
  try {
    await out.write(header + "\n");
    next = beforeSeq > 1 ? page(0) : undefined;
    while (next) {
      const res = await next;
      next = undefined;
      if (res.rows.length === 0) break;
      const last = Number(res.rows[res.rows.length - 1].seq);
      // the next page is fetched while this one is written
      if (res.rows.length === PAGE && last < beforeSeq - 1) next = page(last);
      let text = "";
      for (const r of res.rows) text += r.line + "\n";
      await out.write(text);
    }
  } finally {
    // a page still in flight when a write failed must not reject unheard
    await next?.catch(() => {});
    await out.close();
  }
}
