// A case's ground truth: what a session that kept everything would know at its end. The case
// generator writes it beside each session file; a user's own case is the same pair in a folder
// (docs/eval.md). Probes and scores are read off it, so it is checked as untrusted input.
import { z } from "zod";

const token = z.string().min(1).max(400);

const Fact = z.object({
  id: z.string().min(1).max(80),
  /** asks for the fact without giving it away */
  question: z.string().min(1).max(2000),
  /** an exact token the session states once: the answer must contain it */
  answer: token,
  kind: z.enum(["value", "name", "constraint", "error", "rejected"]),
});

const OpenTask = z.object({
  task: z.string().min(1).max(2000),
  /** the distinctive tokens an answer naming the task contains (case-insensitive) */
  keywords: z.array(token).min(1).max(5),
});

const Decision = z.object({
  id: z.string().min(1).max(80),
  question: z.string().min(1).max(2000),
  /** the approach settled on */
  chosen: token,
  /** approaches tried or proposed and turned down: an answer naming one contradicts the decision */
  rejected: z.array(token).max(5),
});

const JudgeQuestion = z.object({
  question: z.string().min(1).max(2000),
  /** the answer a session that kept everything would give, written from the truth */
  reference: z.string().min(1).max(8000),
});

const paths = z.array(z.string().min(1).max(1000)).max(2000);

export const Truth = z.object({
  version: z.literal(1),
  name: z.string().min(1).max(200),
  description: z.string().max(2000),
  /** the tool outputs' shape: tens of lines (short) or hundreds (long) */
  shape: z.enum(["short", "long"]),
  /** assistant messages carry thinking blocks */
  thinking: z.boolean(),
  /** the last entry of the first part: with two cycles the first compaction is there */
  cycleBreak: z.string().min(1).max(200),
  facts: z.array(Fact).max(200),
  /** every file the session touched, by what became of it (paths relative to the project root) */
  artifacts: z.object({ read: paths, modified: paths, created: paths, deleted: paths }),
  /** unfinished at the end; the first is the next one */
  openTasks: z.array(OpenTask).min(1).max(50),
  decisions: z.array(Decision).max(100),
  judge: z.array(JudgeQuestion).max(50),
});

export type Truth = z.infer<typeof Truth>;
