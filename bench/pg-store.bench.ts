// PostgreSQL session store bench (part of `npm run bench -- store`), on a real PostgreSQL started in
// a temp dir (fsync on), through PgSessionStore (src/session/postgres/pg-store.ts) as the daemon
// uses it. Absolute times depend on the machine; the figures to compare are the ratios against
// baselines measured in the same run.
//
// 1. Open of a long session (BENCH_PG_OPEN_ENTRIES entries, default 100k) in two shapes of entry
//    (bench/shapes.ts: "tiny", short messages; "prose", messages of about a kilobyte), imported with
//    insertSession: PgSessionStore.open (take + spool + scan) and one buildContext, against the same
//    session as a JSONL file opened with SessionFile.openAsync and against one plain SELECT of
//    every line. Then where the open's time goes, each part timed on its own: the take, the spool
//    (paged SELECTs written to the local copy), the same pages fetched without writing, and what
//    the server alone spends reading the lines (scan + detoast, nothing sent).
// 2. Takeover after kill -9: a child node (bench/pg-owner-child.ts) owns a session with a 60 s
//    lease and writes to it; it is killed with SIGKILL and another node's open is retried every
//    5 ms until it succeeds. The liveness check (nodes.ts) is what keeps this from taking the lease.
// 3. Appends through a SessionFile of the store (its PgSink), waiting for flushed() after each
//    entry and after each turn of 8, against the file store with an fsync each.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "../src/log/logger.js";
import { insertSession, sessionLinesOf } from "../src/session/postgres/pg-interop.js";
import { PgSessionStore } from "../src/session/postgres/pg-store.js";
import { releaseOwnership, takeOwnership } from "../src/session/postgres/ownership.js";
import { writeSpool } from "../src/session/postgres/spool.js";
import { SessionFile } from "../src/session/session-file.js";
import { Cleanup } from "../test/support/daemon-client.js";
import { postgresSkip, startPostgres } from "../test/support/postgres.js";
import { writeShape, type ShapeName } from "./shapes.js";
import { sampleMessages } from "./store.bench.js";
import { collectGarbage, median, mib, round, table } from "./util.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 3;
const TAKEOVERS = 5;
const CHILD_LEASE_MS = 60_000;
const RETRY_MS = 5;
const TURN = 8;
const SPOOL_PAGE = 2_000; // spool.ts's page
const SHAPES: ShapeName[] = ["tiny", "prose"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const logger = createLogger("silent");

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// -- 1. open ---------------------------------------------------------------------------------------

interface Session {
  shape: ShapeName;
  file: string;
  id: string;
  header: string;
  entries: number;
  bytes: number;
}

/** A `shape` session of exactly `n` entries: the generator's output cut after its n-th entry (every reference points back, so the cut is a valid session). */
function generate(dir: string, shape: ShapeName, n: number): Session {
  const file = join(dir, `${shape}.jsonl`);
  const sample = writeShape(file, shape, 1e6);
  let target = Math.ceil((n * sample.bytes) / sample.entries) * 1.05 + 1e6;
  while (writeShape(file, shape, target).entries < n) target *= 1.2; // same seed: a longer run has the same first n entries
  const text = readFileSync(file, "utf8");
  let end = -1;
  for (let i = 0; i <= n; i++) end = text.indexOf("\n", end + 1); // header + n entries
  const cut = text.slice(0, end + 1);
  writeFileSync(file, cut);
  const header = cut.slice(0, cut.indexOf("\n"));
  return { shape, file, id: (JSON.parse(header) as { id: string }).id, header, entries: n, bytes: Buffer.byteLength(cut) };
}

interface OpenFigures {
  shape: ShapeName;
  entries: number;
  bytes: number;
  insertMs: number;
  fileOpenMs: number;
  fileContextMs: number;
  selectMs: number;
  pgOpenMs: number;
  pgContextMs: number;
  /** pg open ÷ file open */
  vsFile: number;
  /** pg open ÷ plain SELECT */
  vsSelect: number;
  contextMessages: number;
  parts: { takeMs: number; spoolMs: number; fetchMs: number; serverMs: number };
}

/** Times an open and the first context after it; checks the entry count; closes. */
async function openAndContext(what: string, n: number, open: () => Promise<SessionFile>, close: (f: SessionFile) => unknown): Promise<{ openMs: number; contextMs: number; messages: number }> {
  collectGarbage();
  let t0 = performance.now();
  const f = await open();
  const openMs = performance.now() - t0;
  try {
    if (f.entryCount !== n) throw new Error(`${what}: ${f.entryCount} entries, expected ${n}`);
    t0 = performance.now();
    const messages = f.buildContext().messages.length;
    return { openMs, contextMs: performance.now() - t0, messages };
  } finally {
    await close(f);
  }
}

async function openBench(store: PgSessionStore, dir: string, shape: ShapeName, n: number): Promise<OpenFigures> {
  const pool = store.db;
  const s = generate(dir, shape, n);
  const lines = sessionLinesOf(readFileSync(s.file, "utf8"), s.file);
  if (lines.entries.length !== n || lines.skipped !== 0) throw new Error(`${shape}: ${lines.entries.length} entries, ${lines.skipped} skipped; expected ${n}`);
  collectGarbage();
  const insertMs = await timed(() => insertSession(pool, lines));
  // settled as a session stored for a while is: first reads do not set hint bits, the planner has statistics
  await pool.query("VACUUM (ANALYZE) entries");

  // One untimed round (JIT, caches), then RUNS rounds; each round runs every path in turn, so a
  // change in the machine's load (2 shared cores) falls on all of them alike.
  const spoolFile = join(dir, `${shape}.spool.jsonl`);
  let fileContext = 0;
  let pgContext = 0;
  const ms = { fileOpen: [] as number[], fileContext: [] as number[], select: [] as number[], pgOpen: [] as number[], pgContext: [] as number[], take: [] as number[], spool: [] as number[], fetch: [] as number[], server: [] as number[] };
  for (let round = 0; round <= RUNS; round++) {
    const got: Record<keyof typeof ms, number> = { fileOpen: 0, fileContext: 0, select: 0, pgOpen: 0, pgContext: 0, take: 0, spool: 0, fetch: 0, server: 0 };

    // (b) the JSONL file on local disk
    const file = await openAndContext("file open", n, () => SessionFile.openAsync(s.file), (f) => f.close());
    [got.fileOpen, got.fileContext, fileContext] = [file.openMs, file.contextMs, file.messages];

    // (c) one plain SELECT of every line, same pool
    collectGarbage();
    got.select = await timed(async () => {
      const res = await pool.query<{ line: string }>("SELECT line FROM entries WHERE session_id = $1 ORDER BY seq", [s.id]);
      if (res.rows.length !== n) throw new Error(`plain SELECT: ${res.rows.length} rows, expected ${n}`);
    }); // (the rows are garbage once it returns, not held through the next measurement)

    // (a) PgSessionStore.open: take + spool + scan (closing releases the session)
    const pg = await openAndContext("pg open", n, () => store.open({ sessionId: s.id }), (p) => p.closeAsync());
    [got.pgOpen, got.pgContext, pgContext] = [pg.openMs, pg.contextMs, pg.messages];
    if (pgContext !== fileContext) throw new Error(`${shape}: the context has ${pgContext} messages from PostgreSQL, ${fileContext} from the file`);

    // Where the open's time goes, each part alone. The scan of the spool is the file open above
    // (the spool holds the same bytes, also in the page cache).
    collectGarbage();
    got.take = await timed(async () => {
      await pool.query("SELECT header, first_message IS NOT NULL AS has_first FROM sessions WHERE id = $1", [s.id]);
      const own = await takeOwnership(pool, s.id, store.nodeId);
      await releaseOwnership(pool, own);
    });
    collectGarbage();
    got.spool = await timed(() => writeSpool(pool, s.id, s.header, spoolFile, n + 1));
    if (statSync(spoolFile).size !== s.bytes) throw new Error(`${shape}: the spool holds ${statSync(spoolFile).size} bytes, the file ${s.bytes}`);
    rmSync(spoolFile, { force: true });
    // the spool's paged queries, the lines joined as it does, nothing written
    collectGarbage();
    got.fetch = await timed(async () => {
      let rows = 0;
      for (let after = 0; ; ) {
        const page = await pool.query<{ seq: string; line: string }>("SELECT seq, line FROM entries WHERE session_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq LIMIT $4", [s.id, after, n + 1, SPOOL_PAGE]);
        if (page.rows.length === 0) break;
        let text = "";
        for (const r of page.rows) text += r.line + "\n";
        rows += page.rows.length;
        if (text.length === 0) break;
        after = Number(page.rows[page.rows.length - 1].seq);
      }
      if (rows !== n) throw new Error(`${shape}: fetched ${rows} rows, expected ${n}`);
    });
    // the server reading every line (detoasted: length() of UTF-8 text decompresses it), nothing sent
    got.server = await timed(() => pool.query("SELECT count(*), sum(length(line)) FROM entries WHERE session_id = $1", [s.id]));

    if (round > 0) for (const k of Object.keys(ms) as (keyof typeof ms)[]) ms[k].push(got[k]);
  }
  const m = (k: keyof typeof ms) => median(ms[k]);

  return {
    shape,
    entries: n,
    bytes: s.bytes,
    insertMs,
    fileOpenMs: m("fileOpen"),
    fileContextMs: m("fileContext"),
    selectMs: m("select"),
    pgOpenMs: m("pgOpen"),
    pgContextMs: m("pgContext"),
    vsFile: m("pgOpen") / m("fileOpen"),
    vsSelect: m("pgOpen") / m("select"),
    contextMessages: pgContext,
    parts: { takeMs: m("take"), spoolMs: m("spool"), fetchMs: m("fetch"), serverMs: m("server") },
  };
}

// -- 2. takeover after kill -9 ---------------------------------------------------------------------

interface TakeoverRun {
  ms: number;
  tries: number;
  /** when the parent saw the child's exit, after the kill */
  exitSeenMs: number;
}

function startOwner(url: string, nodeId: string, sessionId: string, spoolDir: string, hooks: Cleanup): { child: ChildProcess; owner: Promise<void>; exited: Promise<number> } {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench/pg-owner-child.ts"), url, nodeId, sessionId, spoolDir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  hooks.after(() => child.kill("SIGKILL"));
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.once("exit", () => resolve(performance.now())));
  const owner = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the owner child did not take the session within 30 s: ${out}${err}`)), 30_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (/^owner$/m.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the owner child exited (${child.exitCode ?? child.signalCode}) before taking the session: ${out}${err}`));
    });
  });
  return { child, owner, exited };
}

async function takeoverBench(url: string, taker: PgSessionStore, dir: string, hooks: Cleanup): Promise<TakeoverRun[]> {
  const created = await taker.create({ cwd: "/bench/takeover" });
  const sessionId = created.sessionId;
  created.appendMessage({ role: "user", content: [{ type: "text", text: "a session to take over" }], timestamp: Date.now() });
  await created.closeAsync();
  const runs: TakeoverRun[] = [];
  for (let i = 0; i < TAKEOVERS; i++) {
    const { child, owner, exited } = startOwner(url, `owner-${i}`, sessionId, mkdtempSync(join(dir, "owner-")), hooks);
    await owner;
    await sleep(200); // a few of its appends committed: a writer, not an idle holder
    child.kill("SIGKILL");
    const killed = performance.now();
    let tries = 1;
    let f: SessionFile;
    for (;;) {
      try {
        f = await taker.open({ sessionId });
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== "SessionMoved" || performance.now() - killed > CHILD_LEASE_MS + 10_000) throw err;
      }
      tries++;
      await sleep(RETRY_MS);
    }
    const ms = performance.now() - killed;
    await f.closeAsync();
    runs.push({ ms, tries, exitSeenMs: (await exited) - killed });
  }
  return runs;
}

// -- 3. appends ------------------------------------------------------------------------------------

function fileAppendRate(dir: string, n: number): number {
  const messages = sampleMessages(300);
  const f = SessionFile.create({ cwd: "/bench/appends", sessionsDir: mkdtempSync(join(dir, "file-")) });
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f.appendMessage(messages[i % messages.length], { sync: true });
    return n / ((performance.now() - t0) / 1000);
  } finally {
    f.close();
  }
}

/** Entries per second appended to a new session of the store, awaiting flushed() every `perFlush`; and the commits that took. */
async function pgAppendRate(store: PgSessionStore, n: number, perFlush: number): Promise<{ rate: number; commits: number }> {
  const messages = sampleMessages(300);
  const f = await store.create({ cwd: "/bench/appends" });
  let rate: number;
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i += perFlush) {
      for (let j = i; j < Math.min(n, i + perFlush); j++) f.appendMessage(messages[j % messages.length]);
      await f.flushed();
    }
    rate = n / ((performance.now() - t0) / 1000);
  } finally {
    await f.closeAsync();
  }
  // one commit is one transaction: the inserting transaction ids of the session's lines count them
  const res = await store.db.query<{ commits: number }>("SELECT count(DISTINCT xmin::text)::int AS commits FROM entries WHERE session_id = $1", [f.sessionId]);
  return { rate, commits: res.rows[0].commits };
}

// -- the bench ----------------------------------------------------------------------------------------

export async function runPgStoreBench(opts: { openEntries?: number; appendEntries?: number } = {}) {
  if (postgresSkip) {
    console.log(`PostgreSQL store: skipped (${postgresSkip.split("\n")[0]})`);
    return { bench: "pg-store", skipped: postgresSkip };
  }
  const openN = opts.openEntries ?? Number(process.env.BENCH_PG_OPEN_ENTRIES ?? 100_000);
  const appendN = opts.appendEntries ?? Number(process.env.BENCH_PG_ENTRIES ?? 2000);
  const hooks = new Cleanup();
  const dir = mkdtempSync(join(tmpdir(), "pith-pg-store-bench-"));
  hooks.after(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const pg = await startPostgres(hooks);
    const store = await PgSessionStore.connect({ url: pg.url, nodeId: "bench", spoolDir: join(dir, "spool"), logger });
    hooks.after(() => store.close());

    // 1. open
    const opens: OpenFigures[] = [];
    for (const shape of SHAPES) opens.push(await openBench(store, dir, shape, openN));
    console.log(`\nopen of a ${openN}-entry session (median of ${RUNS} after a warm-up, paths interleaved; pg open: take + spool + scan, file open: SessionFile.openAsync, SELECT: one query of every line):`);
    console.log(
      table([
        ["shape", "MB", "B/entry", "insert ms", "file open ms", "SELECT ms", "pg open ms", "÷ file open", "÷ SELECT", "context ms pg", "context ms file"],
        ...opens.map((o) => [o.shape, mib(o.bytes), Math.round(o.bytes / o.entries), Math.round(o.insertMs), round(o.fileOpenMs), round(o.selectMs), round(o.pgOpenMs), round(o.vsFile, 2), round(o.vsSelect, 2), round(o.pgContextMs), round(o.fileContextMs)]),
      ]),
    );
    console.log(`\nwhere the PostgreSQL open's time goes (each part timed alone, median of ${RUNS}; "server reads": the server scanning and detoasting every line, nothing sent):`);
    console.log(
      table([
        ["shape", "take ms", "spool ms", "of it: fetch pages", "of which server reads", "of it: write (spool - fetch)", "scan (= file open)", "take+spool+scan", "pg open ms"],
        ...opens.map((o) => [
          o.shape,
          round(o.parts.takeMs),
          round(o.parts.spoolMs),
          round(o.parts.fetchMs),
          round(o.parts.serverMs),
          round(o.parts.spoolMs - o.parts.fetchMs),
          round(o.fileOpenMs),
          round(o.parts.takeMs + o.parts.spoolMs + o.fileOpenMs),
          round(o.pgOpenMs),
        ]),
      ]),
    );

    // 2. takeover after kill -9
    const taker = await PgSessionStore.connect({ url: pg.url, nodeId: "taker", spoolDir: join(dir, "taker-spool"), logger });
    hooks.after(() => taker.close());
    const takeovers = await takeoverBench(pg.url, taker, dir, hooks);
    const takeMs = takeovers.map((r) => r.ms);
    console.log(`\ntakeover after kill -9 of the owner's process (${TAKEOVERS} runs; open retried every ${RETRY_MS} ms on SessionMoved):`);
    console.log(
      table([
        ["", "ms"],
        ["median, kill to open", round(median(takeMs))],
        ["max, kill to open", round(Math.max(...takeMs))],
        ["median, kill to the child's exit seen", round(median(takeovers.map((r) => r.exitSeenMs)))],
        ["the owner's lease (a takeover without the liveness check)", CHILD_LEASE_MS],
      ]),
    );
    console.log(`tries per takeover: ${takeovers.map((r) => r.tries).join(", ")}`);

    // 3. appends
    const file = fileAppendRate(dir, appendN);
    const one = await pgAppendRate(store, appendN, 1);
    const turn = await pgAppendRate(store, appendN, TURN);
    console.log(`\nappends through the store's SessionFile (${appendN} entries, fsync on everywhere):`);
    console.log(
      table([
        ["store", "entries/s", "÷ file+fsync", "commits"],
        ["file, fsync each", round(file), 1, appendN],
        ["PostgreSQL, flushed() after each", round(one.rate), round(one.rate / file, 2), one.commits],
        [`PostgreSQL, ${TURN} then flushed() (a turn)`, round(turn.rate), round(turn.rate / file, 2), turn.commits],
      ]),
    );

    const result = {
      bench: "pg-store",
      open: opens.map((o) => ({
        shape: o.shape,
        entries: o.entries,
        bytes: o.bytes,
        insertMs: round(o.insertMs),
        fileOpenMs: round(o.fileOpenMs),
        selectMs: round(o.selectMs),
        pgOpenMs: round(o.pgOpenMs),
        pgOpenVsFileOpen: round(o.vsFile, 2),
        pgOpenVsSelect: round(o.vsSelect, 2),
        pgContextMs: round(o.pgContextMs),
        fileContextMs: round(o.fileContextMs),
        contextMessages: o.contextMessages,
        takeMs: round(o.parts.takeMs),
        spoolMs: round(o.parts.spoolMs),
        fetchPagesMs: round(o.parts.fetchMs),
        spoolWriteMs: round(o.parts.spoolMs - o.parts.fetchMs),
        serverReadMs: round(o.parts.serverMs),
      })),
      takeover: { runs: TAKEOVERS, medianMs: round(median(takeMs)), maxMs: round(Math.max(...takeMs)), leaseMs: CHILD_LEASE_MS, tries: takeovers.map((r) => r.tries) },
      appends: {
        entries: appendN,
        fileFsyncPerSec: round(file),
        pgFlushEachPerSec: round(one.rate),
        pgFlushPerTurnPerSec: round(turn.rate),
        pgFlushEachVsFile: round(one.rate / file, 2),
        pgFlushPerTurnVsFile: round(turn.rate / file, 2),
        pgFlushEachCommits: one.commits,
        pgFlushPerTurnCommits: turn.commits,
      },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await hooks.run();
  }
}
