// What a compaction's summary cost: the usage of every summarizer request it made, summed (a
// request that failed or was retried counts too: it was billed).
import type { Usage } from "../messages/types.js";

/** Tokens by kind and their price in USD (compaction_end.cost, getSessionStats' compaction total). */
export interface SummaryCost {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** USD at the summarizer model's prices */
  cost: number;
}

export function emptyCost(): SummaryCost {
  return { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, cost: 0 };
}

/** Adds one request's usage to `into`. */
export function addUsage(into: SummaryCost, usage: Usage | undefined): void {
  if (!usage) return;
  into.input += usage.input;
  into.cacheRead += usage.cacheRead;
  into.cacheWrite += usage.cacheWrite;
  into.output += usage.output;
  into.cost += usage.cost?.total ?? 0;
}

/** Adds `b` to `a`. */
export function addCost(a: SummaryCost, b: SummaryCost | undefined): void {
  if (!b) return;
  a.input += b.input;
  a.cacheRead += b.cacheRead;
  a.cacheWrite += b.cacheWrite;
  a.output += b.output;
  a.cost += b.cost;
}
