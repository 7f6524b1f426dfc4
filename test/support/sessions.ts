// Building sessions for compaction tests: turns of user request, tool calls and results.
import type { AgentMessage } from "../../src/messages/types.js";
import type { SessionFile } from "../../src/session/index.js";
import { assistant, call, result, usage, user } from "./messages.js";

let callSeq = 0;

/** Appends one turn: a user request, `tools` read/edit rounds with outputs of `outputChars`, a final answer. */
export function appendTurn(s: SessionFile, request: string, tools = 2, outputChars = 2000, reportedTokens?: number): void {
  s.appendMessage(user(request));
  for (let i = 0; i < tools; i++) {
    const id = `call_${++callSeq}`;
    const name = i % 2 === 0 ? "read" : "edit";
    const args = name === "read" ? { path: `src/file${callSeq % 7}.ts` } : { path: `src/file${callSeq % 5}.ts`, oldText: "a", newText: "b" };
    s.appendMessage(assistant("", [call(id, name, args)]));
    s.appendMessage(result(id, name, `${name} output ${callSeq}: ` + "const x = { a: 1, b: [2, 3] };\n".repeat(Math.ceil(outputChars / 31))));
  }
  s.appendMessage(assistant(`Done with: ${request}`, [], reportedTokens ? usage(reportedTokens, 100) : usage(0, 0)), { sync: true });
}

/** Every tool call has its result and every result its call, in the given messages. */
export function orphans(messages: readonly AgentMessage[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
    if (m.role === "toolResult") results.add(m.toolCallId);
  }
  return [...[...calls].filter((c) => !results.has(c)).map((c) => `call without result: ${c}`), ...[...results].filter((r) => !calls.has(r)).map((r) => `result without call: ${r}`)];
}
