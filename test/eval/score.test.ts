// The eval's deterministic scoring and the judge's reply, as pure functions: what counts as
// naming a token, a file, the next task and a settled approach, and what a judge's reply must be.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJudgment } from "../../src/eval/judge.js";
import { deterministicProbes, PROBE_PREFIX } from "../../src/eval/probes.js";
import { dimensionScores } from "../../src/eval/case-scores.js";
import { mentionedPaths, scoreAnswer } from "../../src/eval/score.js";
import { Truth } from "../../src/eval/truth.js";
import { configurationsOf } from "../../src/cli/eval-command.js";

test("recall: the exact token, whatever the case, markdown or spacing around it", () => {
  const e = { dimension: "recall", answer: "ERR_LEDGER_DRIFT: 3 rows" } as const;
  assert.equal(scoreAnswer("It failed with `err_ledger_drift:  3 rows`.", e).score, 1);
  assert.equal(scoreAnswer("It failed with a ledger drift error.", e).score, 0);
  assert.equal(scoreAnswer("", e).score, 0);
});

test("artifacts: precision and recall of the paths named, absolute paths ending in a project path included", () => {
  const e = { dimension: "artifacts", files: ["src/a.ts", "src/b.ts", "test/c.test.ts", "package.json"] } as const;
  const all = scoreAnswer("Read:\n- src/a.ts\n- /home/dev/shop/src/b.ts\nModified:\n- `test/c.test.ts`\nCreated:\n- package.json", e);
  assert.deepEqual([all.precision, all.recall, all.score], [1, 1, 1]);
  const half = scoreAnswer("Read: src/a.ts, src/z.ts (e.g. the helpers). Version 3.14 of it.", e);
  assert.equal(half.precision, 0.5);
  assert.equal(half.recall, 0.25);
  assert.ok(Math.abs(half.score - 1 / 3) < 1e-9);
  assert.equal(scoreAnswer("I do not know.", e).score, 0);
  assert.deepEqual(mentionedPaths("see ./src/x.ts: and docs/ and e.g. 2.5 and README.md."), ["src/x.ts", "README.md"]);
  // a bare name counts when it names one file of the session only
  const bare = { dimension: "artifacts", files: ["src/a/index.ts", "src/b/index.ts", "src/a/only.ts"] } as const;
  assert.deepEqual(scoreAnswer("index.ts, only.ts", bare).recall, 1 / 3);
});

test("continuation: the share of the next task's keywords named", () => {
  const e = { dimension: "continuation", keywords: ["rate limiter", "Retry-After"] } as const;
  assert.equal(scoreAnswer("Add the retry-after header to the rate limiter.", e).score, 1);
  assert.equal(scoreAnswer("Finish the rate limiter.", e).score, 0.5);
  assert.equal(scoreAnswer("Write the changelog.", e).score, 0);
});

test("decisions: the chosen approach, and a rejected one proposed is a contradiction, one turned down in words is not", () => {
  const e = { dimension: "decisions", chosen: "optimistic locking", rejected: ["advisory locks"] } as const;
  assert.deepEqual(scoreAnswer("We use optimistic locking.", e), { score: 1, contradiction: false });
  assert.deepEqual(scoreAnswer("Optimistic locking, not advisory locks.", e), { score: 1, contradiction: false });
  assert.deepEqual(scoreAnswer("We use optimistic locking instead of advisory locks, which deadlocked.", e), { score: 1, contradiction: false });
  assert.deepEqual(scoreAnswer("We take advisory locks around each batch.", e), { score: 0, contradiction: true });
  assert.deepEqual(scoreAnswer("Advisory locks first, then optimistic locking for retries.", e), { score: 0, contradiction: true });
  assert.deepEqual(scoreAnswer("I am not sure.", e), { score: 0, contradiction: false });
});

test("overall weighs decisions x3, recall and continuation x2, artifacts x1; a dimension without probes counts for nothing", () => {
  const p = (dimension: "recall" | "artifacts" | "continuation" | "decisions", score: number, contradiction?: boolean) => ({ id: "x", dimension, question: "", answer: "", expected: { reference: "" }, score, contradiction });
  const s = dimensionScores([p("recall", 1), p("recall", 0), p("artifacts", 1), p("continuation", 0), p("decisions", 1), p("decisions", 0, true)]);
  assert.deepEqual(s, { recall: 0.5, artifacts: 1, continuation: 0, decisions: 0.5, overall: (2 * 0.5 + 1 + 0 + 3 * 0.5) / 8, contradictions: 0.5 });
  assert.deepEqual(dimensionScores([p("recall", 1)]), { recall: 1, overall: 1 });
});

test("the probes come from the truth, each opening with the prefix, the questions never giving the answer away", () => {
  const truth = Truth.parse({
    version: 1, name: "t", description: "", shape: "short", thinking: false, cycleBreak: "e1",
    facts: [{ id: "port", question: "Which port?", answer: "48213", kind: "value" }],
    artifacts: { read: ["a.ts"], modified: [], created: [], deleted: ["b.ts"] },
    openTasks: [{ task: "do x", keywords: ["x"] }],
    decisions: [{ id: "d", question: "Which lock?", chosen: "optimistic", rejected: ["advisory"] }],
    judge: [],
  });
  const probes = deterministicProbes(truth);
  assert.deepEqual(probes.map((p) => p.id), ["fact:port", "artifacts", "continuation", "decision:d"]);
  for (const p of probes) assert.ok(p.question.startsWith(PROBE_PREFIX + "\n\n"));
  assert.ok(!probes[0].question.includes("48213"));
  assert.deepEqual(probes[1].expected, { dimension: "artifacts", files: ["a.ts", "b.ts"] });
});

test("a judge's reply: one JSON object with six scores from 0 to 5, anything else an error", () => {
  const ok = parseJudgment('Here: {"accuracy": 5, "contextAwareness": 4, "artifactTrail": 3, "completeness": 2, "continuity": 1, "instructionFollowing": 0, "reason": "fine"} done');
  assert.ok(!("error" in ok) && ok.accuracy === 5 && ok.instructionFollowing === 0 && ok.reason === "fine");
  assert.match((parseJudgment("no json here") as { error: string }).error, /no JSON object/);
  assert.match((parseJudgment("{not json}") as { error: string }).error, /not valid JSON/);
  assert.match((parseJudgment('{"accuracy": 9, "contextAwareness": 4, "artifactTrail": 3, "completeness": 2, "continuity": 1, "instructionFollowing": 0}') as { error: string }).error, /accuracy is not a number from 0 to 5/);
  assert.match((parseJudgment('{"accuracy": "5"}') as { error: string }).error, /accuracy/);
});

test("--compare and --framing make the configurations, or a usage error", () => {
  assert.deepEqual(configurationsOf({}), [{ name: "pith", model: undefined, summarizer: undefined, framing: undefined }]);
  const two = configurationsOf({ compare: "framing=conversation,transcript", model: "m" });
  assert.ok(Array.isArray(two));
  assert.deepEqual(two.map((c) => [c.name, c.framing, c.model]), [["framing=conversation", "conversation", "m"], ["framing=transcript", "transcript", "m"]]);
  assert.match(configurationsOf({ compare: "summarizer=a,a" }) as string, /names a value twice/);
  assert.match(configurationsOf({ compare: "model=a,b", model: "c" }) as string, /--model and --compare model=/);
  assert.match(configurationsOf({ framing: "x" }) as string, /bad --framing/);
});
