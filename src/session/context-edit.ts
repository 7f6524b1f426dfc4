// Pi 1.x context edits (`context_edit` entries), read the way Pi 1.5.2 reads them. Pure.
// An edit names an earlier entry of its branch and leaves that entry's message out of the
// model's context (`replacement: null`) or swaps its content. Only edits among the entries the
// context is built from count (after a compaction: the kept part and what follows), so an edit
// on another branch, or one whose target was summarized, does nothing. The latest edit of a
// target wins; an edit of an edit, or of an unknown id, changes nothing. A malformed edit (no
// `replacement`, or content neither a string nor an array) is skipped: Pi 1.5.2 would fail on
// it or send the model a message without content, and nothing stored may stop a session.
import type { AgentMessage } from "../messages/types.js";
import type { ContextEditEntry, EntryBase } from "./types.js";

export type ContextEdits = ReadonlyMap<string, ContextEditEntry>;

const NONE: ContextEdits = new Map();

function wellFormed(r: unknown): boolean {
  if (r === null) return true;
  if (typeof r !== "object" || r === undefined) return false;
  const content = (r as { content?: unknown }).content;
  return typeof content === "string" || Array.isArray(content);
}

/** The latest edit of each target among `entries` (in path order). */
export function contextEditsOf(entries: Iterable<EntryBase>): ContextEdits {
  let edits: Map<string, ContextEditEntry> | undefined;
  for (const e of entries) {
    if (e.type !== "context_edit") continue;
    const edit = e as ContextEditEntry;
    if (typeof edit.targetId !== "string" || !wellFormed(edit.replacement)) continue;
    (edits ??= new Map()).set(edit.targetId, edit);
  }
  return edits ?? NONE;
}

/**
 * The message as `edit` leaves it: undefined when left out. A replacement swaps the content of
 * user, assistant, tool-result and extension messages (a string becomes one text block for the
 * two roles whose content is always blocks); other messages (bash runs, summaries) keep theirs,
 * as in Pi. `edit` is one contextEditsOf kept, so its replacement is well formed.
 */
export function applyContextEdit(message: AgentMessage, edit: ContextEditEntry | undefined): AgentMessage | undefined {
  if (!edit) return message;
  const replacement = edit.replacement;
  if (replacement === null) return undefined;
  switch (message.role) {
    case "user":
    case "custom":
      return { ...message, content: replacement.content } as AgentMessage;
    case "assistant":
    case "toolResult": {
      const content = typeof replacement.content === "string" ? [{ type: "text", text: replacement.content }] : replacement.content;
      return { ...message, content } as AgentMessage;
    }
    default:
      return message;
  }
}
