// Scoring an answer against what a probe expects, without a judge: plain text checks, so a score
// means the same with every model. Scores run from 0 to 1.
import type { Expected } from "./probes.js";

export interface Scored {
  score: number;
  /** artifacts: the share of the paths named that are the session's, and of the session's that were named */
  precision?: number;
  recall?: number;
  /** decisions: the answer proposes an approach that was turned down */
  contradiction?: boolean;
}

/** Lower case, markdown's emphasis and code marks gone, runs of white space as one space. */
function normalize(text: string): string {
  return text.toLowerCase().replace(/[`*]/g, "").replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"').replace(/\s+/g, " ").trim();
}

function contains(answer: string, token: string): boolean {
  const t = normalize(token);
  return t.length > 0 && normalize(answer).includes(t);
}

/** Path-like tokens: with a slash, or a name with an extension (not a number, not "e.g.", not a folder's "dir/"). */
export function mentionedPaths(answer: string): string[] {
  const out = new Set<string>();
  for (const raw of answer.match(/[A-Za-z0-9_.@~+\-/]+/g) ?? []) {
    const p = raw.replace(/^\.\//, "").replace(/[.:,;)]+$/, "");
    if (p.endsWith("/")) continue;
    const dot = p.lastIndexOf(".");
    const ext = dot > 0 ? p.slice(dot + 1) : "";
    const named = !p.includes("/") && dot >= 2 && /[a-z]/i.test(ext) && /^[A-Za-z0-9]+$/.test(ext);
    if ((p.includes("/") && /[A-Za-z]/.test(p) && !/^\/+$/.test(p)) || named) out.add(p);
  }
  return [...out];
}

const baseName = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/**
 * A path named in an answer is the session's file when equal to it, an absolute path ending in it,
 * or its bare name when no other file of the session has that name.
 */
function sameFile(named: string, file: string, files: readonly string[]): boolean {
  if (named === file || named.endsWith(`/${file}`)) return true;
  return !named.includes("/") && baseName(file) === named && files.filter((f) => baseName(f) === named).length === 1;
}

function scoreArtifacts(answer: string, files: readonly string[]): Scored {
  const named = mentionedPaths(answer);
  const matches = (n: string, f: string) => sameFile(n, f, files);
  const found = files.filter((f) => named.some((n) => matches(n, f)));
  const right = named.filter((n) => files.some((f) => matches(n, f)));
  const precision = named.length === 0 ? 0 : right.length / named.length;
  const recall = files.length === 0 ? 1 : found.length / files.length;
  const score = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { score, precision, recall };
}

/** Words before a turned-down approach that say it is turned down: naming it so is no contradiction. */
const NEGATION = /\b(not|no longer|instead of|rather than|rejected|reject|abandon(?:ed)?|dropped|drop|avoid|over|replac(?:e|ed|ing)|never|won't|don't|isn't|without)\b[^.;!?]*$/;

function proposes(answer: string, approach: string): boolean {
  const a = normalize(answer);
  const t = normalize(approach);
  if (!t) return false;
  for (let i = a.indexOf(t); i >= 0; i = a.indexOf(t, i + 1)) {
    const before = a.slice(Math.max(0, i - 60), i);
    if (!NEGATION.test(before)) return true;
  }
  return false;
}

export function scoreAnswer(answer: string, expected: Expected): Scored {
  switch (expected.dimension) {
    case "recall":
      return { score: contains(answer, expected.answer) ? 1 : 0 };
    case "artifacts":
      return scoreArtifacts(answer, expected.files);
    case "continuation": {
      const hits = expected.keywords.filter((k) => contains(answer, k)).length;
      return { score: hits / expected.keywords.length };
    }
    case "decisions": {
      const contradiction = expected.rejected.some((r) => proposes(answer, r));
      return { score: !contradiction && contains(answer, expected.chosen) ? 1 : 0, contradiction };
    }
  }
}
