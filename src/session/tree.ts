// The tree view: every entry with a short preview and its label, in depth-first order with
// children sorted by timestamp. Pure over the records it is given.
import { messageText, type AgentMessage } from "../messages/types.js";
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

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}

export function previewOf(entry: SessionEntry): string {
  switch (entry.type) {
    case "message": {
      const m = entry.message as AgentMessage;
      const text = messageText(m);
      if (text) return clip(text);
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
      return clip(typeof entry.content === "string" ? entry.content : messageText({ role: "user", content: entry.content, timestamp: 0 }));
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
