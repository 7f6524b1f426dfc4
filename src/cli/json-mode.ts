// `pith --mode json "prompt"`: one prompt, headless. The session header first, then every event
// as one JSON line (the notification's params plus "type"), then one result line:
// {"type":"result","sessionId","stopReason","text","usage","cost"[,"error"]}. Offline, a notice
// line after the header says it is the demo model and how to use a real one; a session file from
// outside the store gets a `workspace` notice naming the directory it works in. Exit 0 when the run
// ends normally, 1 on an error or an abort, 2 on bad usage.
import { exitCodeOf, OFFLINE_NOTICE, runPrompt, type PromptRunOptions } from "./run-prompt.js";
import { printJsonLine } from "./terminal-out.js";

export async function runJsonMode(opts: PromptRunOptions): Promise<number> {
  const outcome = await runPrompt(opts, {
    opened(session, offline) {
      printJsonLine(session.file.header);
      if (offline) printJsonLine({ type: "notice", kind: "offline_demo", message: OFFLINE_NOTICE });
      // a session file from outside the store works here, not where its (unchanged) header says
      if (session.file.cwd !== session.file.header.cwd) printJsonLine({ type: "notice", kind: "workspace", cwd: session.file.cwd, message: `the session works in ${session.file.cwd}, not in its header's ${String(session.file.header.cwd)}` });
    },
    event: printJsonLine,
  });
  if (!outcome) return 1;
  const { sessionId, stopReason, text, usage, error } = outcome;
  printJsonLine({ type: "result", sessionId, stopReason, text, usage, cost: usage.cost?.total ?? 0, ...(error ? { error: error.message } : {}) });
  return exitCodeOf(outcome);
}
