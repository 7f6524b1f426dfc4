// A small stored session with a branch and a label, as the CLI's read-only commands see one: a
// question answered by a tool call, a label on the answer, a second question on another branch
// from the first, and the leaf moved back to the labelled answer.
import { emptyUsage, type AssistantMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return { role: "assistant", content, api: "anthropic-messages", provider: "scripted", model: "demo", usage: emptyUsage(), stopReason, timestamp: Date.now() };
}

/** Writes the session under `sessionsDir` for `cwd`; returns its file and id. */
export function writeBranchedSession(cwd: string, sessionsDir: string): { file: string; id: string } {
  const session = SessionFile.create({ cwd, sessionsDir });
  const ask = session.appendMessage({ role: "user", content: "What does package.json say about the tests?", timestamp: Date.now() });
  session.appendMessage(assistant([{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "package.json" } }], "toolUse"));
  session.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: '{ "scripts": { "test": "node scripts/run-tests.mjs" } }' }], isError: false, timestamp: Date.now() });
  const answer = session.appendMessage(assistant([{ type: "text", text: "`npm test` runs every test file through node's test runner." }], "stop"), { sync: true });
  session.setLabel(answer.id, "first answer");
  session.branch(ask.id);
  session.appendMessage({ role: "user", content: "Actually, what is the start script?", timestamp: Date.now() });
  session.appendMessage(assistant([{ type: "text", text: "`npm start` runs the daemon and the web UI." }], "stop"), { sync: true });
  session.branch(answer.id);
  session.close();
  return { file: session.file, id: session.sessionId };
}
