// The judge's free-form questions of a case, their reference answers written from its truth.
import type { Truth } from "../truth.js";
import type { Scenario } from "./scenario.js";

const list = (xs: readonly string[]): string => (xs.length > 0 ? xs.join(", ") : "none");

export function judgeQuestions(sc: Scenario, truth: Truth): Truth["judge"] {
  const a = truth.artifacts;
  const constraints = truth.facts.filter((f) => f.kind === "constraint").map((f) => f.answer);
  const r = sc.reversal;
  return [
    {
      question: "Where does the work stand at the end of the session, and what should be done next?",
      reference: `Steps 1-3 of the user's plan are done (${sc.steps.slice(0, 3).join("; ")}) and the tests pass. Next is step 4: ${sc.steps[3]}; after it step 5: ${sc.steps[4]}.`,
    },
    {
      question: "Which files did the session create, change and delete?",
      reference: `Created: ${list(a.created)}. Modified: ${list(a.modified)}. Deleted: ${list(a.deleted)}. Read only: ${list(a.read)}.`,
    },
    {
      question: "What constraints did the user set for this work?",
      reference: `The user asked for: ${list(constraints)}.`,
    },
    {
      question: `${r.question.replace(/\?$/, "")}, and why not the first approach tried?`,
      reference: `${r.chosen}. ${r.rejected} was tried first in ${r.path}; the test run failed (${r.failure.message.split("\n")[0]}) and the user turned it down in favour of ${r.chosen}.`,
    },
  ];
}
