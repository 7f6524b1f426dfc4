// The judge: a model grading a free-form answer against the case's reference on Factory's six
// dimensions, 0 to 5 each. It sees the question, the reference and the answer, never which
// configuration answered (nor the configuration's name, model or framing), so two configurations
// compared in one run are graded blind. Its reply is untrusted: one JSON object is looked for,
// each score must be a number from 0 to 5, anything else is that judgment's error.

export const JUDGED = ["accuracy", "contextAwareness", "artifactTrail", "completeness", "continuity", "instructionFollowing"] as const;
export type Judged = (typeof JUDGED)[number];
export type Judgment = Record<Judged, number> & { reason: string };

export const JUDGE_SYSTEM_PROMPT = `You grade answers about a coding session. An assistant worked on a software project for a long time; part of its history was replaced by a summary, and it was then asked a question about the session. You get the question, a reference answer written from the full history, and the assistant's answer.

Grade the answer against the reference on six dimensions, each an integer from 0 (wrong or missing) to 5 (complete and exact):
- accuracy: the facts, names, numbers and paths it states are correct
- contextAwareness: it knows where the work stands (what is done, what is not)
- artifactTrail: it knows which files were read, changed, created or deleted, and how
- completeness: it covers everything the reference covers
- continuity: someone could continue the work from it without redoing finished steps
- instructionFollowing: it respects the user's constraints and answers what was asked

Judge only against the reference: what the reference does not say cannot be checked, do not reward it. A confident wrong statement scores lower than an admitted gap.

Reply with one JSON object and nothing else:
{"accuracy": n, "contextAwareness": n, "artifactTrail": n, "completeness": n, "continuity": n, "instructionFollowing": n, "reason": "one sentence"}`;

export function judgePrompt(question: string, reference: string, answer: string): string {
  return `<question>\n${question}\n</question>\n\n<reference>\n${reference}\n</reference>\n\n<answer>\n${answer.trim() || "(no answer)"}\n</answer>`;
}

/** The judge's scores from its reply, or why there are none. */
export function parseJudgment(reply: string): Judgment | { error: string } {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start < 0 || end < start) return { error: "the judge's reply holds no JSON object" };
  let value: unknown;
  try {
    value = JSON.parse(reply.slice(start, end + 1));
  } catch {
    return { error: "the judge's reply is not valid JSON" };
  }
  if (typeof value !== "object" || value === null) return { error: "the judge's reply is not an object" };
  const o = value as Record<string, unknown>;
  const out = { reason: typeof o.reason === "string" ? o.reason.slice(0, 1000) : "" } as Judgment;
  for (const k of JUDGED) {
    const n = o[k];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0 || n > 5) return { error: `the judge's ${k} is not a number from 0 to 5` };
    out[k] = n;
  }
  return out;
}

export function judgedMean(j: Judgment): number {
  return JUDGED.reduce((a, k) => a + j[k], 0) / JUDGED.length;
}
