// Identifiers from a case's vocabulary (its domain's nouns and verbs), in each language's style.
import type { Prng } from "./prng.js";

export interface Vocabulary {
  nouns: readonly string[];
  verbs: readonly string[];
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** what kind of code a project holds: an HTTP service, a command-line tool, a batch pipeline, a Kubernetes operator */
export type Flavor = "service" | "tool" | "pipeline" | "operator";

export const camel = (...words: string[]): string => words.map((w, i) => (i === 0 ? w : cap(w))).join("");
export const pascal = (...words: string[]): string => words.map(cap).join("");
export const snake = (...words: string[]): string => words.join("_");

/** a verb and one or two nouns, e.g. ["load", "order", "batch"] */
export function phrase(rng: Prng, vocab: Vocabulary): string[] {
  const words = [rng.pick(vocab.verbs), rng.pick(vocab.nouns)];
  if (rng.chance(0.4)) words.push(rng.pick(["batch", "summary", "window", "state", "entry", "page", "index", "report"]));
  return words;
}
