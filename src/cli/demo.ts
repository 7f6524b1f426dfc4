// `pith demo`: the offline demo, to watch. It makes a scratch project of its own (a temporary
// folder with a messy notes.md), runs "Tidy up the notes" there with the offline model whatever
// keys are set, and streams the reply as it comes: text on stdout, one line per tool call and per
// compaction (the demo model's small window makes the first task compact). Then
// it says what to try next, in commands that work from any directory.
import type { Logger } from "pino";
import type { SessionEvent } from "../host/live/event-buffer.js";
import { makeDemoProject } from "../host/policy/session-workspaces.js";
import { OFFLINE_HINT } from "../llm/demo-script.js";
import { SCRIPTED_MODEL } from "../llm/models.js";
import { compactionLine } from "./compaction-lines.js";
import { exitCodeOf, runPrompt } from "./run-prompt.js";
import { printOut } from "./terminal-out.js";

const DEMO_PROMPT = "Tidy up the notes";

export async function runDemo(log: Logger): Promise<number> {
  const cwd = makeDemoProject();
  const out = printOut;
  const args = new Map<string, unknown>();
  let inText = false;
  const endText = () => {
    if (inText) out("\n");
    inText = false;
  };
  out(`pith demo: the offline demo model at work in a scratch project, ${cwd}\n(${OFFLINE_HINT})\n\n> ${DEMO_PROMPT}\n\n`);
  const outcome = await runPrompt({ log, prompt: DEMO_PROMPT, continueLast: false, cwd, model: SCRIPTED_MODEL.id }, {
    opened() {},
    event(e: SessionEvent) {
      const delta = e.type === "message_update" ? (e.delta as { type?: string; text?: string } | undefined) : undefined;
      if (delta?.type === "text" && delta.text) {
        out(delta.text);
        inText = true;
      } else if (e.type === "tool_execution_start") args.set(String(e.toolCallId), e.args);
      else if (e.type === "tool_execution_end") {
        endText();
        const a = args.get(String(e.toolCallId)) as { path?: unknown; command?: unknown } | undefined;
        const what = typeof a?.path === "string" ? a.path : typeof a?.command === "string" ? a.command : "";
        out(`  ${e.isError ? "✗" : "✓"} ${String(e.toolName)} ${what}\n`);
      } else if (e.type === "message_end") endText();
      else if (compactionLine(e) !== undefined) {
        endText();
        out(`  ${compactionLine(e)!}\n`);
      }
    },
  });
  if (!outcome) return 1;
  const id = outcome.sessionId.slice(0, 8);
  out(
    [
      "",
      `The session is stored; look at it from any directory:`,
      `  pith tree ${id}      its entries, branches and the active leaf`,
      `  pith context ${id}   what the model sees`,
      `  pith serve              the web UI: steer, abort and compact while it runs`,
      `  cd ${cwd} && pith -p "Check the notes"`,
      "",
    ].join("\n"),
  );
  return exitCodeOf(outcome);
}
