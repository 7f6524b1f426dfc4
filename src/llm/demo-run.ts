// What the offline demo model knows when it picks its next step: read from the conversation it
// is sent, as a real model would, never from files. The run is everything since the prompt that
// started it; a user message that arrives after tool results is a steer.
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../messages/types.js";

export const NOTES = "notes.md";

/** One tool call of this run and how it went. */
export interface DemoStep {
  name: string;
  args: Record<string, unknown>;
  /** undefined: no result yet */
  ok?: boolean;
  output: string;
}

export interface DemoRun {
  prompt: string;
  steps: DemoStep[];
  /** the steer sent since the last step, to be answered now */
  steer?: string;
  /** steers answered earlier in this run */
  steers: string[];
  /** notes.md as the run last saw it: undefined when unknown, null when it does not exist */
  notes: string | null | undefined;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: string; text?: string }) => (b?.type === "text" ? (b.text ?? "") : "")).join("");
}

/** The index of the user message that started the run: one that follows no tool result. */
function runStart(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "user") continue;
    if (i === 0 || messages[i - 1].role !== "toolResult") return i;
  }
  return -1;
}

/** The result the agent gives a tool call it skipped because the user's steer arrived first (agent/tool-calls.ts). */
const SKIPPED_FOR_STEER = /^Skipped: the user sent a new message/;

/** Tool names of the summary's "Done" lines, by the verb the offline summarizer writes (scripted-summary.ts). */
const DONE_VERBS: Record<string, string> = { listed: "ls", read: "read", edited: "edit", wrote: "write", ran: "bash", searched: "grep" };

/**
 * A run that began before a compaction: its prompt and finished steps as the summary tells them
 * (the last request among the user messages pith carries, the "[x]" lines the summarizer writes).
 */
function runFromSummary(summary: string): DemoRun {
  const said = /<user-messages>[\s\S]*?\n\n([\s\S]*?)\n<\/user-messages>/.exec(summary)?.[1];
  const asked = said?.split("\n").filter((l) => l.startsWith("- ")).at(-1)?.slice(2);
  const goal = /## Goal\n((?:- .*\n?)+)/.exec(summary)?.[1].trim().split("\n").at(-1)?.slice(2);
  const steps: DemoStep[] = [];
  for (const m of summary.matchAll(/^- \[x\] (\w+) `?([^`\n]*)`?$/gm)) {
    const name = DONE_VERBS[m[1]];
    if (name) steps.push({ name, args: name === "bash" ? { command: m[2] } : { path: m[2] }, ok: true, output: "" });
  }
  return { prompt: (asked ?? goal ?? "").trim(), steps, steers: [], notes: undefined };
}

export function readRun(messages: readonly AgentMessage[]): DemoRun {
  const start = runStart(messages);
  const first = messages[0] as { role: string; summary?: unknown } | undefined;
  const summarized = start < 0 && first?.role === "compactionSummary" && typeof first.summary === "string";
  const run: DemoRun = summarized ? runFromSummary(first.summary as string) : { prompt: start >= 0 ? textOf((messages[start] as { content: unknown }).content).trim() : "", steps: [], steers: [], notes: undefined };
  const byId = new Map<string, DemoStep>();
  for (const m of messages.slice(start + 1)) {
    if (m.role === "assistant") {
      if (run.steer !== undefined) run.steers.push(run.steer);
      run.steer = undefined;
      for (const b of (m as AssistantMessage).content) {
        if (b.type !== "toolCall") continue;
        const step: DemoStep = { name: b.name, args: (b.arguments ?? {}) as Record<string, unknown>, output: "" };
        byId.set(b.id, step);
        run.steps.push(step);
      }
    } else if (m.role === "toolResult") {
      const r = m as ToolResultMessage;
      const step = byId.get(r.toolCallId);
      if (!step) continue;
      if (r.isError && SKIPPED_FOR_STEER.test(textOf(r.content))) {
        // it never ran (a steer came first): not a failure, a step still to take
        run.steps.splice(run.steps.indexOf(step), 1);
        continue;
      }
      step.ok = !r.isError;
      step.output = textOf(r.content);
      noteWhatTheStepShows(run, step);
    } else if (m.role === "user") run.steer = textOf(m.content).trim();
  }
  return run;
}

/** What a step tells about notes.md: listed or not, its text after a read, a write or an edit. */
function noteWhatTheStepShows(run: DemoRun, step: DemoStep): void {
  const path = typeof step.args.path === "string" ? step.args.path.replace(/^\.\//, "") : undefined;
  if (step.name === "ls" && step.ok) {
    const names = step.output.split("\n");
    if (!names.includes(NOTES)) run.notes = null;
  } else if (path !== NOTES || !step.ok) return;
  else if (step.name === "read") run.notes = fileText(step.output);
  else if (step.name === "write" && typeof step.args.content === "string") run.notes = step.args.content;
  else if (step.name === "edit" && typeof run.notes === "string" && typeof step.args.oldText === "string" && typeof step.args.newText === "string") {
    run.notes = run.notes.replace(step.args.oldText, step.args.newText);
  } else if (step.name === "edit" && run.notes === undefined && typeof step.args.newText === "string") {
    // the read went into a summary; the demo's edits replace the whole file, so its new text is the file
    run.notes = step.args.newText;
  }
}

/** The file's text from read's output: each line is "<number, right-aligned>\t<line>"; notes in [] after a blank line. */
function fileText(output: string): string | undefined {
  if (/^\[.* is empty\]$/.test(output)) return "";
  const lines: string[] = [];
  for (const line of output.split("\n")) {
    const m = /^ *\d+\t(.*)$/.exec(line);
    if (!m) break;
    lines.push(m[1]);
  }
  // read shows a file's last line whether or not it ends with a newline; notes files do
  return lines.length > 0 ? lines.join("\n") + "\n" : undefined;
}

export function failedStep(run: DemoRun): DemoStep | undefined {
  return run.steps.find((s) => s.ok === false);
}

export function didStep(run: DemoRun, name: string, path?: string): boolean {
  return run.steps.some((s) => s.name === name && (path === undefined || s.args.path === path));
}
