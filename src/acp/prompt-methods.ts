// session/prompt and session/cancel: a turn of the model, or one of pith's own slash commands
// (/compact, /autocompact), which never reach the model.
import * as acp from "@agentclientprotocol/sdk";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { HostError } from "../host/host-error.js";
import { hostErrorOf } from "../host/session-host.js";
import type { AcpSession } from "./acp-session.js";
import { parseCommand, type ParsedCommand } from "./commands.js";
import { acpError, type ConnectionState } from "./connection-state.js";
import { promptFromBlocks, UnsupportedContent } from "./prompt-content.js";

export async function prompt(cx: ConnectionState, params: acp.PromptRequest): Promise<acp.PromptResponse> {
  const s = cx.get(params.sessionId);
  let prompt: ReturnType<typeof promptFromBlocks>;
  try {
    prompt = promptFromBlocks(params.prompt);
  } catch (err) {
    if (err instanceof UnsupportedContent) throw acp.RequestError.invalidParams({ reason: "unsupported_content" }, err.message);
    throw err;
  }
  const command = parseCommand(prompt.text);
  try {
    if (command) return await runCommand(cx, s, command);
    const end = await s.run(prompt);
    if ("stopReason" in end) return { stopReason: end.stopReason };
    throw new HostError(ErrorCodes.ProviderError, end.error.message, { class: end.error.errorClass ?? "fatal", status: end.error.status, retryable: end.error.errorClass === "transient" });
  } catch (err) {
    throw acpError(err, params.sessionId);
  }
}

export function cancel(cx: ConnectionState, params: acp.CancelNotification): void {
  cx.sessions.get(params.sessionId)?.cancelRun();
}

/** /compact [instructions] and /autocompact on|off: pith's own operations, never sent to the model. */
async function runCommand(cx: ConnectionState, s: AcpSession, command: ParsedCommand): Promise<acp.PromptResponse> {
  const say = (text: string) => cx.send(s.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  if (command.name === "autocompact") return autoCompactCommand(cx, s, command, say);
  return compactCommand(cx, s, command, say);
}

async function autoCompactCommand(cx: ConnectionState, s: AcpSession, command: Extract<ParsedCommand, { name: "autocompact" }>, say: (text: string) => void): Promise<acp.PromptResponse> {
  if ("error" in command) {
    say(command.error);
    return { stopReason: "end_turn" };
  }
  const enabled = command.enabled;
  await cx.host.perform("setAutoCompactionEnabled", { sessionId: s.id, enabled }, () => s.live.setAutoCompaction(enabled));
  say(`Automatic compaction is ${command.enabled ? "on" : "off"}.`);
  cx.send(s.id, { sessionUpdate: "config_option_update", configOptions: cx.options(s) });
  return { stopReason: "end_turn" };
}

/** Nothing to compact is said in the chat; an aborted compaction ends the turn as cancelled. */
async function compactCommand(cx: ConnectionState, s: AcpSession, command: Extract<ParsedCommand, { name: "compact" }>, say: (text: string) => void): Promise<acp.PromptResponse> {
  const instructions = command.instructions;
  try {
    await cx.host.perform("compact", { sessionId: s.id, instructions }, (held) => s.live.compact(held, instructions));
  } catch (err) {
    const mapped = hostErrorOf(err);
    if (mapped?.code === ErrorCodes.NothingToCompact) {
      say(`Nothing to compact: ${mapped.message}`);
      return { stopReason: "end_turn" };
    }
    if (mapped?.code === ErrorCodes.Aborted) return { stopReason: "cancelled" };
    throw err;
  }
  return { stopReason: "end_turn" };
}
