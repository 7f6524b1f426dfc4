// Tokens and dollars, summed over requests: a configuration's compactions, probes and judgments.
import type { Usage } from "../messages/types.js";
import type { SummaryCost } from "../compaction/cost.js";

export interface Tally {
  requests: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD at each model's prices (0 for a model without prices) */
  cost: number;
}

export function emptyTally(): Tally {
  return { requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

export function addUsageTo(t: Tally, u: Usage | undefined): void {
  t.requests++;
  if (!u) return;
  t.input += u.input;
  t.output += u.output;
  t.cacheRead += u.cacheRead;
  t.cacheWrite += u.cacheWrite;
  t.cost += u.cost?.total ?? 0;
}

export function addSummaryCost(t: Tally, c: SummaryCost | undefined): void {
  if (!c) return;
  t.input += c.input;
  t.output += c.output;
  t.cacheRead += c.cacheRead;
  t.cacheWrite += c.cacheWrite;
  t.cost += c.cost;
}

export function addTally(into: Tally, t: Tally): void {
  for (const k of ["requests", "input", "output", "cacheRead", "cacheWrite", "cost"] as const) into[k] += t[k];
}

export function tokensOf(t: Tally): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}
