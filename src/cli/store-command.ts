// `pith store import FILE...`, `pith store export SESSION_ID [--out FILE]` and `pith list` on the
// PostgreSQL store. main.ts has parsed and checked the arguments and the store. These need no
// node: a pool and the schema are enough (an import is owned by nobody until a daemon opens it).
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import type { Pool } from "pg";
import type { Logger } from "pino";
import { HostError } from "../host/host-error.js";
import { checkWorkspace } from "../host/policy/workspace.js";
import { SessionError, defaultSessionsDir, pithHome, type SessionSummary } from "../session/index.js";
import { parseObject } from "../session/listing-fields.js";
import type { StoreConfig } from "./store-config.js";
import { printErr, printOut } from "./terminal-out.js";

type PostgresStore = Extract<StoreConfig, { kind: "postgres" }>;

async function withPool<T>(store: PostgresStore, log: Logger, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const { openPool } = await import("../session/postgres/pool.js");
  const { migrate } = await import("../session/postgres/migrations.js");
  const pool = await openPool({ connectionString: store.url, max: 2 }, (err) => log.warn({ err }, "a session store connection failed"));
  try {
    await migrate(pool);
    return await fn(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** Each file imported in turn; one that fails is said and the others still go in. Exit 1 if any failed. */
async function importFiles(pool: Pool, files: readonly string[]): Promise<number> {
  const { insertSession, readSessionLines } = await import("../session/postgres/pg-interop.js");
  let failed = 0;
  for (const file of files) {
    try {
      const lines = await readSessionLines(file);
      // an imported session opens by id later, as the store's own: its cwd is checked as a file's now
      checkWorkspace((parseObject(lines.header) ?? {}).cwd, "file", { pithPaths: [pithHome(), defaultSessionsDir()] });
      const id = await insertSession(pool, lines);
      printOut(`imported ${file} as ${id} (${lines.entries.length} entries${lines.skipped ? `, ${lines.skipped} lines that were not entries left out` : ""})\n`);
    } catch (err) {
      failed++;
      const e = err as NodeJS.ErrnoException;
      printErr(`pith: ${file}: ${err instanceof SessionError ? `${err.code}: ` : err instanceof HostError ? `${String((err.data as { reason?: unknown } | undefined)?.reason)}: ` : typeof e?.code === "string" ? `${e.code}: ` : ""}${e?.message ?? String(err)}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

/** The stored session as a JSONL file, on stdout or into a new file `out` (never over an existing one). */
async function exportTo(pool: Pool, sessionId: string, out: string | undefined): Promise<number> {
  const { exportSession } = await import("../session/postgres/pg-interop.js");
  const stream = out ? createWriteStream(out, { flags: "wx", mode: 0o600 }) : process.stdout;
  const write = async (text: string) => {
    if (!stream.write(text)) await once(stream, "drain");
  };
  try {
    const { entries } = await exportSession(pool, sessionId, write);
    if (out) {
      await new Promise<void>((resolve, reject) => (stream as ReturnType<typeof createWriteStream>).end((err?: Error | null) => (err ? reject(err) : resolve())));
      printErr(`exported ${sessionId} to ${out} (${entries} entries)\n`);
    }
    return 0;
  } catch (err) {
    if (out) (stream as ReturnType<typeof createWriteStream>).destroy();
    throw err;
  }
}

export async function runStoreCommand(args: { command: "import"; files: string[] } | { command: "export"; sessionId: string; out?: string }, store: PostgresStore, log: Logger): Promise<number> {
  try {
    return await withPool(store, log, (pool) => (args.command === "import" ? importFiles(pool, args.files) : exportTo(pool, args.sessionId, args.out)));
  } catch (err) {
    // (a refused connection is an AggregateError: a code and an empty message)
    const e = err as NodeJS.ErrnoException;
    printErr(`pith: ${err instanceof SessionError ? `${err.code}: ` : typeof e?.code === "string" ? `${e.code}: ` : ""}${e?.message || String(err)}\n`);
    return 1;
  }
}

export async function listStoreSessions(store: PostgresStore, opts: { cwd?: string }, log: Logger): Promise<SessionSummary[]> {
  const { listStoredSessions } = await import("../session/postgres/listing.js");
  return withPool(store, log, (pool) => listStoredSessions(pool, opts));
}
