// The bash method: a command the user runs (Pi's `!cmd`), stored as a bashExecution message. The
// user is trusted, so it is not sandboxed; it gets no secrets either, since its output goes to
// the model with the next prompt. Like the model's commands, its cut output is kept in the
// session's own temp dir (removed when the session closes, not left in the shared temp dir), and
// output past the limit kills it: the daemon reads every byte, whoever typed the command.
import type { BashExecutionMessage } from "../../messages/types.js";
import type { SessionFile } from "../../session/session-file.js";
import { bashTool } from "../../tools/bash.js";
import type { ToolError } from "../../tools/types.js";
import type { EventFields } from "./session-events.js";
import type { ToolPolicy } from "../policy/tool-policy.js";

export interface UserCommandResult {
  output: string;
  exitCode: number | null;
  cancelled: boolean;
  truncated: boolean;
  entryId: string;
}

type BashDetails = { exitCode?: number | null; truncated?: boolean; fullOutputPath?: string } | undefined;

export async function runUserCommand(
  file: SessionFile,
  command: string,
  tools: Pick<ToolPolicy, "env" | "tempDir" | "maxOutputBytes">,
  signal: AbortSignal,
  emit: <E extends "message_start" | "message_end">(type: E, fields: EventFields<E>) => void,
): Promise<UserCommandResult> {
  let output: string;
  let exitCode: number | null;
  let details: BashDetails;
  try {
    const out = await bashTool.execute({ command }, { cwd: file.cwd, signal, env: tools.env, tempDir: tools.tempDir, maxOutputBytes: tools.maxOutputBytes });
    output = out.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    details = out.details as BashDetails;
    exitCode = details?.exitCode ?? 0;
  } catch (err) {
    output = (err as Error).message;
    details = (err as ToolError).details as BashDetails;
    exitCode = details?.exitCode ?? null;
  }
  const truncated = details?.truncated ?? false;
  const cancelled = signal.aborted;
  const message: BashExecutionMessage = { role: "bashExecution", command, output, exitCode: exitCode ?? undefined, cancelled, truncated, fullOutputPath: details?.fullOutputPath, timestamp: Date.now() };
  const entry = file.appendMessage(message, { sync: true });
  emit("message_start", { message });
  emit("message_end", { message, entryId: entry.id });
  return { output, exitCode, cancelled, truncated, entryId: entry.id };
}
