// A questioned context's scores from its probes' records: each deterministic dimension's mean,
// overall by the dimensions' weights, the contradiction rate, and the judge's grades averaged.
import { JUDGED, judgedMean, type Judged, type Judgment } from "./judge.js";
import { DIMENSIONS, WEIGHTS, type Dimension, type Expected } from "./probes.js";

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
  /** the tools the answer called instead of answering from what it knew (not run): it would have looked again */
  toolCalls?: string[];
  error?: string;
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

export function judgedScores(probes: readonly ProbeRecord[]): JudgedScores | undefined {
  const graded = probes.map((p) => p.judgment).filter((j): j is Judgment => j !== undefined);
  if (graded.length === 0) return undefined;
  const out = { overall: mean(graded.map(judgedMean)) } as JudgedScores;
  for (const k of JUDGED) out[k] = mean(graded.map((j) => j[k]));
  return out;
}
