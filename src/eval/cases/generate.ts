// The shipped eval cases: long coding sessions with their ground truth, made the same byte for byte
// from a seed (scripts/gen-eval-cases.ts writes them out; docs/eval.md says how to add your own).
import { buildCase, type GeneratedCase } from "./storyline.js";
import { SCENARIOS } from "./scenarios.js";

export type { GeneratedCase } from "./storyline.js";

/** the seed the shipped cases are generated with */
export const SHIPPED_SEED = 1;
/** bumped whenever the generator's output changes, so stored scores name the cases they measured */
export const CASES_VERSION = 1;

export function generateCases(seed: number = SHIPPED_SEED): GeneratedCase[] {
  return SCENARIOS.map((sc, i) => buildCase(sc, seed, i));
}
