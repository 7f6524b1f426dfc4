// Compaction bench: what preparing a compaction costs (cut point, spans, file lists, the
// serialized text the summarizer gets) on large synthetic sessions, beside what opening the
// session costs and beside a plain parse of the file. Preparing works on the context after the
// latest compaction only, so its cost should follow that span, not the file size. Also prints
// the token estimator's error against real usage in the Pi fixture, beside chars/4's.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compactionInputOf, compactionSettings, estimateMessageTokens, prepareCompaction, serializeMessages } from "../src/compaction/index.js";
import { SessionFile } from "../src/session/session-file.js";
import { charsOver4, estimatorError, usageDeltas } from "../test/support/usage-deltas.js";
import { writeSyntheticSession } from "./synthetic-session.js";
import { framingCost } from "./framing-cost.js";
import { collectGarbage, median, round, table } from "./util.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "pi-large-session-v1.jsonl");
const TARGET_RATIO = 0.05;

const SPAN_TOKENS = 150_000;

/**
 * The generator may stop anywhere in the cycle between compactions. Append turns until the
 * context holds a full cycle (~150k tokens, when a real session would compact), so every size
 * is measured at the same point and only the file size differs.
 */
function growToFullSpan(file: string): void {
  const session = SessionFile.open(file);
  try {
    const chunk = "export const value = computeSomething(input, { retries: 3 });\n".repeat(60);
    for (let i = 0; estimateContext(session) < SPAN_TOKENS; i++) {
      session.appendMessage({ role: "user", content: `next step ${i}: check module ${i}`, timestamp: Date.now() });
      const id = `toolu_bench_${i}`;
      session.appendMessage({
        role: "assistant",
        content: [{ type: "toolCall", id, name: i % 3 === 0 ? "edit" : "read", arguments: { path: `src/mod${i % 40}.ts`, oldText: "a", newText: "b" } }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        // reported usage, as a real session has: the context size is read from it, not re-estimated
        usage: { input: 2000, output: 60, cacheRead: 20_000 + i * 1500, cacheWrite: 500, totalTokens: 22_560 + i * 1500, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "toolUse",
        timestamp: Date.now(),
      });
      session.appendMessage({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: chunk }], isError: false, timestamp: Date.now() });
    }
  } finally {
    session.close();
  }
}

function estimateContext(session: SessionFile): number {
  return session.buildContext().messages.reduce((a, m) => a + estimateMessageTokens(m), 0);
}

function rawParseMs(file: string): number {
  const t0 = performance.now();
  let n = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) if (line) n += JSON.parse(line) ? 1 : 0;
  return performance.now() - t0 + n * 0;
}

interface SizeFigures {
  mb: number;
  entries: number;
  openMs: number;
  /** in a running session (the context already built) */
  prepareMs: number;
  /** right after opening (the context's entries parsed too) */
  coldPrepareMs: number;
  ratio: number;
  baselineMs: number;
  spanMessages: number;
  spanTokens: number;
  serializedBytes: number;
  keptMessages: number;
}

/** Cut point, spans, file lists, user messages and the serialized text: what a compaction decides before the model. */
function prepare(session: SessionFile) {
  const settings = compactionSettings();
  const out = prepareCompaction(compactionInputOf(session), settings, "manual");
  if (!out.ok) throw new Error(`nothing to compact in the synthetic session: ${out.message}`);
  const p = out.preparation;
  const blocks = serializeMessages([...p.historyMessages, ...p.turnPrefixMessages], { maxBlockChars: settings.maxBlockChars });
  return { p, blocks };
}

function measure(file: string, mb: number, runs: number): SizeFigures {
  const open: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  let last: Omit<SizeFigures, "mb" | "openMs" | "prepareMs" | "coldPrepareMs" | "ratio" | "baselineMs"> | undefined;
  for (let i = 0; i <= runs; i++) {
    collectGarbage();
    const t0 = performance.now();
    const session = SessionFile.open(file, { readOnly: true });
    const t1 = performance.now();
    // a daemon opens a session long before it compacts it: the garbage opening left is not the compaction's
    collectGarbage();
    // cold: the first thing done after opening, so the context's entries are parsed here too
    const t2 = performance.now();
    prepare(session);
    const t3 = performance.now();
    // warm: as in a running daemon, where every turn has built the context already
    const t4 = performance.now();
    const { p, blocks } = prepare(session);
    const t5 = performance.now();
    if (i > 0) {
      open.push(t1 - t0);
      cold.push(t3 - t2);
      warm.push(t5 - t4);
    }
    last = {
      entries: session.entryCount,
      spanMessages: p.historyMessages.length + p.turnPrefixMessages.length,
      spanTokens: [...p.historyMessages, ...p.turnPrefixMessages].reduce((a, m) => a + estimateMessageTokens(m), 0),
      serializedBytes: blocks.reduce((a, b) => a + Buffer.byteLength(b) + 2, 0),
      keptMessages: p.keptMessages.length,
    };
    session.close();
  }
  const baseline: number[] = [];
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    baseline.push(rawParseMs(file));
  }
  const openMs = median(open);
  const prepareMs = median(warm);
  return { mb, openMs, prepareMs, coldPrepareMs: median(cold), ratio: prepareMs / openMs, baselineMs: median(baseline), ...last! };
}

export async function runCompactionBench(opts: { mb?: number; runs?: number; log?: (line: string) => void } = {}) {
  const mb = opts.mb ?? Number(process.env.BENCH_MB ?? 100);
  const runs = opts.runs ?? 5;
  const log = opts.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), "pith-compaction-bench-"));
  try {
    const sizes: SizeFigures[] = [];
    for (const size of [mb / 4, mb / 2, mb]) {
      const file = join(dir, `s${size}.jsonl`);
      writeSyntheticSession(file, { targetBytes: Math.round(size * 1e6), seed: 7 });
      growToFullSpan(file);
      sizes.push(measure(file, size, runs));
      rmSync(file);
    }
    const ms = (n: number) => round(n, 2);
    log(
      table([
        ["prepare a compaction (median of " + runs + ")", "file MB", "entries", "open ms", "prepare ms", "prepare/open", "right after open ms", "plain parse ms", "span msgs", "span tokens", "serialized KB"],
        ...sizes.map((s) => [
          "synthetic session",
          round(s.mb, 1),
          s.entries,
          ms(s.openMs),
          ms(s.prepareMs),
          `${round(s.ratio * 100, 2)}%`,
          ms(s.coldPrepareMs),
          ms(s.baselineMs),
          s.spanMessages,
          s.spanTokens,
          round(s.serializedBytes / 1024, 1),
        ]),
      ]),
    );
    const full = sizes[sizes.length - 1];
    log(`at ${full.mb} MB: prepare in a running session = ${round(full.ratio * 100, 2)}% of open (target < ${TARGET_RATIO * 100}%): ${full.ratio < TARGET_RATIO ? "met" : "MISSED"}`);
    log(`  right after opening (the context's entries parsed as well): ${round((full.coldPrepareMs / full.openMs) * 100, 2)}% of open, ${round((full.coldPrepareMs / full.baselineMs) * 100, 2)}% of a plain parse`);
    log(`prepare ms per 1k span tokens: ${sizes.map((s) => round((s.prepareMs / s.spanTokens) * 1000, 3)).join(", ")} (flat = grows with the span, not the file)`);

    let estimator: unknown = null;
    if (existsSync(FIXTURE)) {
      const session = SessionFile.open(FIXTURE, { readOnly: true });
      const deltas = usageDeltas(session.buildContext().messages);
      session.close();
      const ours = estimatorError(deltas, estimateMessageTokens);
      const pi = estimatorError(deltas, charsOver4);
      log("");
      log(`token estimates against ${deltas.length} real usage deltas of the Pi fixture:`);
      log(
        table([
          ["estimator", "mean abs error", "median abs error", "estimated / real"],
          ["pith (character classes + framing)", `${round(ours.mape * 100)}%`, `${round(ours.medianApe * 100)}%`, round(ours.sumRatio, 3)],
          ["chars / 4 (Pi)", `${round(pi.mape * 100)}%`, `${round(pi.medianApe * 100)}%`, round(pi.sumRatio, 3)],
        ]),
      );
      estimator = { pairs: deltas.length, pith: ours, charsOver4: pi };
    } else log(`(Pi fixture not found at ${FIXTURE}: estimator figures skipped)`);

    const framing = framingCost();
    const usd = (n: number) => `$${round(n, 4)}`;
    log("");
    log("cost per compaction by summary framing (scripted sessions of 260 and 800 turns, Sonnet prices, cache reads 0.1x, writes 1.25x, 5-minute life):");
    const rows = [framing.large.conversation, framing.large.transcript, framing.cold, framing.small.conversation, framing.small.transcript];
    log(
      table([
        ["session", "framing", "written", "compactions", "input", "cache read", "cache write", "output", "USD per compaction", "first request after (USD)"],
        ...rows.map((f) => [f.session, f.framing, f.pauseMs === 0 ? "right after a turn" : `${f.pauseMs / 60_000} min idle`, f.compactions, Math.round(f.perCompaction.input), Math.round(f.perCompaction.cacheRead), Math.round(f.perCompaction.cacheWrite), f.perCompaction.output, usd(f.perCompaction.cost), usd(f.firstAfter.cost)]),
      ]),
    );
    for (const [name, c] of [["large tool outputs", framing.large], ["small tool outputs", framing.small]] as const) {
      log(`${name}: conversation / transcript per compaction ${round(c.ratio, 3)}x (target <= 0.2x: ${c.ratio <= 0.2 ? "met" : "MISSED"}); first request after ${round(c.firstAfterRatio, 3)}x`);
    }
    const figures = { bench: "compaction", sizes, prepareOverOpen: round(full.ratio, 4), meetsTarget: full.ratio < TARGET_RATIO, estimator, framing };
    log("");
    log(JSON.stringify(figures));
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
