// The offline demo model's decisions: the next turn from what the run has seen so far (demo-run.ts).
// It does one small job, tidying notes.md, step by step (look, read or start it, tidy, check,
// report), answers a steer with a changed next step, and reports only what its tools did: a
// failed step ends the run with a reply that says so.
import { DEMO_NOTES } from "./demo-notes.js";
import { NOTES, didStep, failedStep, type DemoRun } from "./demo-run.js";
import type { ScriptTurn } from "./scripted.js";

/** The scratch project `pith demo` and an offline session without a cwd work in. */
export const DEMO_FILES: Record<string, string> = { "notes.md": DEMO_NOTES };

const STARTER = "# Notes\n\nThings a session keeps:\n- messages\n- compaction\n- branch summaries\n";

/** How to leave the demo for a real model (said by the demo's greeting, --mode json and text, the banner). */
export const OFFLINE_HINT = "To use a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY (or configure a provider: see `pith models`) and start pith again.";

type Turn = Omit<ScriptTurn, "usage" | "chunkSize" | "delayMs">;

const GREETING = /^(hi|hello|hey|hallo|yo|thanks|thank you|good (morning|afternoon|evening))\b[\s!.?]*$/i;
const LOOK = /\b(check|read|show|look|what|list|see)\b/i;
const STOP = /\b(stop|cancel|enough|never ?mind|halt)\b/i;
const COUNT = /\b(count|how many)\b/i;

/** The list's items: lines that start with -, * or +. */
function items(text: string): string[] {
  return text
    .split("\n")
    .map((l) => /^\s*[-*+]\s+(.*\S)\s*$/.exec(l)?.[1])
    .filter((s): s is string => s !== undefined);
}

/** notes.md tidied: one bullet style, no trailing spaces, no repeated item, no run of blank lines; the demo's own list gains the item it lacks. */
export function tidyNotes(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\s+$/, "").replace(/^(\s*)[*+](\s+)/, "$1-$2");
    const item = /^\s*-\s+(.*)$/.exec(line)?.[1]?.toLowerCase();
    if (item !== undefined) {
      if (seen.has(item)) continue;
      seen.add(item);
    }
    if (line === "" && out.at(-1) === "") continue;
    out.push(line);
  }
  while (out.at(-1) === "") out.pop();
  if (seen.has("compaction") && !seen.has("branch summaries")) {
    const last = out.findLastIndex((l) => /^\s*-\s/.test(l));
    out.splice(last + 1, 0, "- branch summaries");
  }
  return out.join("\n") + "\n";
}

function listed(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "no reason given";
  return line.length > 160 ? line.slice(0, 159) + "…" : line;
}

/** The run's end after a failed step: what failed, in words, and that the change was not made. */
function failureReply(run: DemoRun): Turn {
  const failed = failedStep(run)!;
  const what = typeof failed.args.path === "string" ? `${failed.name} of ${failed.args.path}` : failed.name;
  const changed = run.steps.some((s) => s.ok && (s.name === "edit" || s.name === "write"));
  return {
    text: `I could not finish: the ${what} failed (${firstLine(failed.output)}). ${changed ? `An earlier change to ${NOTES} was made; the rest was not.` : `${NOTES} was not changed.`}`,
  };
}

function steerTurn(run: DemoRun, steer: string): Turn {
  if (STOP.test(steer)) return { text: `You asked me to stop ("${steer}"), so I'm stopping here. ${didStep(run, "edit", NOTES) || didStep(run, "write", NOTES) ? `${NOTES} has the changes made so far.` : `Nothing was changed.`}` };
  if (COUNT.test(steer)) return { text: `You asked: "${steer}". Counting the items in ${NOTES} next.`, toolCalls: [{ name: "bash", arguments: { command: `grep -c '^- ' ${NOTES}` } }] };
  const line = `- ${steer.replace(/\s+/g, " ").slice(0, 120)}`;
  if (typeof run.notes === "string" && run.notes !== "") {
    const notes = run.notes.endsWith("\n") ? run.notes : run.notes + "\n";
    return { text: `You asked: "${steer}". Changing course: I'll add that to ${NOTES} first.`, toolCalls: [{ name: "edit", arguments: { path: NOTES, oldText: run.notes, newText: `${notes}${line}\n` } }] };
  }
  if (run.notes === null) return { text: `You asked: "${steer}". Changing course: I'll start ${NOTES} with that in it.`, toolCalls: [{ name: "write", arguments: { path: NOTES, content: `${STARTER}${line}\n` } }] };
  return { text: `You asked: "${steer}". I'll keep it in mind: ${NOTES} is not read yet, so I'll read it first.`, toolCalls: [{ name: "read", arguments: { path: NOTES } }] };
}

/** "Tidy up the notes" (and any task the demo does not know: it only knows this one). */
function tidyTurn(run: DemoRun): Turn {
  const known = /\b(note|notes|tidy|clean)\b/i.test(run.prompt);
  if (!didStep(run, "ls")) {
    const intro = known ? "" : "I'm the offline demo model and know one job only, tidying notes.md, so that is what I'll do. ";
    return { text: `${intro}I'll look at what is in this folder first.`, toolCalls: [{ name: "ls", arguments: { path: "." } }] };
  }
  if (run.notes === null && !didStep(run, "write", NOTES)) {
    return { text: `There is no ${NOTES} here yet, so I'll start one with a short, tidy list.`, toolCalls: [{ name: "write", arguments: { path: NOTES, content: STARTER } }] };
  }
  if (run.notes === undefined && didStep(run, "read", NOTES)) return { text: `I could not make sense of what read showed of ${NOTES}, so I changed nothing.` };
  if (run.notes === undefined) return { text: `Reading ${NOTES}.`, toolCalls: [{ name: "read", arguments: { path: NOTES } }] };
  const notes = run.notes ?? "";
  const tidy = tidyNotes(notes);
  const tidied = didStep(run, "edit", NOTES) || didStep(run, "write", NOTES);
  // (once per run: tidying what it tidied itself changes nothing, but a steer's line may need it)
  if (tidy !== notes && !run.steps.some((s) => s.name === "edit" && s.args.newText === tidy)) {
    const adds = !items(notes).some((i) => i.toLowerCase() === "branch summaries") && items(tidy).includes("branch summaries");
    const why = adds ? "The list lacks branch summaries; adding them, and tidying the rest." : "Tidying the list: one bullet style, no repeated items, no stray blank lines.";
    return { text: why, toolCalls: [{ name: "edit", arguments: { path: NOTES, oldText: notes, newText: tidy } }] };
  }
  if (!didStep(run, "bash")) return { text: "Checking the result.", toolCalls: [{ name: "bash", arguments: { command: `wc -l ${NOTES} && grep -c '^- ' ${NOTES}` } }] };
  const list = items(notes);
  const change = tidied ? `${NOTES} now lists` : `${NOTES} was already tidy; it lists`;
  const steered = run.steers.length > 0 ? ` As you asked, it also has "${run.steers.at(-1)}".` : "";
  return { text: `Done: ${change} ${listed(list)} (${list.length} item${list.length === 1 ? "" : "s"}).${steered}` };
}

/** "Check the notes", "what is in notes.md": read, then say what is there. */
function lookTurn(run: DemoRun): Turn {
  if (!didStep(run, "read", NOTES) && run.notes === undefined) return { text: `Reading ${NOTES}.`, toolCalls: [{ name: "read", arguments: { path: NOTES } }] };
  const list = items(run.notes ?? "");
  return { text: `${NOTES} lists ${list.length} item${list.length === 1 ? "" : "s"}: ${listed(list)}.` };
}

/** The demo model's next turn for this run. */
export function nextDemoTurn(run: DemoRun): Turn {
  if (run.steer !== undefined) return steerTurn(run, run.steer);
  if (failedStep(run)) return failureReply(run);
  if (run.prompt === "" || GREETING.test(run.prompt)) return { text: `Hello! I'm pith's offline demo model. ${OFFLINE_HINT} Offline, I can show what pith does on one small job: try "Tidy up the notes".` };
  if (LOOK.test(run.prompt) && !/\b(tidy|clean|fix)\b/i.test(run.prompt)) return lookTurn(run);
  return tidyTurn(run);
}
