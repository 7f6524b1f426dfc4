// `pith demo`: shows the store at work without any model. Until the daemon lands this is what
// `npm start` runs: it writes a small session, branches it, and reopens it to show that the
// tree, the labels and the active leaf all come back from the file.
import type { Logger } from "pino";
import { emptyUsage, type AssistantMessage } from "../messages/types.js";
import { SessionFile, defaultSessionsDir } from "../session/index.js";
import { formatContext, formatTree } from "./format.js";

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return { role: "assistant", content, api: "anthropic-messages", provider: "scripted", model: "demo", usage: emptyUsage(), stopReason, timestamp: Date.now() };
}

export function runDemo(log: Logger): void {
  const session = SessionFile.create({ cwd: process.cwd(), sessionsDir: defaultSessionsDir() });
  log.debug({ file: session.file }, "demo session created");
  const ask = session.appendMessage({ role: "user", content: "What does package.json say about the tests?", timestamp: Date.now() });
  const call = assistant([{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "package.json" } }], "toolUse");
  session.appendMessage(call);
  session.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: '{ "scripts": { "test": "node scripts/run-tests.mjs" } }' }], isError: false, timestamp: Date.now() });
  const answer = session.appendMessage(assistant([{ type: "text", text: "`npm test` runs every test file through node's test runner." }], "stop"), { sync: true });
  session.setLabel(answer.id, "first answer");
  // go back to the first question and take another path from there
  session.branch(ask.id);
  session.appendMessage({ role: "user", content: "Actually, what is the start script?", timestamp: Date.now() });
  session.appendMessage(assistant([{ type: "text", text: "`npm start` runs this demo for now." }], "stop"), { sync: true });
  session.branch(answer.id);
  session.close();

  const reopened = SessionFile.open(session.file, { readOnly: true });
  process.stdout.write(`session file: ${reopened.file}\n\ntree (* = active leaf, restored from the file):\n`);
  process.stdout.write(formatTree(reopened.tree()));
  process.stdout.write(`\ncontext for the active leaf:\n${formatContext(reopened.buildContext())}`);
  process.stdout.write(`\ntry: bin/pith tree ${reopened.file}\n`);
  reopened.close();
}
