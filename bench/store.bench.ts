// Store benchmark: how fast and how lean pith opens a long session compared with the obvious
// way to read a JSONL file, and how fast it appends. Prints figures; it does not pass or fail.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AssistantMessage, StoredMessage } from "../src/messages/types.js";
import { summarizeSessionFile } from "../src/session/list.js";
import { SessionFile } from "../src/session/session-file.js";
import { writeSyntheticSession } from "./synthetic-session.js";
import { collectGarbage, median, mib, round, table, timeRuns } from "./util.js";

export interface StoreBenchOptions {
  /** size of the synthetic session in MB (default: $BENCH_MB or 100) */
  mb?: number;
  /** timed runs per measurement, after one warm-up (default 5) */
  runs?: number;
  seed?: number;
  log?: (line: string) => void;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const REQUIRED_RATIO = 1.3;
const STRETCH_RATIO = 0.5;

interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapAfterGc: number;
  external: number;
  arrayBuffers: number;
  maxRss: number;
  detail: number;
}

/** The obvious loader, and what pith's open + buildContext is measured against. */
function rawLoad(file: string): unknown[] {
  const entries: unknown[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) if (line) entries.push(JSON.parse(line));
  return entries;
}

type RawEntry = { type: string; id: string; parentId: string | null; firstKeptEntryId?: string; summary?: string };

/**
 * The context's entry ids per Pi's rules, from fully parsed lines: an independent check that
 * pith's lazy path gives the same answer. Leaf = last entry (the generator writes no leaf markers).
 */
function referenceContextIds(parsed: unknown[]): string[] {
  const entries = parsed.slice(1) as RawEntry[];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const path: RawEntry[] = [];
  for (let e: RawEntry | undefined = entries[entries.length - 1]; e; e = e.parentId === null ? undefined : byId.get(e.parentId)) path.push(e);
  path.reverse();
  const isMessage = (e: RawEntry) => e.type === "message" || e.type === "custom_message" || (e.type === "branch_summary" && !!e.summary);
  let c = -1;
  for (let i = path.length - 1; i >= 0 && c < 0; i--) if (path[i].type === "compaction") c = i;
  if (c < 0) return path.filter(isMessage).map((e) => e.id);
  const kept = path.findIndex((e, i) => i < c && e.id === path[c].firstKeptEntryId);
  const before = kept < 0 ? [] : path.slice(kept, c);
  return [path[c].id, ...[...before, ...path.slice(c + 1)].filter(isMessage).map((e) => e.id)];
}

function measureMemory(mode: "idle" | "baseline" | "pith", file: string): MemoryFigures {
  const child = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench/store-memory-child.ts"), mode, file], { cwd: ROOT, encoding: "utf8" });
  if (child.status !== 0) throw new Error(`memory child (${mode}) failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop() as string) as MemoryFigures;
}

/** Messages of about `bytes` (default ~1 KB) in the rotation a session writes them: user, assistant tool call, tool result. */
export function sampleMessages(bytes = 950): StoredMessage[] {
  const text = "The order total is computed from the cart items after discounts and tax are applied. ".repeat(Math.ceil(bytes / 86)).slice(0, bytes);
  const usage = { input: 3, output: 120, cacheRead: 42000, cacheWrite: 800, totalTokens: 42923, cost: { input: 0.000009, output: 0.0018, cacheRead: 0.0126, cacheWrite: 0.003, total: 0.017409 } };
  const assistant: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: text.slice(0, Math.round(bytes * 0.42)) }, { type: "toolCall", id: "toolu_01AbCdEfGhIjKlMnOpQrStUv", name: "read", arguments: { path: "src/cart/service.ts" } }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage,
    stopReason: "toolUse",
    timestamp: Date.now(),
  };
  return [
    { role: "user", content: [{ type: "text", text }], timestamp: Date.now() },
    assistant,
    { role: "toolResult", toolCallId: "toolu_01AbCdEfGhIjKlMnOpQrStUv", toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: Date.now() },
  ];
}

/** Appends `n` messages to a fresh session; milliseconds for the appends alone. */
function appendRun(sessionsDir: string, n: number, sync: boolean): { ms: number; bytesPerAppend: number } {
  const messages = sampleMessages();
  const session = SessionFile.create({ cwd: ROOT, sessionsDir });
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) session.appendMessage(messages[i % messages.length], { sync });
    const ms = performance.now() - t0;
    return { ms, bytesPerAppend: Math.round(readFileSync(session.file).length / (n + 1)) };
  } finally {
    session.close();
  }
}

// statfs f_type values of the file systems a bench is likely to run on
const FS_TYPES: Record<number, string> = { 0xef53: "ext4", 0x01021994: "tmpfs", 0x58465342: "xfs", 0x9123683e: "btrfs", 0x794c7630: "overlayfs", 0x6a656a63: "fakeowner", 0x2fc12fc1: "zfs", 0x1badface: "apfs?" };

export async function runStoreBench(opts: StoreBenchOptions = {}) {
  const mb = opts.mb ?? Number(process.env.BENCH_MB ?? 100);
  const runs = opts.runs ?? 5;
  const log = opts.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), "pith-store-bench-"));
  try {
    const file = join(dir, "synthetic.jsonl");
    log(`store bench: generating a ${mb} MB session in ${dir} ...`);
    let t0 = performance.now();
    const gen = writeSyntheticSession(file, { targetBytes: Math.round(mb * 1e6), seed: opts.seed ?? 1 });
    const genMs = performance.now() - t0;

    const baseline = timeRuns(runs, () => rawLoad(file).length);
    const pith = timeRuns(runs, () => {
      const session = SessionFile.open(file, { readOnly: true });
      try {
        return { entries: session.entryCount, warnings: session.warnings.length, context: session.buildContext() };
      } finally {
        session.close();
      }
    });
    const ratio = pith.median / baseline.median;

    // correctness, outside the timings: pith's context against a full-parse reference
    collectGarbage();
    const expectedIds = referenceContextIds(rawLoad(file));
    const gotIds = pith.result.context.entryIds;
    const firstDiff = expectedIds.findIndex((id, i) => gotIds[i] !== id);
    const contextOk = expectedIds.length === gotIds.length && firstDiff < 0;
    const entriesOk = pith.result.entries === gen.entries;

    // listing reads light fields only; Pi's listing parses every line (the baseline's work)
    const listing = timeRuns(runs, () => summarizeSessionFile(file)?.messageCount ?? -1);

    // the first tree of an open session parses every entry; later ones reuse the previews
    const firstTree: number[] = [];
    let nodes = 0;
    for (let i = 0; i < runs; i++) {
      const s = SessionFile.open(file, { readOnly: true });
      collectGarbage();
      const t0 = performance.now();
      nodes = s.tree().entries.length;
      firstTree.push(performance.now() - t0);
      s.close();
    }
    const open = SessionFile.open(file, { readOnly: true });
    const tree = timeRuns(runs, () => open.tree().entries.length);
    open.close();

    const appendsDir = join(dir, "sessions");
    appendRun(appendsDir, 500, false); // warm-up
    const N_FAST = 5000;
    const N_SYNC = 500;
    const fast = appendRun(appendsDir, N_FAST, false);
    const synced = appendRun(appendsDir, N_SYNC, true);
    const fsyncUs = (synced.ms / N_SYNC - fast.ms / N_FAST) * 1000;
    let fsType = "unknown";
    try {
      const type = statfsSync(dir).type;
      fsType = FS_TYPES[type] ?? `0x${type.toString(16)}`;
    } catch {
      // statfs is informational only
    }

    const memIdle = measureMemory("idle", file);
    const memBaseline = measureMemory("baseline", file);
    const memPith = measureMemory("pith", file);

    const ms = (n: number) => round(n, 1);
    log("");
    log(`file: ${mib(gen.bytes)} MiB, ${gen.entries} entries, ${gen.compactions} compactions (generated in ${ms(genMs)} ms)`);
    log("");
    log(
      table([
        ["open a session (median of " + runs + ")", "ms", "runs (ms)", "result"],
        ["baseline: readFileSync + split + JSON.parse", ms(baseline.median), baseline.ms.map(ms).join(" "), `${baseline.result} lines`],
        ["pith: open(readOnly) + buildContext", ms(pith.median), pith.ms.map(ms).join(" "), `${pith.result.context.messages.length} context messages`],
        ["pith: first tree() of an open session", ms(median(firstTree)), firstTree.map(ms).join(" "), `${nodes} nodes`],
        ["pith: tree() again", ms(tree.median), tree.ms.map(ms).join(" "), `${tree.result} nodes`],
        ["pith: summarizeSessionFile (one listing row)", ms(listing.median), listing.ms.map(ms).join(" "), `${listing.result} messages`],
      ]),
    );
    log("");
    const verdict = ratio <= STRETCH_RATIO ? "meets the stretch target" : ratio <= REQUIRED_RATIO ? "meets the required target, not the stretch" : "MISSES the required target";
    log(`pith / baseline = ${round(ratio, 2)}x (required <= ${REQUIRED_RATIO}x, stretch ${STRETCH_RATIO}x): ${verdict}`);
    log(`entry count: pith ${pith.result.entries}, generator ${gen.entries}${entriesOk ? " (ok)" : " MISMATCH"}; open warnings: ${pith.result.warnings}`);
    log(
      contextOk
        ? `context: ${gotIds.length} messages, identical to the full-parse reference`
        : `context MISMATCH: pith ${gotIds.length} messages, reference ${expectedIds.length}; first difference at ${firstDiff < 0 ? Math.min(gotIds.length, expectedIds.length) : firstDiff}`,
    );
    log("");
    log(
      table([
        [`append ~${fast.bytesPerAppend} B messages (${fsType})`, "appends", "total ms", "appends/s", "us/append"],
        ["appendMessage, no sync", N_FAST, ms(fast.ms), Math.round((N_FAST / fast.ms) * 1000), round((fast.ms / N_FAST) * 1000, 1)],
        ["appendMessage, {sync: true}", N_SYNC, ms(synced.ms), Math.round((N_SYNC / synced.ms) * 1000), round((synced.ms / N_SYNC) * 1000, 1)],
      ]),
    );
    log(`fsync cost per append: ${round(fsyncUs, 1)} us`);
    log("");
    log(
      table([
        ["memory, separate process (MiB)", "rss", "heapUsed", "heap after gc", "external", "peak rss"],
        ...([["node + tsx, nothing loaded", memIdle], ["baseline: all lines parsed", memBaseline], ["pith: open + buildContext", memPith]] as const).map(([name, m]) => [
          name,
          mib(m.rss),
          mib(m.heapUsed),
          mib(m.heapAfterGc),
          mib(m.external),
          mib(m.maxRss),
        ]),
      ]),
    );

    const figures = {
      bench: "store",
      file: { mb, bytes: gen.bytes, entries: gen.entries, compactions: gen.compactions, generateMs: ms(genMs) },
      open: {
        runs,
        baselineMs: ms(baseline.median),
        pithMs: ms(pith.median),
        ratio: round(ratio, 3),
        meetsRequired: ratio <= REQUIRED_RATIO,
        meetsStretch: ratio <= STRETCH_RATIO,
        baselineRunsMs: baseline.ms.map(ms),
        pithRunsMs: pith.ms.map(ms),
        contextMessages: gotIds.length,
        contextOk,
        entriesOk,
        warnings: pith.result.warnings,
      },
      tree: { firstMs: ms(median(firstTree)), againMs: ms(tree.median), nodes: tree.result, runsMs: tree.ms.map(ms) },
      listing: { ms: ms(listing.median), ratioToBaseline: round(listing.median / baseline.median, 3), messages: listing.result },
      append: {
        fsType,
        bytesPerAppend: fast.bytesPerAppend,
        noSync: { n: N_FAST, ms: ms(fast.ms), perSecond: Math.round((N_FAST / fast.ms) * 1000) },
        sync: { n: N_SYNC, ms: ms(synced.ms), perSecond: Math.round((N_SYNC / synced.ms) * 1000) },
        fsyncUsPerAppend: round(fsyncUs, 1),
      },
      memory: { idle: memIdle, baseline: memBaseline, pith: memPith },
    };
    log("");
    log(JSON.stringify(figures));
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
