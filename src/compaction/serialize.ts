// The conversation as plain, role-marked text for the summarizer: a transcript to read, not a
// chat to continue. One block per message so a long span can be split between requests.
import { modelView } from "../messages/cut-reply.js";
import type { AgentMessage } from "../messages/types.js";

export interface SerializeOptions {
  /** tool output, thinking, bash output and extension messages are cut to this many characters */
  maxBlockChars: number;
}

/** Keeps the head and the tail, which carry the command and the verdict of most tool output. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const tail = Math.floor(maxChars / 4);
  const head = maxChars - tail;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out …]\n${text.slice(text.length - tail)}`;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) => (b?.type === "text" ? (b.text ?? "") : b?.type === "image" ? "[image]" : ""))
    .filter((t) => t.length > 0)
    .join("\n");
}

function formatArgs(args: unknown, maxChars: number): string {
  let json: string;
  try {
    json = JSON.stringify(args ?? {});
  } catch {
    json = "{…}";
  }
  return truncateMiddle(json, maxChars);
}

/** One text block per message (empty messages give none). */
export function serializeMessage(stored: AgentMessage, opts: SerializeOptions): string[] {
  // a reply cut at the cap is summarized from what the model is sent of it (messages/cut-reply.ts)
  const m = modelView(stored);
  const max = opts.maxBlockChars;
  switch (m.role) {
    case "user": {
      const text = contentText(m.content);
      return text ? [`[user]\n${text}`] : [];
    }
    case "assistant": {
      const parts: string[] = [];
      for (const b of m.content) {
        if (b.type === "thinking" && b.thinking) parts.push(`[assistant thinking]\n${truncateMiddle(b.thinking, max)}`);
        else if (b.type === "text" && b.text) parts.push(`[assistant]\n${b.text}`);
        else if (b.type === "toolCall") parts.push(`[assistant calls tool ${b.name}] ${formatArgs(b.arguments, max)}`);
      }
      if (m.stopReason === "error" || m.stopReason === "aborted") parts.push(`[assistant turn ${m.stopReason === "error" ? "failed" : "was aborted"}${m.errorMessage ? `: ${m.errorMessage}` : ""}]`);
      return parts.length > 0 ? [parts.join("\n")] : [];
    }
    case "toolResult": {
      const text = truncateMiddle(contentText(m.content), max);
      return [`[tool ${m.toolName} ${m.isError ? "failed" : "returned"}]\n${text || "(no output)"}`];
    }
    case "bashExecution": {
      if (m.excludeFromContext) return [];
      const status = m.cancelled ? "cancelled" : m.exitCode === undefined || m.exitCode === null ? "no exit code" : `exit ${m.exitCode}`;
      return [`[user ran a command] $ ${m.command} (${status})\n${truncateMiddle(m.output ?? "", max) || "(no output)"}`];
    }
    case "custom": {
      const text = truncateMiddle(contentText(m.content), max);
      return text ? [`[extension message: ${m.customType}]\n${text}`] : [];
    }
    case "branchSummary":
      return [`[summary of a branch the user left]\n${m.summary}`];
    case "compactionSummary":
      return [`[summary of earlier work]\n${m.summary}`];
  }
}

export function serializeMessages(messages: readonly AgentMessage[], opts: SerializeOptions): string[] {
  const out: string[] = [];
  for (const m of messages) out.push(...serializeMessage(m, opts));
  return out;
}
