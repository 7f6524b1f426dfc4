// A summary built without a model, for when the summarizer fails (error, timeout): the session
// must be able to go on. It is extractive: the user's requests, the files touched, the commands
// run, the errors seen and the assistant's last words, in the usual sections.
import { modelView } from "../messages/cut-reply.js";
import { messageText, type AgentMessage } from "../messages/types.js";
import { truncateMiddle } from "./serialize.js";

const ITEM_CHARS = 400;
const MAX_ITEMS = 12;

function oneLine(text: string, max = ITEM_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function lastN<T>(items: T[], n: number): T[] {
  return items.length > n ? items.slice(items.length - n) : items;
}

export function extractiveSummary(messages: readonly AgentMessage[], previousSummary: string | undefined, reason: string): string {
  const requests: string[] = [];
  const actions: string[] = [];
  const errors: string[] = [];
  const statements: string[] = [];
  for (const stored of messages) {
    const m = modelView(stored);
    if (m.role === "user") {
      const t = oneLine(messageText(m));
      if (t) requests.push(t);
    } else if (m.role === "assistant") {
      for (const b of m.content) {
        if (b.type === "toolCall") {
          const a = b.arguments as Record<string, unknown>;
          const target = typeof a.path === "string" ? a.path : typeof a.command === "string" ? `\`${oneLine(a.command, 120)}\`` : typeof a.pattern === "string" ? a.pattern : "";
          actions.push(`${b.name}${target ? ` ${target}` : ""}`);
        }
      }
      const text = oneLine(m.content.filter((b) => b.type === "text").map((b) => (b.type === "text" ? b.text : "")).join(" "));
      if (text) statements.push(text);
      if (m.stopReason === "error" && m.errorMessage) errors.push(oneLine(`model error: ${m.errorMessage}`));
    } else if (m.role === "toolResult" && m.isError) {
      errors.push(oneLine(`${m.toolName}: ${messageText({ ...m, role: "user" } as AgentMessage)}`));
    } else if (m.role === "bashExecution" && !m.excludeFromContext) {
      actions.push(`user ran \`${oneLine(m.command, 120)}\`${m.exitCode ? ` (exit ${m.exitCode})` : ""}`);
      if (m.exitCode) errors.push(oneLine(`\`${m.command}\` exited ${m.exitCode}: ${m.output}`));
    }
  }
  const list = (items: string[], empty = "(none recorded)") => (items.length > 0 ? items.map((i) => `- ${i}`).join("\n") : `- ${empty}`);
  const uniqueActions = [...new Set(actions)];
  let out = `(Extractive summary: the summarizer failed (${oneLine(reason, 200)}), so this was assembled from the transcript without a model.)

## Goal
${list(lastN(requests, 3), "(no user request in this span)")}

## Constraints & Preferences
- See the user messages below.

## Progress
### Done
${list(lastN(uniqueActions, MAX_ITEMS).map((a) => `[x] ${a}`), "(no tool calls in this span)")}

### In Progress
${list(lastN(statements, 2))}

### Blocked
${list(lastN(errors, 5))}

## Key Decisions
- (not extracted)

## Next Steps
1. Continue from the latest user request: ${requests.length > 0 ? requests[requests.length - 1] : "(none)"}

## Critical Context
${list(lastN(errors, 3))}`;
  if (previousSummary) out += `\n\n### Earlier summary\n${truncateMiddle(previousSummary, 6000)}`;
  return out;
}
