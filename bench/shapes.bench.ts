// Shapes bench (`npm run bench -- shapes`; BENCH_MB scales the files, default 100; BENCH_RUNS the
// runs per figure, default 3; BENCH_SHAPES=prose,tiny picks shapes): what pith's store costs on sessions of different shapes, beside
// the plain parse of the same file (readFileSync + split + JSON.parse of every line) and Pi 0.58.3
// (SessionManager.open + buildSessionContext, cut off after 30 s), in one run. Also listing 1,000
// and 10,000 session files, and how long the daemon's event loop is held by the big calls
// (another session's getState while they run).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listSessions } from "../src/session/list.js";
import { startServeDaemon } from "../test/support/daemon-client.js";
import { measureLoopHold } from "./loop-probe.js";
import { SHAPES, writeShape, type ShapeName } from "./shapes.js";
import { median, round, table } from "./util.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PI_CUTOFF_MS = 30_000;

export interface ShapesBenchOptions {
  mb?: number;
  runs?: number;
  shapes?: readonly ShapeName[];
  /** files for the listing figures (default 1,000 and 10,000) */
  listing?: readonly number[];
  /** every shape of a mode measured in one process (the smoke test: quicker, figures not comparable) */
  oneProcess?: boolean;
  /** measure the daemon's event loop too (default true) */
  eventLoop?: boolean;
  log?: (line: string) => void;
}

type Json = Record<string, number>;

/** One child measuring `files` in turn: a figure per file, or null for all past the time limit. */
function children(mode: string, files: readonly string[], timeoutMs = 600_000): (Json | null)[] {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", "shapes-child.ts"), mode, ...files], { cwd: ROOT, encoding: "utf8", timeout: timeoutMs * files.length, maxBuffer: 1 << 20 });
  if (r.error || r.status !== 0) {
    if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT" || r.signal === "SIGTERM") return files.map(() => null);
    throw new Error(`shapes child ${mode} failed: ${r.stderr}`);
  }
  return r.stdout.trim().split("\n").slice(-files.length).map((line) => JSON.parse(line) as Json);
}

/**
 * What `children` measures, each file in a process of its own (the bench: each figure its own heap
 * and peak RSS), or with `oneProcess` all in one (the smoke test: figures present, not comparable).
 */
function measured(mode: string, files: readonly string[], oneProcess: boolean, timeoutMs?: number): (Json | null)[] {
  return oneProcess ? children(mode, files, timeoutMs) : files.map((f) => children(mode, [f], timeoutMs)[0]);
}

function medianOf(rows: Json[], key: string): number {
  return median(rows.map((r) => r[key]));
}

export interface ShapeFigures {
  shape: ShapeName;
  mb: number;
  entries: number;
  plainMs: number;
  piMs: number | null;
  openMs: number;
  tree1Ms: number;
  tree2Ms: number;
  navigateMs: number;
  getMessagesMs: number;
  heapAfterOpenMb: number;
  maxRssMb: number;
  plainMaxRssMb: number;
}

function measureShapes(dir: string, shapes: readonly ShapeName[], mb: number, runs: number, oneProcess: boolean): ShapeFigures[] {
  const files = shapes.map((shape) => join(dir, `${shape}.jsonl`));
  const infos = shapes.map((shape, i) => writeShape(files[i], shape, Math.round(mb * 1e6)));
  const plain: Json[][] = shapes.map(() => []);
  const pi: Json[][] = shapes.map(() => []);
  const pith: Json[][] = shapes.map(() => []);
  for (let run = 0; run < runs; run++) {
    measured("plain", files, oneProcess).forEach((r, i) => plain[i].push(r!));
    // over the cut-off: once is enough to know (that shape is left out of later runs)
    const piFiles = files.filter((_, i) => pi[i].length === run);
    const piRuns = measured("pi", piFiles, oneProcess, PI_CUTOFF_MS);
    piFiles.forEach((f, k) => piRuns[k] && pi[files.indexOf(f)].push(piRuns[k]!));
    // navigateTree writes a leaf marker: each run works on copies
    const copies = files.map((f, i) => join(dir, `${shapes[i]}-run${run}.jsonl`));
    files.forEach((f, i) => copyFileSync(f, copies[i]));
    measured("pith", copies, oneProcess).forEach((r, i) => pith[i].push(r!));
    for (const c of copies) rmSync(c, { force: true });
  }
  return shapes.map((shape, i) => ({
    shape,
    mb: round(infos[i].bytes / 1e6, 1),
    entries: infos[i].entries,
    plainMs: medianOf(plain[i], "ms"),
    piMs: pi[i].length === runs ? medianOf(pi[i], "ms") : null,
    openMs: medianOf(pith[i], "open"),
    tree1Ms: medianOf(pith[i], "tree1"),
    tree2Ms: medianOf(pith[i], "tree2"),
    navigateMs: medianOf(pith[i], "navigate"),
    getMessagesMs: medianOf(pith[i], "getMessages"),
    heapAfterOpenMb: medianOf(pith[i], "heapAfterOpenMb"),
    maxRssMb: medianOf(pith[i], "maxRssMb"),
    plainMaxRssMb: medianOf(plain[i], "maxRssMb"),
  }));
}

/** `n` small session files (copies of a few generated ones) under one sessions folder. */
function sessionsDir(dir: string, n: number): string {
  // <dir>/listing-<n>/sessions: the layout under a $PITH_HOME
  const root = join(dir, `listing-${n}`, "sessions");
  const samples = ["prose", "code", "pi-custom"].map((shape, i) => {
    const f = join(dir, `sample-${i}.jsonl`);
    writeShape(f, shape as ShapeName, 6000 + i * 3000, i + 1);
    return f;
  });
  for (let i = 0; i < n; i++) {
    const cwdDir = join(root, `--home-dev-project${i % 50}--`);
    if (i < 50) mkdirSync(cwdDir, { recursive: true });
    copyFileSync(samples[i % samples.length], join(cwdDir, `2025-01-06T09-00-00-${String(i).padStart(6, "0")}Z_s${i}.jsonl`));
  }
  return root;
}

function plainParseAll(root: string): number {
  const t0 = performance.now();
  for (const d of readdirSync(root)) {
    for (const f of readdirSync(join(root, d))) {
      for (const line of readFileSync(join(root, d, f), "utf8").split("\n")) if (line) JSON.parse(line);
    }
  }
  return performance.now() - t0;
}

interface Held {
  call: string;
  p99: number;
  max: number;
  callMs: number;
}

/** Another session's getState round trips while each big call runs in the daemon: how long its event loop is held. */
async function eventLoop(dir: string, bigFile: string, listed: string): Promise<Held[]> {
  const fns: (() => unknown)[] = [];
  const hooks = { after: (fn: () => unknown) => void fns.push(fn) };
  const out: Held[] = [];
  // the calls go over stdio from here; the probe asks over a WebSocket from its own thread
  const serve = async (home: string) => {
    const d = await startServeDaemon(hooks, { home, cwd: dir, stdio: true });
    await d.peer!.initialize();
    const other = await d.peer!.request("createSession", { cwd: dir });
    const target = { url: d.wsUrl, token: d.token, sessionId: other.sessionId as string };
    const during = async (call: string, fn: () => Promise<unknown>) => {
      const h = await measureLoopHold(target, fn);
      out.push({ call, p99: round(h.p99, 1), max: round(h.max, 1), callMs: round(h.callMs, 1) });
    };
    return { d, peer: d.peer!, during };
  };
  try {
    const home = join(dir, "daemon-home");
    mkdirSync(home, { recursive: true });
    const { d, peer, during } = await serve(home);
    const copy = join(dir, "event-loop.jsonl");
    copyFileSync(bigFile, copy);
    let sessionId = "";
    await during("openSession", async () => (sessionId = (await peer.request("openSession", { sessionFile: copy }, 120_000)).sessionId));
    await during("getTree (first)", () => peer.request("getTree", { sessionId }, 120_000));
    const tree = await peer.request("getTree", { sessionId });
    await during("navigateTree", () => peer.request("navigateTree", { sessionId, targetId: tree.entries[10].id }, 120_000));
    await during("getMessages", () => peer.request("getMessages", { sessionId }, 120_000));
    await during("forkSession", () => peer.request("forkSession", { sessionId, entryId: tree.entries.at(-1)!.id }, 120_000));
    d.proc.kill("SIGTERM");
    await d.waitExit();
    // listing reads $PITH_HOME/sessions: a second daemon pointed at the 10,000 files
    const second = await serve(join(listed, ".."));
    await second.during("listSessions", () => second.peer.request("listSessions", {}, 120_000));
    second.d.proc.kill("SIGTERM");
    await second.d.waitExit();
    return out;
  } finally {
    for (const fn of fns.reverse()) await fn();
  }
}

export async function runShapesBench(opts: ShapesBenchOptions = {}) {
  const mb = opts.mb ?? Number(process.env.BENCH_MB ?? 100);
  const runs = opts.runs ?? Number(process.env.BENCH_RUNS ?? 3);
  const log = opts.log ?? ((line: string) => console.log(line));
  const only = process.env.BENCH_SHAPES?.split(",").filter(Boolean) as ShapeName[] | undefined;
  for (const name of only ?? []) if (!SHAPES.includes(name)) throw new Error(`BENCH_SHAPES: unknown shape ${name} (${SHAPES.join(", ")})`);
  const shapes = opts.shapes ?? only ?? SHAPES;
  const dir = mkdtempSync(join(tmpdir(), "pith-shapes-bench-"));
  try {
    log(`shapes bench: ${shapes.length} shapes of ${mb} MB, ${runs} run(s) each, in ${dir}`);
    const figures = measureShapes(dir, shapes, mb, runs, opts.oneProcess ?? false);
    const x = (ms: number, base: number) => `${round(ms / base, 2)}x`;
    log(
      table([
        ["shape", "MB", "entries", "plain ms", "Pi ms", "open ms", "open/plain", "Pi/open", "tree 1", "tree1/plain", "tree 2 ms", "navigate ms", "getMessages ms", "heap MB/100MB", "peak RSS MB"],
        ...figures.map((f) => [
          f.shape,
          f.mb,
          f.entries,
          round(f.plainMs),
          f.piMs === null ? `>${PI_CUTOFF_MS / 1000}s` : round(f.piMs),
          round(f.openMs),
          x(f.openMs, f.plainMs),
          f.piMs === null ? "-" : `${round(f.piMs / f.openMs, 1)}x`,
          round(f.tree1Ms),
          x(f.tree1Ms, f.plainMs),
          round(f.tree2Ms),
          round(f.navigateMs, 1),
          round(f.getMessagesMs, 1),
          round((f.heapAfterOpenMb / f.mb) * 100, 1),
          f.maxRssMb,
        ]),
      ]),
    );
    const listing: { files: number; listMs: number; plainMs: number }[] = [];
    let listed = "";
    for (const n of opts.listing ?? [1000, 10_000]) {
      const root = sessionsDir(dir, n);
      listed = root;
      const plainMs = median([0, 1, 2].slice(0, Math.max(1, Math.min(runs, 3))).map(() => plainParseAll(root)));
      const listMs = median([0, 1, 2].slice(0, Math.max(1, Math.min(runs, 3))).map(() => {
        const t0 = performance.now();
        const n2 = listSessions(root).length;
        if (n2 !== n) throw new Error(`listed ${n2} of ${n}`);
        return performance.now() - t0;
      }));
      listing.push({ files: n, listMs: round(listMs), plainMs: round(plainMs) });
    }
    log(`\nlistSessions: ${listing.map((l) => `${l.files} files ${l.listMs} ms (plain parse of the files ${l.plainMs} ms, ${round(l.listMs / l.plainMs, 2)}x)`).join("; ")}`);
    let held: Held[] = [];
    if (opts.eventLoop !== false) {
      const big = join(dir, "never-compacted.jsonl");
      if (!figures.some((f) => f.shape === "never-compacted")) writeShape(big, "never-compacted", Math.round(mb * 1e6));
      held = await eventLoop(dir, big, listed);
      log("\nthe daemon's event loop while a big call runs (another session's getState, ms):");
      log(table([["call", "call ms", "getState p99", "getState max"], ...held.map((h) => [h.call, h.callMs, h.p99, h.max])]));
    }
    const result = { bench: "shapes", mb, runs, figures, listing, eventLoop: held };
    log(JSON.stringify(result));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
