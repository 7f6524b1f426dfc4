// A case's session as one run of the eval uses it: a copy of its file (the eval never writes to a
// case), whole (the floor, the ceiling) or only its opening, the rest of its work then appended to
// the live session entry by entry, as a session that worked through it would have stored it.
import { readFileSync, writeFileSync } from "node:fs";
import { emptyUsage, type StoredMessage } from "../messages/types.js";
import type { SessionFile } from "../session/session-file.js";
import type { EvalCase } from "./case-set.js";

export interface Entry {
  type?: unknown;
  id?: unknown;
  message?: unknown;
  thinkingLevel?: unknown;
}

export interface CaseCopy {
  file: string;
  /** the entries still to append (none when the copy holds all of it) */
  rest: Entry[];
}

/** Writes the case's session to `file`: whole, or its header and what comes before its first message. */
export function copyCase(c: EvalCase, file: string, part: "all" | "opening"): CaseCopy {
  const text = readFileSync(c.sessionFile, "utf8");
  if (part === "all") {
    writeFileSync(file, text);
    return { file, rest: [] };
  }
  const lines = text.split("\n").filter((l) => l.trim());
  const entries = lines.map((l) => JSON.parse(l) as Entry);
  const first = entries.findIndex((e) => e.type === "message");
  const at = first < 0 ? lines.length : first;
  writeFileSync(file, lines.slice(0, at).join("\n") + "\n");
  return { file, rest: entries.slice(at) };
}

/**
 * Appends one entry of the work to the live session: a message (its usage left out: the case's
 * numbers measured a context that no compaction had touched, and pith would read them as this
 * one's size) or a thinking-level change; the message appended, if it was one. The eval chooses
 * the model, so a model change is not replayed.
 */
export function appendEntry(file: SessionFile, e: Entry): StoredMessage | undefined {
  if (e.type === "thinking_level_change" && typeof e.thinkingLevel === "string") file.appendThinkingLevelChange(e.thinkingLevel);
  if (e.type !== "message" || typeof e.message !== "object" || e.message === null) return undefined;
  const message = e.message as StoredMessage;
  const stored = message.role === "assistant" ? { ...message, usage: emptyUsage() } : message;
  file.appendMessage(stored);
  return stored;
}
