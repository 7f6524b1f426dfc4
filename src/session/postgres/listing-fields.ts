// The listing fields an entry line changes, read as the file store's listing reads them
// (list.ts): a session_info's non-empty name, the first user message's text (whitespace folded,
// 200 characters). Only these two entry types are ever parsed for it.
import { messageText, type AgentMessage } from "../../messages/types.js";

const FIRST_MESSAGE_CHARS = 200;

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A session_info line's name, trimmed; undefined when it has none (an empty name changes nothing, as in list.ts). */
export function sessionNameOf(line: string): string | undefined {
  const name = parsed(line)?.name;
  return typeof name === "string" && name.trim() ? name.trim() : undefined;
}

/** A message line's text if it is a user message with some; undefined otherwise. */
export function firstUserText(line: string): string | undefined {
  const message = parsed(line)?.message as AgentMessage | undefined;
  if (!message || message.role !== "user") return undefined;
  const text = messageText(message).replace(/\s+/g, " ").trim().slice(0, FIRST_MESSAGE_CHARS);
  return text || undefined;
}
