// Session file entries (Pi's v3 format). Line 1 is the header; every later line is an entry.
import type { SessionHeader as WireSessionHeader } from "../../protocol/messages.js";
import type { ImageContent, StoredMessage, TextContent, ThinkingContent, ToolCall } from "../messages/types.js";

export const CURRENT_SESSION_VERSION = 3;

/** The wire's header (protocol/messages.ts), and the fields older files carry (v1 headers name a provider / model), kept as they are. */
export type SessionHeader = WireSessionHeader & { [extra: string]: unknown };

export interface EntryBase {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

interface MessageEntry extends EntryBase {
  type: "message";
  message: StoredMessage;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  fromHook?: boolean;
}

interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
}

interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
}

export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  /** absent or empty clears the label */
  label?: string;
}

/**
 * Pi 1.x: an append-only edit of what an earlier entry on the same branch gives the model's
 * context: `replacement: null` leaves it out, `{content}` replaces its content. The latest edit of
 * a target on the path wins; the target entry itself is never rewritten (see context-edit.ts).
 */
export interface ContextEditEntry extends EntryBase {
  type: "context_edit";
  targetId: string;
  replacement: { content: string | (TextContent | ImageContent | ThinkingContent | ToolCall)[] } | null;
}

export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}

type KnownEntry =
  | MessageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | ContextEditEntry;

export type SessionEntry = KnownEntry;

/** What a caller supplies to append: the store fills in id, parentId and timestamp. */
export type NewEntry = KnownEntry extends infer E
  ? E extends KnownEntry
    ? Omit<E, "id" | "parentId" | "timestamp"> & { timestamp?: string }
    : never
  : never;

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set([
  "message",
  "compaction",
  "branch_summary",
  "model_change",
  "thinking_level_change",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "context_edit",
]);

/**
 * customType of the entry pith appends to record a leaf move (see docs/session-format.md).
 * Pi takes the last entry of a file as its leaf; a `custom` entry is not a message, so a child of
 * the target written last makes both programs resume at the target.
 */
export const LEAF_MARKER_TYPE = "pith.leaf";

/**
 * customType of the entry pith writes after repairing a torn last line (a crash mid-write): it
 * names the torn line's byte offset, so later reads drop that line even when its cut happens to
 * leave a plausible-looking start.
 */
export const TORN_MARKER_TYPE = "pith.torn";

/** customType of the entry recording a session's own settings (auto-compaction on or off). */
export const SESSION_SETTINGS_TYPE = "pith.session-settings";

/**
 * The steer / follow-up queue as it stands after each change (`data: {items: [...]}`), synced
 * when a prompt is queued: a queued prompt survives a crash and is restored on reopen.
 */
export const PROMPT_QUEUE_TYPE = "pith.queue";

/**
 * Entries pith writes for its own bookkeeping: not messages, hidden from the tree, never the
 * leaf (each is written as a child of the leaf, which stays where it was).
 */
export function isBookkeeping(entry: EntryBase): boolean {
  return entry.type === "custom" && isBookkeepingType((entry as CustomEntry).customType);
}

const BOOKKEEPING_TYPES = new Set([LEAF_MARKER_TYPE, TORN_MARKER_TYPE, SESSION_SETTINGS_TYPE, PROMPT_QUEUE_TYPE]);

/** Whether a custom entry of this customType is pith's bookkeeping (what the index knows without a parse). */
export function isBookkeepingType(customType: string | undefined): boolean {
  return customType !== undefined && BOOKKEEPING_TYPES.has(customType);
}
