// The model's view of a session: the message list for the path root -> leaf. Pure.
// It yields the same messages, in the same order, as Pi's buildSessionContext for the same
// path, so a file means the same to both programs. Conversion to what a provider accepts
// (summaries as user text, dropping what it cannot take) happens later, at the provider.
import type { AgentMessage } from "../messages/types.js";
import { applyContextEdit, contextEditsOf } from "./context-edit.js";
import type { EntryBase, SessionEntry } from "./types.js";

interface ModelRef {
  provider: string;
  modelId: string;
}

export interface SessionContext {
  messages: AgentMessage[];
  /** id of the entry each message came from (the compaction's id for its summary) */
  entryIds: string[];
  model: ModelRef | null;
  thinkingLevel: string;
  /**
   * Index of the first message added after the latest compaction or context edit (0 when there
   * is none). Messages before it (the summary and the kept ones) carry usage figures from before
   * that change, which no longer describe the context (Pi 1.5.2 distrusts them the same way).
   */
  freshFrom: number;
}

function toMillis(timestamp: string): number {
  return new Date(timestamp).getTime();
}

/** The message an entry contributes to the context, if any. */
export function entryToMessage(entry: EntryBase): AgentMessage | undefined {
  const e = entry as SessionEntry;
  switch (e.type) {
    case "message":
      return e.message;
    case "custom_message":
      return {
        role: "custom",
        customType: e.customType,
        content: e.content,
        display: e.display,
        details: e.details,
        timestamp: toMillis(e.timestamp),
      };
    case "branch_summary":
      return e.summary ? { role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: toMillis(e.timestamp) } : undefined;
    default:
      return undefined;
  }
}

/** Index of the latest compaction on the path, or -1. */
export function latestCompactionIndex(path: readonly EntryBase[]): number {
  for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") return i;
  return -1;
}

/**
 * Builds the context from the entries of a path (root first). Entries before the latest
 * compaction's first kept entry may be left out of `path` by the caller (the store does, so it
 * need not parse them): they contribute nothing but the model / thinking level settings.
 */
export function buildSessionContext(path: readonly EntryBase[]): SessionContext {
  let thinkingLevel = "off";
  let model: ModelRef | null = null;
  for (const entry of path) {
    const e = entry as SessionEntry;
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel;
    else if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message" && e.message.role === "assistant") model = { provider: e.message.provider, modelId: e.message.model };
  }

  const compactionIdx = latestCompactionIndex(path);
  // the entries the context is built from: after a compaction, the kept part and what follows
  let keptFrom = compactionIdx;
  if (compactionIdx >= 0) {
    const firstKept = (path[compactionIdx] as Extract<SessionEntry, { type: "compaction" }>).firstKeptEntryId;
    for (let i = 0; i < compactionIdx; i++) {
      if (path[i].id === firstKept) {
        keptFrom = i;
        break;
      }
    }
  }
  const inContext = compactionIdx < 0 ? path : path.slice(keptFrom);
  const edits = contextEditsOf(inContext);

  const messages: AgentMessage[] = [];
  const entryIds: string[] = [];
  let freshFrom = 0;
  const push = (message: AgentMessage | undefined, id: string) => {
    const edited = message && applyContextEdit(message, edits.get(id));
    if (edited) {
      messages.push(edited);
      entryIds.push(id);
    }
  };
  const emit = (entry: EntryBase) => {
    push(entryToMessage(entry), entry.id);
    // an edit changes what the model saw when the usage before it was reported
    if (entry.type === "context_edit") freshFrom = messages.length;
  };

  if (compactionIdx < 0) {
    for (const entry of path) emit(entry);
  } else {
    const compaction = path[compactionIdx] as Extract<SessionEntry, { type: "compaction" }>;
    push({ role: "compactionSummary", summary: compaction.summary, tokensBefore: compaction.tokensBefore, timestamp: toMillis(compaction.timestamp) }, compaction.id);
    // kept entries: from firstKeptEntryId up to the compaction (none if that id is not on the path)
    for (let i = keptFrom; i < compactionIdx; i++) push(entryToMessage(path[i]), path[i].id);
    freshFrom = messages.length;
    for (let i = compactionIdx + 1; i < path.length; i++) emit(path[i]);
  }
  return { messages, entryIds, model, thinkingLevel, freshFrom };
}
