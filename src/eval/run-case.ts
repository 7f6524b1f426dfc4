// One case under one configuration, through the session host as a session goes: a copy of the
// case opened, compacted with pith's own compaction (once; or twice, the rest of the scripted work
// continued between), then asked the probes in the compacted context. The floor (a summary that
// keeps nothing, only the kept tail) and the ceiling (no compaction, when the case fits the
// model's window) are asked the same probes; they depend on the answering model only, so a
// comparison of summarizers or framings shares them.
import { join } from "node:path";
import type { SummaryCost } from "../compaction/cost.js";
import type { SessionHost } from "../host/session-host.js";
import type { LiveSession } from "../host/live/live-session.js";
import type { QuestionClient } from "../host/ports.js";
import { askAside } from "../host/live/aside-question.js";
import type { ModelInfo, Provider } from "../llm/types.js";
import type { EvalCase } from "./case-set.js";
import { appendEntry, copyCase } from "./case-session.js";
import { estimateMessageTokens } from "../compaction/estimate.js";
import { ErrorCode } from "../host/host-error.js";
import type { StoredMessage } from "../messages/types.js";
import { JUDGE_SYSTEM_PROMPT, JUDGED, judgedMean, judgePrompt, parseJudgment, type Judged, type Judgment } from "./judge.js";
import { DIMENSIONS, WEIGHTS, deterministicProbes, judgeProbes, type Dimension, type Expected } from "./probes.js";
import { scoreAnswer } from "./score.js";
import { addSummaryCost, addUsageTo, emptyTally, type Tally } from "./tally.js";

/**
 * A probe's answer is a sentence or a list of paths, but a reasoning model spends its output
 * budget on thinking first (a 1k cap leaves some with no text at all): room for both; only what
 * is written is billed.
 */
const PROBE_MAX_TOKENS = 8192;
const JUDGE_MAX_TOKENS = 2048;
/** An answer is kept and scored up to this many characters: a reply that streams on is not an answer. */
const MAX_ANSWER_CHARS = 32_000;
/** Probes of one session asked at once: they are independent requests over the same context. */
const PROBE_CONCURRENCY = 4;
/** After a compaction that could not free the context, how much it grows before the next try (a session's minSavingsFraction). */
const MIN_GROWTH = 0.1;
/** A ceiling that scores below this overall means the case's probes cannot be answered even from everything: a bad case. */
export const BAD_CEILING = 0.5;
/** What the floor's summary says: it keeps nothing (the protocol wants a non-empty summary from a hook). */
const FLOOR_SUMMARY = "(No notes were kept of the earlier part of this session.)";

/** contradictions: the share of decision probes whose answer proposed a turned-down approach (CompactBench's contradiction rate) */
export type Scores = Partial<Record<Dimension, number>> & { overall: number; contradictions?: number };
export type JudgedScores = Record<Judged, number> & { overall: number };

export interface ProbeRecord {
  id: string;
  dimension: Dimension | "judged";
  question: string;
  answer: string;
  expected: Expected | { reference: string };
  /** 0 to 1 (a deterministic probe), or the judge's mean, 0 to 5 (a judged one); null when it could not be scored */
  score: number | null;
  precision?: number;
  recall?: number;
  contradiction?: boolean;
  judgment?: Judgment;
  error?: string;
}

/** A context questioned: the compacted session, the floor or the ceiling. */
export interface Questioned {
  dimensions: Scores;
  judged?: JudgedScores;
  probes: ProbeRecord[];
  probeCost: Tally;
  judgeCost: Tally;
  /** the context's size when it was questioned */
  contextTokens: number;
}

interface Compaction {
  /** past the threshold as the case was replayed, at its midpoint (two cycles), or at its end */
  reason: "threshold" | "cycle" | "end";
  tokensBefore: number;
  tokensAfter: number;
  fallback?: string;
}

export interface CaseResult extends Questioned {
  case: string;
  /** compactions with nothing before their cut (a single turn longer than the part kept), skipped as a session skips them */
  skippedCompactions: number;
  /** the model that answered, as provider/id */
  model: string;
  compactions: Compaction[];
  compactionCost: Tally;
}

export interface Judge {
  model: ModelInfo;
  provider: Provider;
}

export interface CaseRunOptions {
  host: SessionHost;
  /** the model that answers (undefined: the settings' default) */
  model?: string;
  cycles: 1 | 2;
  judge?: Judge;
  /** where this run's copies of the case go */
  dir: string;
  /** the sessions' working directory */
  workspace: string;
  signal: AbortSignal;
  progress(step: string): void;
  /** tokens as they are spent, for the progress line */
  spent(tokens: number): void;
}

async function open(o: CaseRunOptions, file: string): Promise<LiveSession> {
  const ref = { sessionFile: file, cwd: o.workspace };
  const session = await o.host.perform("openSession", ref, () => o.host.open(ref));
  const model = o.model;
  if (model) await o.host.perform("setModel", { sessionId: session.id, model }, (held) => session.setModel(held, model));
  return session;
}

async function closeQuietly(o: CaseRunOptions, session: LiveSession): Promise<void> {
  await o.host.perform("closeSession", { sessionId: session.id }, () => o.host.close(session.id)).catch(() => {});
}

/** One compaction through the operation layer, with what compaction_end says it cost. */
async function compactOnce(o: CaseRunOptions, session: LiveSession, cost: Tally, reason: Compaction["reason"]): Promise<Compaction> {
  let spent: SummaryCost | undefined;
  const listener = (event: { type: string; cost?: unknown }) => {
    if (event.type === "compaction_end" && event.cost) spent = event.cost as SummaryCost;
  };
  // the compaction holds the session's own signal: the eval's abort (Ctrl-C) is the session's abort
  const onAbort = () => void o.host.perform("abort", { sessionId: session.id }, () => session.abort()).catch(() => {});
  o.signal.addEventListener("abort", onAbort, { once: true });
  session.subscribe(listener);
  try {
    if (o.signal.aborted) throw o.signal.reason;
    const r = await o.host.perform("compact", { sessionId: session.id }, (held) => session.compact(held));
    addSummaryCost(cost, spent);
    cost.requests++;
    if (spent) o.spent(spent.input + spent.output + spent.cacheRead + spent.cacheWrite);
    return { reason, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter, ...(r.fallback ? { fallback: r.fallback.reason } : {}) };
  } finally {
    o.signal.removeEventListener("abort", onAbort);
    session.unsubscribe(listener);
  }
}

/**
 * Runs `fn` over `items`, `limit` at a time, results in order; the first alone, before the rest:
 * the probes of a context share its whole prefix, and the first one's request writes it to the
 * provider's prompt cache, which the others then read (at a tenth of the price, where it caches)
 * instead of each writing it again.
 */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  if (items.length === 0) return out;
  out[0] = await fn(items[0]);
  let next = 1;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The deterministic dimensions of some probes, and overall by their weights (a dimension without probes counts for nothing). */
export function dimensionScores(probes: readonly ProbeRecord[]): Scores {
  const out: Scores = { overall: 0 };
  let weight = 0;
  for (const d of DIMENSIONS) {
    const of = probes.filter((p) => p.dimension === d);
    if (of.length === 0) continue;
    out[d] = mean(of.map((p) => p.score ?? 0));
    out.overall += WEIGHTS[d] * out[d];
    weight += WEIGHTS[d];
  }
  out.overall = weight === 0 ? 0 : out.overall / weight;
  const decisions = probes.filter((p) => p.dimension === "decisions");
  if (decisions.length > 0) out.contradictions = decisions.filter((p) => p.contradiction).length / decisions.length;
  return out;
}

function judgedScores(probes: readonly ProbeRecord[]): JudgedScores | undefined {
  const graded = probes.map((p) => p.judgment).filter((j): j is Judgment => j !== undefined);
  if (graded.length === 0) return undefined;
  const out = { overall: mean(graded.map(judgedMean)) } as JudgedScores;
  for (const k of JUDGED) out[k] = mean(graded.map((j) => j[k]));
  return out;
}

async function judgeAnswer(judge: Judge, question: string, reference: string, answer: string, signal: AbortSignal, cost: Tally, spent: (tokens: number) => void): Promise<Judgment | { error: string }> {
  const request = {
    model: judge.model,
    systemPrompt: JUDGE_SYSTEM_PROMPT,
    messages: [{ role: "user" as const, content: judgePrompt(question, reference, answer), timestamp: Date.now() }],
    tools: [],
    maxTokens: Math.min(JUDGE_MAX_TOKENS, judge.model.maxOutputTokens),
  };
  const reply = await askAside(judge.provider, request, signal);
  addUsageTo(cost, reply.usage);
  spent(reply.usage.input + reply.usage.output + reply.usage.cacheRead + reply.usage.cacheWrite);
  if (reply.error) return { error: `the judge failed: ${reply.error}` };
  return parseJudgment(reply.text);
}

/** Asks a live session every probe of the case (and the judge's, graded), and scores the answers. */
async function question(o: CaseRunOptions, session: LiveSession, c: EvalCase, label: string): Promise<Questioned> {
  const probeCost = emptyTally();
  const judgeCost = emptyTally();
  const contextTokens = session.contextTokens();
  const asked = [...deterministicProbes(c.truth).map((p) => ({ ...p, reference: undefined as string | undefined })), ...(o.judge ? judgeProbes(c.truth) : []).map((p) => ({ ...p, expected: undefined as Expected | undefined }))];
  let done = 0;
  const records = await pool(asked, PROBE_CONCURRENCY, async (p): Promise<ProbeRecord> => {
    if (o.signal.aborted) throw o.signal.reason;
    const reply = await session.aside.ask(p.question, o.signal, PROBE_MAX_TOKENS);
    addUsageTo(probeCost, reply.usage);
    o.spent(reply.usage.input + reply.usage.output + reply.usage.cacheRead + reply.usage.cacheWrite);
    o.progress(`${label}: probe ${++done}/${asked.length}`);
    const answer = reply.text.slice(0, MAX_ANSWER_CHARS);
    const base = { id: p.id, question: p.question, answer, ...(reply.error ? { error: reply.error } : {}) };
    if (p.expected) return { ...base, dimension: p.expected.dimension, expected: p.expected, ...scoreAnswer(answer, p.expected) };
    const reference = p.reference as string;
    const judgment = reply.error ? { error: reply.error } : await judgeAnswer(o.judge as Judge, p.question, reference, answer, o.signal, judgeCost, o.spent);
    if ("error" in judgment) return { ...base, dimension: "judged", expected: { reference }, score: null, error: judgment.error };
    return { ...base, dimension: "judged", expected: { reference }, score: judgedMean(judgment), judgment };
  });
  if (o.signal.aborted) throw o.signal.reason;
  const judged = judgedScores(records);
  return { dimensions: dimensionScores(records), ...(judged ? { judged } : {}), probes: records, probeCost, judgeCost, contextTokens };
}

/** Whether a session compacts before its next model call here: not between a tool call and its result. */
function beforeModelCall(m: StoredMessage): boolean {
  return !(m.role === "assistant" && m.content.some((b) => b.type === "toolCall"));
}

/**
 * The configuration's own result. The case is replayed into the session entry by entry, and
 * compacted where a session would compact it: past the threshold (your window, your settings),
 * before a model call, when automatic compaction is on; at the case's midpoint too with two
 * cycles; and once more at its end, the compaction the probes question (unless one just happened
 * and nothing lies before the cut). Then the probes.
 */
export async function runCompacted(o: CaseRunOptions, c: EvalCase, tag: string): Promise<CaseResult> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.jsonl`), "opening");
  const session = await open(o, copy.file);
  try {
    const compactionCost = emptyTally();
    const compactions: Compaction[] = [];
    const state = session.getState();
    const threshold = state.threshold ?? Number.POSITIVE_INFINITY;
    const auto = state.autoCompactionEnabled;
    /** the context's size after compacting; a compaction with nothing before its cut is skipped, as a session skips it */
    const compactNow = async (reason: Compaction["reason"]): Promise<number> => {
      session.file.sync();
      o.progress(`compacting ${compactions.length + 1} (${reason}, ${session.contextTokens()} tokens)`);
      // as in a session that just ran: its last request is there for a summary framed as the conversation
      session.aside.recordLastRequest();
      try {
        compactions.push(await compactOnce(o, session, compactionCost, reason));
      } catch (err) {
        if ((err as { code?: unknown }).code !== ErrorCode.NothingToCompact) throw err;
        skipped++;
      }
      return session.contextTokens();
    };
    let skipped = 0;
    let tokens = session.contextTokens();
    // after a skip, tried again once the context grew by the share a session waits for (compaction-skips.ts)
    let retryAbove = threshold;
    for (const [i, entry] of copy.rest.entries()) {
      if (o.signal.aborted) throw o.signal.reason;
      const m = appendEntry(session.file, entry);
      if (!m) continue;
      tokens += estimateMessageTokens(m);
      if (!beforeModelCall(m)) continue;
      if (o.cycles === 2 && entry.id === c.truth.cycleBreak) tokens = await compactNow("cycle");
      else if (auto && tokens > retryAbove) {
        tokens = await compactNow("threshold");
        retryAbove = tokens > threshold ? tokens * (1 + MIN_GROWTH) : threshold;
      }
      if (i % 200 === 0) o.progress(`replaying the case (${Math.round((100 * i) / copy.rest.length)}%)`);
    }
    await compactNow("end");
    if (compactions.length === 0) throw new Error(`nothing to compact: the whole case (${tokens} tokens) fits in the part a compaction keeps verbatim`);
    const questioned = await question(o, session, c, "compacted");
    const m = session.getState().model;
    return { case: c.name, model: `${m.provider}/${m.id}`, compactions, skippedCompactions: skipped, compactionCost, ...questioned };
  } finally {
    await closeQuietly(o, session);
  }
}

/** The floor: the same cut with a summary that keeps nothing (written by a beforeCompact hook, as a client's would be). */
export async function runFloor(o: CaseRunOptions, c: EvalCase, tag: string): Promise<Questioned> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.floor.jsonl`), "all");
  const session = await open(o, copy.file);
  const nothing: QuestionClient = { answers: (m) => m === "beforeCompact", ask: async () => ({ action: "replace", summary: FLOOR_SUMMARY }) };
  o.host.questions.join(session.id, nothing);
  try {
    o.progress("floor: compacting");
    await compactOnce(o, session, emptyTally(), "end");
    return await question(o, session, c, "floor");
  } finally {
    o.host.questions.leave(session.id, nothing);
    await closeQuietly(o, session);
  }
}

/** The ceiling: no compaction, when the whole case and a probe's answer fit the model's window; else why not. */
export async function runCeiling(o: CaseRunOptions, c: EvalCase, tag: string): Promise<Questioned | { skipped: string }> {
  const copy = copyCase(c, join(o.dir, `${c.name}.${tag}.ceiling.jsonl`), "all");
  const session = await open(o, copy.file);
  try {
    const { contextTokens, contextWindow } = session.usage();
    if (contextTokens + PROBE_MAX_TOKENS + 512 > contextWindow) return { skipped: `the case (${contextTokens} tokens) does not fit the model's window (${contextWindow})` };
    return await question(o, session, c, "ceiling");
  } finally {
    await closeQuietly(o, session);
  }
}
