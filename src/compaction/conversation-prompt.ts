// The summary request in conversation framing: the agent's last request sent again as it was
// (read from the prompt cache), the model's reply, then this one user message asking for notes on
// the part before the cut. The model sees the conversation as it lived it, not a transcript, so the
// ask says exactly where the cut is: by counting messages and by quoting the first one kept.
import type { AgentMessage } from "../messages/types.js";
import type { CompactionPreparation } from "./prepare.js";
import { FORMAT, RULES, tail, type PromptOptions } from "./prompts.js";

const QUOTE_CHARS = 160;

/** How the first kept message reads, for the model to find it. */
function describe(m: AgentMessage): string {
  const text = (content: unknown): string =>
    typeof content === "string" ? content : Array.isArray(content) ? content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join(" ") : "";
  const quote = (s: string) => `«${s.replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS)}»`;
  switch (m.role) {
    case "user": {
      const t = text(m.content).trim();
      return t ? `the user's message that begins ${quote(t)}` : "a user message";
    }
    case "assistant": {
      const t = text(m.content).trim();
      if (t) return `your reply that begins ${quote(t)}`;
      const call = m.content.find((b) => b.type === "toolCall");
      return call && call.type === "toolCall" ? `your call of the ${call.name} tool` : "one of your replies";
    }
    case "toolResult":
      return `the result of your ${m.toolName} call${text(m.content).trim() ? ` that begins ${quote(text(m.content))}` : ""}`;
    default:
      return `the ${m.role} message`;
  }
}

/**
 * The user message that ends a conversation-framed summary request. `before`: how many messages
 * of the context (the previous summary included, if any) come before the cut.
 */
export function conversationAsk(prep: CompactionPreparation, before: number, options: PromptOptions = {}): string {
  const first = prep.keptMessages[0];
  const where = first
    ? `The context will be cut before message ${before + 1} of this conversation, counting from the top (${describe(first)}): that message and everything after it stay word for word.`
    : `The whole conversation above will be replaced by your notes.`;
  const update = prep.previousSummary
    ? `\n\nThe conversation opens with notes from an earlier compaction. Rewrite them so they cover everything before the cut: keep what still holds, add the new goals, constraints, decisions and facts, move finished items from "In Progress" to "Done", drop blockers that were resolved, and replace "Next Steps" with what follows from where the session now stands.`
    : "";
  const split = prep.isSplitTurn && prep.turnPrefixMessages.length > 0
    ? `\n\nThe cut falls inside the current turn: its beginning (the last ${prep.turnPrefixMessages.length} message(s) before the cut) is summarized too. After the notes, add a line "---" and then, under "## Turn Request", "## Work So Far" and "## Context for What Follows", only what is needed to make sense of the rest of that turn.`
    : "";
  return `Stop the work here: this is not a task to carry on. Do not call any tool; answer with text only.

The conversation is about to be compacted. ${where} Write handover notes for the part before the cut, so another instance of the assistant can continue from the notes and the kept part alone.${update}

Use exactly this format:

${FORMAT}

${RULES}${split}${tail(options)}`;
}
