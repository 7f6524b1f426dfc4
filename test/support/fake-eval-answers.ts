// What the fake eval models answer (fake-eval-models.ts serves them): a keeper's summary that
// carries every needle of the text it was given, a dropper's that carries none, probe answers
// worked out from the context alone, and a judge's grade from word overlap. Deterministic, so a
// test can say what each configuration must score.
import { ARTIFACTS_QUESTION, CONTINUATION_QUESTION } from "../../src/eval/probes.js";
import type { Truth } from "../../src/eval/truth.js";
import { distinctiveWords, knownSentences, rankTruths, Shown } from "./fake-eval-needles.js";

export const DROPPED_SUMMARY = "## Goal\nContinue the work on the project.\n## Progress\nSeveral steps were done.";

const CATEGORIES = [
  ["read", "Read"],
  ["modified", "Modified"],
  ["created", "Created"],
  ["deleted", "Deleted"],
] as const;

/** each path of the truths that the text mentions, under the category of the first truth naming it */
function pathsByCategory(truths: readonly Truth[], shown: Shown): Map<string, string[]> {
  const seen = new Set<string>();
  const out = new Map<string, string[]>(CATEGORIES.map(([, heading]) => [heading, []]));
  for (const t of truths) {
    for (const [key, heading] of CATEGORIES) {
      for (const p of t.artifacts[key]) {
        if (seen.has(p) || !shown.mentionsPath(p)) continue;
        seen.add(p);
        out.get(heading)!.push(p);
      }
    }
  }
  return out;
}

const unique = (lines: string[]) => [...new Set(lines)];

/** The keeper's notes: every needle of every truth the given text holds, in pith's format. */
export function keeperSummary(truths: readonly Truth[], given: string): string {
  const shown = new Shown(given);
  const ranked = rankTruths(truths, shown);
  const facts = unique(ranked.flatMap((t) => t.facts.filter((f) => shown.mentions(f.answer)).map((f) => `- ${f.question} ${f.answer}`)));
  const decisions = unique(ranked.flatMap((t) => t.decisions.filter((d) => shown.mentions(d.chosen)).map((d) => `- **${d.question}**: ${d.chosen}${d.rejected.length ? ` (rejected: ${d.rejected.join(", ")})` : ""}`)));
  const next = unique(ranked.flatMap((t) => t.openTasks.filter((o) => o.keywords.every((k) => shown.mentions(k))).map((o) => `- next: ${o.task}`)));
  const known = unique(ranked.flatMap((t) => t.judge.flatMap((j) => knownSentences(j.reference, shown)).map((s) => `- ${s}`)));
  const files = [...pathsByCategory(ranked, shown)].filter(([, paths]) => paths.length > 0).map(([heading, paths]) => `### ${heading}\n${paths.map((p) => `- ${p}`).join("\n")}`);
  const section = (heading: string, lines: string[]) => `## ${heading}\n${lines.length ? lines.join("\n") : "(none)"}`;
  return [
    "## Goal\nCarry on the work recorded above.",
    section("Progress", known),
    section("Files", files),
    section("Key Decisions", decisions),
    section("Next Steps", next),
    section("Critical Context", facts),
  ].join("\n\n");
}

const RECALL_SUFFIX = "Give the exact value or wording.";
const DECISION_SUFFIX = "Answer in one sentence naming the approach.";
// the probes' own wording (src/eval/probes.ts): the first words tell which probe it is
const ARTIFACTS_START = ARTIFACTS_QUESTION.slice(0, 30);
const CONTINUATION_START = CONTINUATION_QUESTION.slice(0, 21);

type Match = { kind: "fact"; item: Truth["facts"][number] } | { kind: "decision"; item: Truth["decisions"][number] } | { kind: "judge"; item: Truth["judge"][number] };

/**
 * The item a probe asks about. Questions may repeat across cases: the longest question the probe
 * holds wins, and among equal ones the truth whose needles the context holds most (`ranked`).
 */
function matchProbe(ranked: readonly Truth[], probe: string): Match | undefined {
  const kinds: Match["kind"][] = probe.includes(RECALL_SUFFIX) ? ["fact", "decision", "judge"] : probe.includes(DECISION_SUFFIX) ? ["decision", "fact", "judge"] : ["judge", "fact", "decision"];
  for (const kind of kinds) {
    const candidates: Match[] = ranked.flatMap((t): Match[] =>
      kind === "fact" ? t.facts.map((item) => ({ kind, item })) : kind === "decision" ? t.decisions.map((item) => ({ kind, item })) : t.judge.map((item) => ({ kind, item })),
    );
    const hits = candidates.filter((c) => probe.includes(c.item.question));
    // a stable sort keeps the truths' rank among questions of the same length
    hits.sort((a, b) => b.item.question.length - a.item.question.length);
    if (hits[0]) return hits[0];
  }
  return undefined;
}

/** A probe's answer from the context alone (every model answers probes so). */
export function probeAnswer(truths: readonly Truth[], probe: string, context: string): string {
  const shown = new Shown(context);
  const ranked = rankTruths(truths, shown);
  if (probe.startsWith(ARTIFACTS_START)) {
    // the case's own files only: another case's file named in passing is not this session's
    const best = ranked[0];
    if (!best) return "I do not know which files were touched.";
    const byCategory = pathsByCategory([best], shown);
    return CATEGORIES.map(([, heading]) => `${heading}:\n${byCategory.get(heading)!.join("\n")}`).join("\n\n");
  }
  if (probe.startsWith(CONTINUATION_START)) {
    const task = ranked.map((t) => t.openTasks[0]).find((o) => o && o.keywords.every((k) => shown.mentions(k)));
    return task ? `Next: ${task.task}` : "I am not sure what is next.";
  }
  const match = matchProbe(ranked, probe);
  if (!match) return "I do not know.";
  switch (match.kind) {
    case "fact":
      return shown.mentions(match.item.answer) ? match.item.answer : "I do not know.";
    case "decision": {
      const d = match.item;
      // without the decision in view, the approach tried first comes back: the classic failure
      const named = shown.mentions(d.chosen) ? d.chosen : d.rejected[0];
      return named ? `We use ${named}.` : "I am not sure which approach was settled on.";
    }
    case "judge": {
      const known = knownSentences(match.item.reference, shown);
      return known.length ? known.join(" ") : "I do not remember.";
    }
  }
}

const DIMENSIONS = ["accuracy", "contextAwareness", "artifactTrail", "completeness", "continuity", "instructionFollowing"] as const;

/** The judge's grade: on every dimension, 5 × the share of the reference's distinctive words the answer holds. */
export function judgeGrade(reference: string, answer: string): string {
  const words = distinctiveWords(reference);
  const found = new Shown(answer).shareFound(words);
  const score = Math.round(5 * found);
  const grade: Record<string, number | string> = Object.fromEntries(DIMENSIONS.map((d) => [d, score]));
  grade.reason = `the answer holds ${Math.round(found * words.length)} of the reference's ${words.length} distinctive words`;
  return JSON.stringify(grade);
}
