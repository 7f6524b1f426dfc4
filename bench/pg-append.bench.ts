// PostgreSQL append bench (part of `npm run bench -- store`): entries appended per second through
// the fenced append (src/session/postgres/ownership.ts) on a real PostgreSQL started in a temp dir
// (fsync on), one commit per entry and one commit per turn of 8 entries, beside the file store
// appending the same entries with an fsync each, in the same run. Entries are message-shaped
// (user text, assistant text, a tool result) of a few hundred bytes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "../src/session/postgres/migrations.js";
import { appendEntries, takeOwnership } from "../src/session/postgres/ownership.js";
import { openPool } from "../src/session/postgres/pool.js";
import { createSession } from "../src/session/postgres/sessions.js";
import { SessionFile } from "../src/session/session-file.js";
import type { EntryBase } from "../src/session/types.js";
import { Cleanup } from "../test/support/daemon-client.js";
import { postgresSkip, startPostgres } from "../test/support/postgres.js";
import { round, table } from "./util.js";

const TURN = 8;

function entryAt(i: number, parentId: string | null): EntryBase & Record<string, unknown> {
  const role = i % 3 === 0 ? "user" : i % 3 === 1 ? "assistant" : "toolResult";
  return {
    type: "message",
    id: `e${i.toString(16).padStart(7, "0")}`,
    parentId,
    timestamp: new Date(1_700_000_000_000 + i).toISOString(),
    message: { role, content: [{ type: "text", text: `entry ${i}: ` + "some words of a reply ".repeat(12) }], timestamp: 1_700_000_000_000 + i },
  } as EntryBase & Record<string, unknown>;
}

async function pgRate(url: string, n: number, perCommit: number): Promise<number> {
  const pool = await openPool({ connectionString: url, max: 2 });
  try {
    await migrate(pool);
    const id = `bench-${perCommit}-${Date.now()}`;
    await createSession(pool, { type: "session", version: 3, id, timestamp: new Date().toISOString(), cwd: "/bench" });
    const own = await takeOwnership(pool, id, "bench-node");
    let parent: string | null = null;
    const t0 = performance.now();
    for (let i = 0; i < n; i += perCommit) {
      const batch: EntryBase[] = [];
      for (let j = i; j < Math.min(n, i + perCommit); j++) {
        const e = entryAt(j, parent);
        parent = e.id;
        batch.push(e);
      }
      await appendEntries(pool, own, batch);
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await pool.end();
  }
}

function fileRate(n: number): number {
  const dir = mkdtempSync(join(tmpdir(), "pith-pg-bench-"));
  try {
    const file = SessionFile.create({ cwd: "/bench", sessionsDir: dir });
    const t0 = performance.now();
    for (let i = 0; i < n; i++) file.appendMessage(entryAt(i, null).message as never, { sync: true });
    const rate = n / ((performance.now() - t0) / 1000);
    file.close();
    return rate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runPgAppendBench(n = Number(process.env.BENCH_PG_ENTRIES ?? 2000)) {
  if (postgresSkip) {
    console.log(`PostgreSQL appends: skipped (${postgresSkip.split("\n")[0]})`);
    return { bench: "pg-append", skipped: postgresSkip };
  }
  const hooks = new Cleanup();
  try {
    const pg = await startPostgres(hooks);
    const file = fileRate(n);
    const one = await pgRate(pg.url, n, 1);
    const turn = await pgRate(pg.url, n, TURN);
    console.log(`\nappends per second (${n} entries, fsync on everywhere):`);
    console.log(
      table([
        ["store", "entries/s", "÷ file+fsync"],
        ["file, fsync each", round(file), 1],
        ["PostgreSQL, a commit each", round(one), round(one / file, 2)],
        [`PostgreSQL, a commit per ${TURN} (a turn)`, round(turn), round(turn / file, 2)],
      ]),
    );
    const result = { bench: "pg-append", entries: n, fileFsyncPerSec: round(file), pgCommitEachPerSec: round(one), pgCommitPerTurnPerSec: round(turn) };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
  }
}
