// What an eval found, per configuration: each dimension's mean and spread over the cases that
// were scored, the floor and the ceiling beside it, the judge's grades, what it cost, and every
// case with every probe (answers included). The JSON file is this object; the table prints it.
// The shape is documented in docs/eval.md.
import { JUDGED } from "./judge.js";
import { DIMENSIONS } from "./probes.js";
import type { JudgedScores, Scores } from "./case-scores.js";
import type { Questioned } from "./questioning.js";
import type { CaseResult } from "./run-case.js";
import { addTally, emptyTally, tokensOf, type Tally } from "./tally.js";

export interface Configuration {
  name: string;
  /** as given (undefined: the settings' default) */
  model?: string;
  summarizer?: string;
  framing?: "conversation" | "transcript";
}

/** One number over the cases: mean, standard deviation, range and how many cases it covers. */
export interface Spread {
  mean: number;
  sd: number;
  min: number;
  max: number;
  n: number;
}

export interface CaseReport {
  case: string;
  dimensions: Scores;
  judged?: JudgedScores;
  floor?: Scores & { judged?: JudgedScores };
  ceiling?: (Scores & { judged?: JudgedScores }) | { skipped: string };
  /** why the case was not scored (its ceiling failed its probes, or it could not run) */
  bad?: string;
  compactions: CaseResult["compactions"];
  skippedCompactions?: number;
  contextTokens: number;
  probes: CaseResult["probes"];
  floorProbes?: CaseResult["probes"];
  ceilingProbes?: CaseResult["probes"];
}

export interface ConfigurationReport {
  name: string;
  model: string;
  summarizer: string;
  framing: string;
  cycles: 1 | 2;
  dimensions: Record<string, Spread>;
  floor: Record<string, Spread>;
  ceiling: Record<string, Spread>;
  judged?: Record<string, Spread>;
  /** compactions: one request per compaction counted; brackets: the floor's and the ceiling's probes and grades (billed to the first configuration that asked them) */
  cost: { compactions: Tally; probes: Tally; judge: Tally; brackets: Tally; total: { tokens: number; cost: number } };
  cases: CaseReport[];
}

export interface EvalReport {
  version: 1;
  /** the scripted offline model answered: the scores say nothing about compaction */
  offline: boolean;
  /** stopped before the end (Ctrl-C): what was measured so far */
  interrupted: boolean;
  cases: number;
  /** cases left out before running (a bad folder entry) and why */
  skipped: { case: string; problem: string }[];
  configurations: ConfigurationReport[];
  /** the earlier report shown beside this one (--baseline) */
  baseline?: { file: string; name: string };
}

export function spread(xs: readonly number[]): Spread {
  const n = xs.length;
  if (n === 0) return { mean: 0, sd: 0, min: 0, max: 0, n: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs), n };
}

const KEYS = [...DIMENSIONS, "overall", "contradictions"] as const;

function spreads(rows: readonly (Scores | undefined)[]): Record<string, Spread> {
  const out: Record<string, Spread> = {};
  for (const k of KEYS) out[k] = spread(rows.flatMap((r) => (r && typeof r[k] === "number" ? [r[k] as number] : [])));
  return out;
}

function judgedSpreads(rows: readonly (JudgedScores | undefined)[]): Record<string, Spread> | undefined {
  const present = rows.filter((r): r is JudgedScores => r !== undefined);
  if (present.length === 0) return undefined;
  const out: Record<string, Spread> = {};
  for (const k of [...JUDGED, "overall"] as const) out[k] = spread(present.map((r) => r[k]));
  return out;
}

const withJudged = (q: Questioned) => ({ ...q.dimensions, ...(q.judged ? { judged: q.judged } : {}) });

/** One case's report from its three questionings. */
export function caseReport(result: CaseResult, floor: Questioned | undefined, ceiling: Questioned | { skipped: string } | undefined, badCeiling: number): CaseReport {
  const report: CaseReport = {
    case: result.case,
    dimensions: result.dimensions,
    ...(result.judged ? { judged: result.judged } : {}),
    compactions: result.compactions,
    ...(result.skippedCompactions > 0 ? { skippedCompactions: result.skippedCompactions } : {}),
    contextTokens: result.contextTokens,
    probes: result.probes,
  };
  if (floor) {
    report.floor = withJudged(floor);
    report.floorProbes = floor.probes;
  }
  if (ceiling && "skipped" in ceiling) report.ceiling = ceiling;
  else if (ceiling) {
    report.ceiling = withJudged(ceiling);
    report.ceilingProbes = ceiling.probes;
    if (ceiling.dimensions.overall < badCeiling) report.bad = `its ceiling (no compaction) scores ${ceiling.dimensions.overall.toFixed(2)} overall: the model cannot answer its probes even from the whole session`;
  }
  return report;
}

/** A configuration's totals over its cases; the bad ones are listed but not counted. */
export function configurationReport(config: Configuration, meta: { model: string; summarizer: string; framing: string; cycles: 1 | 2 }, cases: CaseReport[], cost: { compactions: Tally[]; probes: Tally[]; judge: Tally[]; brackets: Tally[] }): ConfigurationReport {
  const scored = cases.filter((c) => !c.bad);
  const sum = (ts: Tally[]) => ts.reduce((a, t) => (addTally(a, t), a), emptyTally());
  const totals = { compactions: sum(cost.compactions), probes: sum(cost.probes), judge: sum(cost.judge), brackets: sum(cost.brackets) };
  const all = [totals.compactions, totals.probes, totals.judge, totals.brackets];
  const judged = judgedSpreads(scored.map((c) => c.judged));
  return {
    name: config.name,
    ...meta,
    dimensions: spreads(scored.map((c) => c.dimensions)),
    floor: spreads(scored.map((c) => c.floor)),
    ceiling: spreads(scored.map((c) => (c.ceiling && !("skipped" in c.ceiling) ? c.ceiling : undefined))),
    ...(judged ? { judged } : {}),
    cost: { ...totals, total: { tokens: all.reduce((a, t) => a + tokensOf(t), 0), cost: all.reduce((a, t) => a + t.cost, 0) } },
    cases,
  };
}
