// The questions `pith eval` asks a compacted session, read off a case's ground truth. Each is one
// user message after the context, never stored. The deterministic ones ask for something a
// script can check (a planted token, a list of paths, the next task, a settled approach); the
// judge's are free-form and graded against a reference by a judge model (judge.ts).
import type { Truth } from "./truth.js";

/** Every probe opens with this: the model answers from the context, not by looking again. */
export const PROBE_PREFIX = "Answer from what you know of this session so far, without calling any tools.";

export type Dimension = "recall" | "artifacts" | "continuation" | "decisions";
export const DIMENSIONS: readonly Dimension[] = ["recall", "artifacts", "continuation", "decisions"];

/**
 * How much each dimension counts in `overall`, after CompactBench's weights: a locked decision
 * broken (a rejected approach proposed again) x3, a fact and an unfinished task x2, the files
 * (entity integrity) x1.
 */
export const WEIGHTS: Readonly<Record<Dimension, number>> = { decisions: 3, recall: 2, continuation: 2, artifacts: 1 };

export type Expected =
  | { dimension: "recall"; answer: string }
  | { dimension: "artifacts"; files: readonly string[] }
  | { dimension: "continuation"; keywords: readonly string[] }
  | { dimension: "decisions"; chosen: string; rejected: readonly string[] };

export interface Probe {
  /** stable within a case: fact and decision ids, "artifacts", "continuation" */
  id: string;
  question: string;
  expected: Expected;
}

export interface JudgeProbe {
  id: string;
  question: string;
  reference: string;
}

const ask = (text: string) => `${PROBE_PREFIX}\n\n${text}`;

export const ARTIFACTS_QUESTION =
  "List every file of the project this session has read, modified, created or deleted, one path per line, relative to the project root, under the headings Read:, Modified:, Created:, Deleted:.";
export const CONTINUATION_QUESTION = "What is the next task to do in this session? Answer in one sentence.";

/** Every file the truth names, once. */
function truthFiles(truth: Truth): string[] {
  const { read, modified, created, deleted } = truth.artifacts;
  return [...new Set([...read, ...modified, ...created, ...deleted])];
}

export function deterministicProbes(truth: Truth): Probe[] {
  const probes: Probe[] = truth.facts.map((f) => ({ id: `fact:${f.id}`, question: ask(`${f.question} Give the exact value or wording.`), expected: { dimension: "recall", answer: f.answer } }));
  const files = truthFiles(truth);
  if (files.length > 0) probes.push({ id: "artifacts", question: ask(ARTIFACTS_QUESTION), expected: { dimension: "artifacts", files } });
  probes.push({ id: "continuation", question: ask(CONTINUATION_QUESTION), expected: { dimension: "continuation", keywords: truth.openTasks[0].keywords } });
  for (const d of truth.decisions) probes.push({ id: `decision:${d.id}`, question: ask(`${d.question} Answer in one sentence naming the approach.`), expected: { dimension: "decisions", chosen: d.chosen, rejected: d.rejected } });
  return probes;
}

export function judgeProbes(truth: Truth): JudgeProbe[] {
  return truth.judge.map((j, i) => ({ id: `judge:${i + 1}`, question: ask(j.question), reference: j.reference }));
}
