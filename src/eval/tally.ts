// Tokens and dollars, summed over requests: a configuration's compactions, probes and judgments.
// A compaction's own sum (compaction/cost.ts) with the number of requests beside it.
import type { Usage } from "../messages/types.js";
import { addCost, addUsage, emptyCost, type SummaryCost } from "../compaction/cost.js";

export type Tally = SummaryCost & { requests: number };

export function emptyTally(): Tally {
  return { ...emptyCost(), requests: 0 };
}

/** One request, and what it used. */
export function addUsageTo(t: Tally, u: Usage | undefined): void {
  t.requests++;
  addUsage(t, u);
}

export function addTally(into: Tally, t: Tally): void {
  addCost(into, t);
  into.requests += t.requests;
}

/** Every token, of every kind. */
export function tokensOf(t: Pick<SummaryCost, "input" | "output" | "cacheRead" | "cacheWrite">): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}
