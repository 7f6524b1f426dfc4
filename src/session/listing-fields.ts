// What a listing shows of a session, read from its lines: a session_info's non-empty name, the
// first user message's text (whitespace folded, 200 characters). The file store's listing
// (list.ts) and the PostgreSQL store's appends and imports read them alike.
import { messageText, type AgentMessage } from "../messages/types.js";

const FIRST_MESSAGE_CHARS = 200;

/** A line's JSON object, or null if it is not one. */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A session_info entry's name, trimmed; undefined when it has none (an empty name changes nothing). */
export function sessionNameIn(entry: Record<string, unknown> | null): string | undefined {
  const name = entry?.name;
  return typeof name === "string" && name.trim() ? name.trim() : undefined;
}

/** A message entry's text if it is a user message with some; undefined otherwise. */
export function userTextIn(entry: Record<string, unknown> | null): string | undefined {
  const message = entry?.message as AgentMessage | undefined;
  if (!message || message.role !== "user") return undefined;
  const text = messageText(message).replace(/\s+/g, " ").trim().slice(0, FIRST_MESSAGE_CHARS);
  return text || undefined;
}

/** sessionNameIn of a line. */
export const sessionNameOf = (line: string): string | undefined => sessionNameIn(parseObject(line));

/** userTextIn of a line. */
export const firstUserText = (line: string): string | undefined => userTextIn(parseObject(line));
