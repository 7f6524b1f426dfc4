// Usage figures in the stored shape, with their cost from the model's prices.
import type { Usage } from "../messages/types.js";
import type { ModelInfo } from "./types.js";

export interface RawUsage {
  input?: number | null;
  output?: number | null;
  cacheRead?: number | null;
  cacheWrite?: number | null;
}

export function makeUsage(raw: RawUsage, pricing: ModelInfo["pricing"]): Usage {
  const input = raw.input ?? 0;
  const output = raw.output ?? 0;
  const cacheRead = raw.cacheRead ?? 0;
  const cacheWrite = raw.cacheWrite ?? 0;
  const per = (tokens: number, price: number) => (tokens * price) / 1_000_000;
  const cost = { input: per(input, pricing.input), output: per(output, pricing.output), cacheRead: per(cacheRead, pricing.cacheRead), cacheWrite: per(cacheWrite, pricing.cacheWrite), total: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}
