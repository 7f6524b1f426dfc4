// `pith -p "prompt"` (`--mode text`): one prompt for a person. stdout gets the final reply's text
// and nothing else, so it can be piped; stderr gets one line per tool call as it ends, and one
// for a compaction, a retry or an error. Offline, stderr first says it is the demo model; an
// existing session (--session, --continue) first says the directory its tools will write in.
import type { SessionEvent } from "../host/live/event-buffer.js";
import { compactionLine } from "./compaction-lines.js";
import { exitCodeOf, OFFLINE_NOTICE, runPrompt, type PromptRunOptions } from "./run-prompt.js";
import { RetryLine } from "./retry-line.js";
import { printErr, printOut } from "./terminal-out.js";

/** A path as a terminal may show it: control characters (a directory named with an escape sequence) spelt out. */
function visible(path: string): string {
  return path.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function oneLine(text: string, max = 120): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/** What the call was about: its path, command or pattern. */
function target(args: Record<string, unknown> | undefined): string {
  const v = args?.path ?? args?.command ?? args?.pattern;
  return typeof v === "string" ? ` ${oneLine(v, 80)}` : "";
}

function resultText(result: unknown): string {
  const content = (result as { content?: { type?: string; text?: string }[] })?.content;
  return Array.isArray(content) ? content.map((b) => (b?.type === "text" ? (b.text ?? "") : "")).join(" ") : "";
}

export async function runTextMode(opts: PromptRunOptions): Promise<number> {
  const retry = new RetryLine();
  const say = (text: string) => (retry.keep(), printErr(`${text}\n`));
  const args = new Map<string, Record<string, unknown>>();
  const outcome = await runPrompt(opts, {
    opened(session, offline, existing) {
      if (offline) say(`pith: ${OFFLINE_NOTICE}`);
      // an existing session may work elsewhere than here: say where its tools will write
      if (existing) say(`pith: session ${session.id.slice(0, 8)} works in ${visible(session.file.cwd)}`);
    },
    event(e: SessionEvent) {
      if (e.type === "tool_execution_start") args.set(String(e.toolCallId), e.args as Record<string, unknown>);
      else if (e.type === "tool_execution_end") {
        const what = `${String(e.toolName)}${target(args.get(String(e.toolCallId)))}`;
        say(e.isError ? `✗ ${what}: failed: ${oneLine(resultText(e.result))}` : `✓ ${what}`);
      } else if (compactionLine(e) !== undefined) say(compactionLine(e)!);
      else if (e.type === "retry_start") retry.retrying(e.attempt, e.maxAttempts, e.delayMs, e.error.message);
    },
  });
  if (!outcome) return 1;
  if (outcome.text) printOut(outcome.text.endsWith("\n") ? outcome.text : `${outcome.text}\n`);
  if (outcome.error) {
    retry.replace();
    say(`pith: the run failed: ${outcome.error.message}`);
  }
  else if (outcome.stopReason === "aborted") say("pith: the run was aborted");
  return exitCodeOf(outcome);
}
