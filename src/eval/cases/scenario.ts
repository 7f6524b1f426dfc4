// What one case is made of: a project, its vocabulary, the user's plan, and everything the
// storyline plants (facts, a reversed decision, files only bash ever names). The storyline
// (storyline.ts) places these by share of the session; the scenarios only say what they are.
import type { Flavor, Vocabulary } from "./names.js";
import type { Failure, Lang } from "./test-log.js";

interface EditSpec {
  path: string;
  oldText: string;
  newText: string;
}

/** how a planted fact gets into the session: said by the user, read from a file, or a failing run */
export type Beat =
  | { via: "opening" }
  | { via: "user"; text: string; reply: string }
  | { via: "read"; path: string; content: string; note: string }
  | { via: "write"; path: string; content: string; note: string }
  | { via: "fail"; command: string; failure: Failure; quote: string; fix: EditSpec };

interface PlantedFact {
  id: string;
  kind: "value" | "name" | "constraint" | "error" | "rejected";
  question: string;
  answer: string;
  beat: Beat;
}

/** a bash command that creates or deletes files no other tool ever names */
interface BashOnly {
  command: string;
  output: string;
  note: string;
  created?: string[];
  deleted?: string[];
}

interface Reversal {
  id: string;
  question: string;
  rejected: string;
  chosen: string;
  /** the assistant proposing the first approach */
  propose: string;
  /** the new file that carries it, first with the rejected approach and then the chosen one */
  path: string;
  first: string;
  failure: Failure;
  /** the assistant turning the first approach down after the failing run, naming the second */
  reject: string;
  adopt: string;
  second: string;
}

export interface Scenario {
  name: string;
  project: string;
  description: string;
  lang: Lang;
  shape: "short" | "long";
  thinking: boolean;
  /** the session's size in estimated tokens */
  target: number;
  vocab: Vocabulary;
  flavor: Flavor;
  /** the project's existing sources the work reads and edits */
  files: readonly string[];
  testFiles: readonly string[];
  test: string;
  /** the new modules steps 2 and 3 write */
  newFiles: readonly [string, string];
  /** the plan: steps 1-3 get done, step 4 is next, step 5 after it */
  steps: readonly [string, string, string, string, string];
  nextKeywords: readonly string[];
  laterKeywords: readonly string[];
  /** the user's first message: the plan (written to PLAN.md instead, storyline.ts) and the constraints */
  opening: string;
  facts: readonly PlantedFact[];
  reversal: Reversal;
  /** a second decision, stated by the user without a reversal */
  decision?: { id: string; question: string; chosen: string; rejected: string[]; say: string; reply: string };
  bashOnly: readonly [BashOnly, BashOnly];
}
