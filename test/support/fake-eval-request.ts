// What a Chat Completions request to the fake eval models asks for, read off its body the way a
// model would read it: a summary (and of which text), a probe (and in which context), a grade.
// The wordings recognised here are pith's own and the eval's (named beside each), so a change
// to one of them shows up as a failing fake-eval-models test rather than as a silent "ok".

import { JUDGE_SYSTEM_PROMPT } from "../../src/eval/judge.js";
import { PROBE_PREFIX } from "../../src/eval/probes.js";

export { PROBE_PREFIX };
/** the judge's system prompt starts so */
export const JUDGE_PREFIX = JUDGE_SYSTEM_PROMPT.slice(0, JUDGE_SYSTEM_PROMPT.indexOf("."));
/** src/compaction/conversation-prompt.ts: the conversation framing's ask starts with this ... */
const ASK_START = "Stop the work here: this is not a task to carry on.";
/** ... and always says this */
const ASK_MARK = "The conversation is about to be compacted.";

export type EvalRequest =
  /** `given`: the text the summarizer is to keep things from (never its instructions) */
  | { kind: "summary"; model: string; given: string }
  /** `probe`: the question after the prefix; `context`: everything the model was shown before it */
  | { kind: "probe"; model: string; probe: string; context: string }
  | { kind: "judge"; model: string; question: string; reference: string; answer: string }
  | { kind: "other"; model: string };

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }>;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** All a message shows the model: text parts, tool calls with their arguments, reasoning sent back. */
function messageText(m: ChatMessage): string {
  const content = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p: { type?: unknown; text?: unknown }) => (p?.type === "text" ? str(p.text) : "")).join("\n") : "";
  const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((c) => `${str(c.function?.name)} ${str(c.function?.arguments)}`);
  return [str(m.reasoning_content), str(m.reasoning), content, ...calls].filter(Boolean).join("\n");
}

/** The text between the first `<tag>` and the `</tag>` that closes it (last one when `greedy`). */
function between(text: string, tag: string, greedy = false): string | undefined {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return undefined;
  const from = open + tag.length + 2;
  const close = greedy ? text.lastIndexOf(`</${tag}>`) : text.indexOf(`</${tag}>`, from);
  return close < from ? text.slice(from) : text.slice(from, close);
}

export function readEvalRequest(body: Record<string, any>): EvalRequest {
  const model = str(body.model);
  const messages: ChatMessage[] = Array.isArray(body.messages) ? body.messages : [];
  const system = messages.filter((m) => m.role === "system" || m.role === "developer").map(messageText).join("\n\n");
  const lastUserAt = messages.map((m) => m.role).lastIndexOf("user");
  const lastUser = lastUserAt >= 0 ? messageText(messages[lastUserAt]!) : "";
  // a user message right after another is merged into it (openai-completions-convert.ts), so an
  // appended question can follow kept text inside one message: what comes before it is context
  const earlier = messages.filter((m, i) => i !== lastUserAt && m.role !== "system" && m.role !== "developer").map(messageText);

  if (system.trimStart().startsWith(JUDGE_PREFIX)) {
    // the design puts the three in the user message; a prompt that moves them still grades
    const graded = lastUser.includes("<reference>") ? lastUser : [system, ...earlier, lastUser].join("\n\n");
    return { kind: "judge", model, question: between(graded, "question") ?? "", reference: between(graded, "reference") ?? "", answer: between(graded, "answer", true) ?? "" };
  }
  const probeAt = lastUser.lastIndexOf(PROBE_PREFIX);
  if (probeAt >= 0) {
    return { kind: "probe", model, probe: lastUser.slice(probeAt + PROBE_PREFIX.length).trim(), context: [system, ...earlier, lastUser.slice(0, probeAt)].join("\n\n") };
  }
  if (lastUser.includes(ASK_MARK)) {
    const askAt = lastUser.includes(ASK_START) ? lastUser.lastIndexOf(ASK_START) : lastUser.lastIndexOf(ASK_MARK);
    return { kind: "summary", model, given: [...earlier, lastUser.slice(0, askAt)].join("\n\n") };
  }
  if (lastUser.includes("<transcript>")) {
    const transcriptAt = lastUser.indexOf("<transcript>");
    // the previous summary comes before the transcript (prompts.ts updatePrompt)
    const notes = between(lastUser.slice(0, transcriptAt), "existing-notes") ?? "";
    return { kind: "summary", model, given: `${notes}\n\n${between(lastUser, "transcript", true) ?? ""}` };
  }
  return { kind: "other", model };
}
