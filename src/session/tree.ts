// The tree view: every entry with a short preview and its label, in depth-first order with
// children sorted by timestamp. Pure over the records it is given.
import type { AgentMessage } from "../messages/types.js";
import type { EntryRecord } from "./load.js";
import type { SessionEntry } from "./types.js";

export interface TreeNode {
  id: string;
  parentId: string | null;
  type: string;
  timestamp: string;
  /** message role, for message entries */
  role?: string;
  preview: string;
  label?: string;
  /** nesting level for display: 0 for roots, one more only below a fork (a linear chain stays level) */
  depth: number;
}

export interface TreeView {
  leafId: string | null;
  entries: TreeNode[];
}

const PREVIEW_CHARS = 120;

/** JavaScript's \s, by char code (a regular expression per character cost as much as the parse). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * `pieces` joined with spaces, whitespace runs collapsed to one space, trimmed, cut at
 * PREVIEW_CHARS with "…". Reads only as far as the preview goes (a 20 MB tool result is not
 * scanned whole) and builds a fresh string from char codes: a slice would keep the whole text
 * alive in the per-entry cache.
 */
export function clip(...pieces: string[]): string {
  return clipInfo(pieces).text;
}

/** clip, and whether the preview was filled (more text could not have changed it). */
export function clipInfo(pieces: readonly string[]): { text: string; full: boolean } {
  const codes: number[] = [];
  let space = false;
  for (let p = 0; p < pieces.length && codes.length <= PREVIEW_CHARS; p++) {
    const text = pieces[p];
    if (p > 0) space = codes.length > 0;
    for (let i = 0; i < text.length && codes.length <= PREVIEW_CHARS; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) {
        space = codes.length > 0;
        continue;
      }
      if (space) codes.push(0x20);
      space = false;
      codes.push(c);
    }
  }
  if (codes.length > PREVIEW_CHARS) return { text: `${String.fromCharCode(...codes.slice(0, PREVIEW_CHARS - 1))}…`, full: true };
  return { text: String.fromCharCode(...codes), full: false };
}

/** The texts messageText would join, without joining them. */
function textPieces(m: AgentMessage): string[] {
  switch (m.role) {
    case "compactionSummary":
    case "branchSummary":
      return [m.summary];
    case "bashExecution":
      return [m.command];
    default: {
      const content = m.content as string | { type: string; text?: string }[] | undefined;
      if (typeof content === "string") return [content];
      if (!Array.isArray(content)) return [];
      return content.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
    }
  }
}

export function previewOf(entry: SessionEntry): string {
  switch (entry.type) {
    case "message": {
      const m = entry.message as AgentMessage;
      const pieces = textPieces(m);
      // messageText's joined text is non-empty (even if only whitespace): the preview is that text's
      if (pieces.length > 1 || pieces[0]) return clip(...pieces);
      if (m.role === "assistant") {
        const calls = m.content.filter((b) => b.type === "toolCall").map((b) => (b.type === "toolCall" ? b.name : ""));
        if (calls.length > 0) return clip(`[tool calls: ${calls.join(", ")}]`);
        return m.stopReason === "aborted" || m.stopReason === "error" ? `[${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ""}]` : "[empty]";
      }
      return "";
    }
    case "compaction":
    case "branch_summary":
      return clip(entry.summary ?? "");
    case "model_change":
      return `${entry.provider}/${entry.modelId}`;
    case "thinking_level_change":
      return `thinking: ${entry.thinkingLevel}`;
    case "custom":
      return entry.customType ?? "";
    case "custom_message":
      return clip(...(typeof entry.content === "string" ? [entry.content] : textPieces({ role: "user", content: entry.content, timestamp: 0 })));
    case "label":
      return entry.label ? `label "${entry.label}" on ${entry.targetId}` : `label cleared on ${entry.targetId}`;
    case "session_info":
      return entry.name ? `name: ${entry.name}` : "";
    default:
      return "";
  }
}

/** What the tree shows of an entry besides its light fields. */
export interface EntrySketch {
  preview: string;
  role?: string;
}

export function sketchOf(entry: SessionEntry): EntrySketch {
  return entry.type === "message" ? { preview: previewOf(entry), role: entry.message.role } : { preview: previewOf(entry) };
}

export function buildTreeView(
  records: readonly EntryRecord[],
  sketch: (r: EntryRecord) => EntrySketch,
  labels: ReadonlyMap<string, string>,
  leafId: string | null,
): TreeView {
  const present = new Set(records.map((r) => r.id));
  const children = new Map<string | null, EntryRecord[]>();
  for (const r of records) {
    const parent = r.parentId !== null && present.has(r.parentId) ? r.parentId : null;
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(r);
  }
  // stable sort keeps file order for equal timestamps
  for (const list of children.values()) list.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));

  const entries: TreeNode[] = [];
  // iterative depth-first walk: long sessions are deep chains
  const stack: { rec: EntryRecord; depth: number }[] = [];
  const pushChildren = (parent: string | null, depth: number) => {
    const list = children.get(parent);
    if (!list) return;
    const childDepth = list.length > 1 || parent === null ? depth + 1 : depth;
    for (let i = list.length - 1; i >= 0; i--) stack.push({ rec: list[i], depth: childDepth });
  };
  pushChildren(null, -1);
  while (stack.length > 0) {
    const { rec, depth } = stack.pop()!;
    const { preview, role } = sketch(rec);
    const node: TreeNode = { id: rec.id, parentId: rec.parentId, type: rec.type, timestamp: rec.timestamp, preview, depth };
    if (role !== undefined) node.role = role;
    const label = labels.get(rec.id);
    if (label) node.label = label;
    entries.push(node);
    pushChildren(rec.id, depth);
  }
  return { leafId, entries };
}
