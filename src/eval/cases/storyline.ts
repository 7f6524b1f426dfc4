// One case's session from its scenario: the opening and the plan it points to (PLAN.md), the planted facts spread over the first
// third, two files only bash names, a decision reversed between a third and a half, the end of
// the first part (cycleBreak) at about 60%, then two more steps of ordinary work that never repeat
// what was planted (pith keeps the last ~20k tokens verbatim; the probes must test the summary).
import type { Truth } from "../truth.js";
import { judgeQuestions } from "./judge.js";
import { Prng } from "./prng.js";
import type { Beat, Scenario } from "./scenario.js";
import { SessionWriter } from "./session-writer.js";
import { Workbench } from "./workbench.js";

export interface GeneratedCase {
  name: string;
  /** the session file's text (JSONL) */
  session: string;
  truth: Truth;
}

/** where things land, as shares of the session's tokens */
const AT = { factsFrom: 0.05, factsTo: 0.3, bashOnly: [0.16, 0.4], reversal: 0.31, decision: 0.47, cycleBreak: 0.585, step2: 0.79 } as const;
const START_MS = Date.UTC(2026, 2, 2, 9, 0, 0);

export function buildCase(sc: Scenario, seed: number, index: number): GeneratedCase {
  const rng = new Prng(seed).fork(index * 7919 + sc.name.length);
  const w = new SessionWriter(rng.fork(1), `/home/dev/${sc.project}`, START_MS + index * 86_400_000 + rng.int(0, 3_600_000));
  const bench = new Workbench(sc, rng.fork(2), w);
  const target = sc.target;
  const fillTo = (share: number, topic: string) => {
    let units = 0;
    while (w.tokens < share * target - 400) {
      bench.unit(topic, share * target - w.tokens);
      if (++units % bench.rng.int(6, 11) === 0 && w.tokens < share * target - 2000) {
        bench.say(bench.rng.pick(["That part is in; moving on.", "Done with this bit. Continuing.", "Tests are green for this piece."]));
        w.user(bench.rng.pick(["ok, keep going", "Looks fine. Continue.", "go on", "Sounds right, carry on."]));
      }
    }
  };

  w.modelChange();
  if (sc.thinking) w.thinkingLevel("medium");
  // the plan is read from a file, not said: pith carries the user's own words past a compaction
  // verbatim, and the next step must be something only a summary can keep
  w.user(openingWithoutPlan(sc.opening));
  bench.step("Reading the plan first.", [{ name: "read", arguments: { path: PLAN }, output: numberedLines(planFile(sc)) }]);
  const [s1, s2, s3] = sc.steps;
  bench.step(`I'll start with step 1: ${s1}. First a look at the layout.`, [{ name: "ls", arguments: {}, output: lsOutput(sc) }]);

  const beats = sc.facts.filter((f) => f.beat.via !== "opening");
  beats.forEach((f, i) => {
    fillTo(AT.factsFrom + ((AT.factsTo - AT.factsFrom) * i) / Math.max(1, beats.length - 1), s1);
    plant(bench, f.beat, s1);
    if (i === 1) bashOnly(bench, 0);
  });
  if (beats.length < 2) bashOnly(bench, 0);

  const r = sc.reversal;
  fillTo(AT.reversal, s1);
  bench.step(r.propose, [{ name: "write", arguments: { path: r.path, content: r.first }, output: `Created ${r.path} (${Buffer.byteLength(r.first)} bytes written)` }]);
  bench.runTests(s1, 60, r.failure);
  // the assistant turns the first approach down, reading the failure: a decision only a summary keeps
  bench.say(`The run fails in ${r.failure.test}: ${r.failure.message.split("\n")[0]}. ${r.reject}`);
  w.user(bench.rng.pick(["Agreed, go ahead.", "Makes sense. Do that.", "ok, switch."]));
  bench.step(r.adopt, [{ name: "write", arguments: { path: r.path, content: r.second }, output: `Overwrote ${r.path} (${Buffer.byteLength(r.second)} bytes written)` }]);
  bench.runTests(s1, 60);
  fillTo(AT.bashOnly[1], s1);
  bashOnly(bench, 1);
  if (sc.decision) {
    fillTo(AT.decision, s1);
    w.user(sc.decision.say);
    bench.say(sc.decision.reply);
    w.user("Right. Back to step 1.");
  }
  fillTo(AT.cycleBreak, s1);
  bench.runTests(s1, (0.025 * target) / 16);
  const cycleBreak = bench.say(`Step 1 is done: ${s1}. The suite passes.`);
  w.user(`Good. Step 2 now: ${s2}.`);
  bench.createFile(sc.newFiles[0], s2, (0.02 * target) / 16);
  fillTo((AT.cycleBreak + AT.step2) / 2, s2);
  bench.failAndFix(s2, 40);
  fillTo(AT.step2, s2);
  bench.runTests(s2, (0.025 * target) / 16);
  bench.say(`Step 2 is done (${s2}); the tests pass.`);
  w.user(`Thanks. Step 3: ${s3}.`);
  bench.createFile(sc.newFiles[1], s3, (0.02 * target) / 16);
  fillTo(0.9, s3);
  bench.failAndFix(s3, 40);
  fillTo(1 - bench.suiteTokens() / target, s3);
  bench.runTests(s3, Infinity);
  bench.say(`Step 3 is done: ${s3}. All tests pass and the working tree has only the changes above.`);

  return { name: sc.name, session: w.text(), truth: truthOf(sc, bench, cycleBreak) };
}

const PLAN = "PLAN.md";

/** The user's opening with its numbered plan replaced by a pointer to the plan file. */
function openingWithoutPlan(opening: string): string {
  const lines = opening.split("\n");
  const at = lines.findIndex((l) => /^\d+\. /.test(l));
  if (at < 0) return opening;
  const kept = lines.filter((l) => !/^\d+\. /.test(l));
  kept.splice(at, 0, `(the steps are in ${PLAN}: read it first, and keep to its order)`);
  return kept.join("\n");
}

function planFile(sc: Scenario): string {
  return [`# ${sc.project}: plan`, "", ...sc.steps.map((step, i) => `${i + 1}. ${step}`), ""].join("\n");
}

function numberedLines(text: string): string {
  return text.split("\n").map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n");
}

function plant(bench: Workbench, beat: Beat, topic: string): void {
  switch (beat.via) {
    case "opening":
      return;
    case "user":
      bench.w.user(beat.text);
      bench.say(beat.reply);
      bench.w.user(bench.rng.pick(["Thanks. Carry on.", "Good, continue.", "ok"]));
      return;
    case "read":
      bench.step(beat.note, [{ name: "read", arguments: { path: beat.path }, output: numberedLines(beat.content) }]);
      return;
    case "write":
      bench.step(beat.note, [{ name: "write", arguments: { path: beat.path, content: beat.content }, output: `Created ${beat.path} (${Buffer.byteLength(beat.content)} bytes written)` }]);
      return;
    case "fail": {
      const line = bench.plantLine(beat.fix.path, beat.fix.oldText);
      bench.runTests(topic, 80, beat.failure, beat.command);
      bench.step(beat.quote, [{ name: "edit", arguments: { path: beat.fix.path, oldText: beat.fix.oldText, newText: beat.fix.newText }, output: `Edited ${beat.fix.path}: replaced 1 occurrence (at line ${line}).` }]);
      bench.applyEdit(beat.fix.path, beat.fix.oldText, beat.fix.newText);
      bench.runTests(topic, 60, undefined, beat.command);
    }
  }
}

function bashOnly(bench: Workbench, i: 0 | 1): void {
  const b = bench.sc.bashOnly[i];
  bench.step(b.note, [{ name: "bash", arguments: { command: b.command }, output: b.output }]);
  for (const p of b.created ?? []) bench.trail.write(p);
  for (const p of b.deleted ?? []) bench.trail.delete(p);
}

/** the project root as ls shows it: its top directories and the manifest of its language */
function lsOutput(sc: Scenario): string {
  const manifest = { ts: ["package.json", "tsconfig.json"], tsx: ["package.json", "vite.config.ts"], py: ["pyproject.toml"], go: ["go.mod", "go.sum"], rs: ["Cargo.toml", "Cargo.lock"] }[sc.lang];
  const read = sc.facts.flatMap((f) => (f.beat.via === "read" ? [f.beat.path] : []));
  const dirs = new Set([...sc.files, ...sc.testFiles, ...read].filter((f) => f.includes("/")).map((f) => `${f.split("/")[0]}/`));
  if (sc.lang === "go") dirs.delete(`${sc.project}/`);
  const files = read.filter((f) => !f.includes("/"));
  return [...[...dirs].sort(), PLAN, "README.md", ...manifest, ...files].join("\n");
}

function truthOf(sc: Scenario, bench: Workbench, cycleBreak: string): Truth {
  const truth: Truth = {
    version: 1,
    name: sc.name,
    description: sc.description,
    shape: sc.shape,
    thinking: sc.thinking,
    cycleBreak,
    facts: sc.facts.map((f) => ({ id: f.id, question: f.question, answer: f.answer, kind: f.kind })),
    artifacts: bench.trail.truth(),
    openTasks: [
      { task: sc.steps[3], keywords: [...sc.nextKeywords] },
      { task: sc.steps[4], keywords: [...sc.laterKeywords] },
    ],
    decisions: [
      { id: sc.reversal.id, question: sc.reversal.question, chosen: sc.reversal.chosen, rejected: [sc.reversal.rejected] },
      ...(sc.decision ? [{ id: sc.decision.id, question: sc.decision.question, chosen: sc.decision.chosen, rejected: sc.decision.rejected }] : []),
    ],
    judge: [],
  };
  truth.judge = judgeQuestions(sc, truth);
  return truth;
}
