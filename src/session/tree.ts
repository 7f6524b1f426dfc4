// The tree view: every entry with a short preview and its label, in depth-first order with
// children sorted by timestamp. Pure over the records it is given.
import type { AgentMessage } from "../messages/types.js";
import type { EntryRecord } from "./load.js";
import type { SessionEntry } from "./types.js";
import { PreviewClip } from "./preview-clip.js";

interface TreeNode {
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

const CLIP = new PreviewClip();

/**
 * `pieces` joined with spaces, whitespace runs collapsed to one space, trimmed, cut at
 * PREVIEW_CHARS with "…" (preview-clip.ts). Reads only as far as the preview goes: a 20 MB tool
 * result is not scanned whole.
 */
export function clip(...pieces: string[]): string {
  CLIP.reset();
  for (const p of pieces) {
    CLIP.text(p);
    if (CLIP.full) break;
  }
  return CLIP.result();
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
    case "context_edit":
      // what Pi 1.5.2's tree shows: the kind of edit and its target
      return `context ${entry.replacement === null ? "omit" : "replace"}: ${entry.targetId}`;
    default:
      return "";
  }
}

/**
 * The tree view of `records` (file order, parents before children). Children hang off their
 * parent's id (an id used twice shows its children under both, as a lookup by id would), an entry
 * whose parent is not among the records is a root. Index arrays rather than a map of lists: a
 * session of 600k tiny entries spent most of its tree here. `uniqueIds`: no id is used twice
 * (the index knows), so parents are found without a map of every id where they are near.
 */
export function buildTreeView(
  records: readonly EntryRecord[],
  preview: (r: EntryRecord) => string,
  labels: ReadonlyMap<string, string>,
  leafId: string | null,
  uniqueIds = false,
): TreeView {
  const n = records.length;
  const ROOT = n;
  // group: the first record with each id (children are counted per group); parent: its group
  const group = new Int32Array(n);
  const parent = new Int32Array(n);
  const counts = new Int32Array(n + 1);
  if (uniqueIds) {
    const ids = {};
    for (let i = 0; i < n; i++) {
      group[i] = i;
      // most often the record just before: no call for it
      parent[i] = i > 0 && records[i].parentId === records[i - 1].id ? i - 1 : nearParent(records, i, ROOT, ids);
    }
  } else {
    const first = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const id = records[i].id;
      const g = first.get(id);
      if (g === undefined) first.set(id, (group[i] = i));
      else group[i] = g;
    }
    for (let i = 0; i < n; i++) {
      const pid = records[i].parentId;
      const g = pid === null ? undefined : first.get(pid);
      parent[i] = g === undefined ? ROOT : g;
    }
  }
  for (let i = 0; i < n; i++) counts[parent[i]]++;
  // children of group g: kids[start[g] .. start[g + 1]), in file order, then sorted by timestamp
  const start = new Int32Array(n + 2);
  for (let g = 0; g <= n; g++) start[g + 1] = start[g] + counts[g];
  const next = start.slice(0, n + 1);
  const kids = new Int32Array(n);
  for (let i = 0; i < n; i++) kids[next[parent[i]]++] = i;
  for (let g = 0; g <= n; g++) {
    if (start[g + 1] - start[g] < 2) continue;
    // stable: equal timestamps keep file order
    const list = Array.from(kids.subarray(start[g], start[g + 1]));
    list.sort((a, b) => {
      const ta = records[a].timestamp;
      const tb = records[b].timestamp;
      return ta < tb ? -1 : ta > tb ? 1 : a - b;
    });
    kids.set(list, start[g]);
  }

  const entries: TreeNode[] = [];
  // iterative depth-first walk: long sessions are deep chains. A node may be pushed more than
  // once only through duplicate ids, so the stack is sized for the worst case of the walk.
  let stackNode = new Int32Array(Math.max(16, n));
  let stackDepth = new Int32Array(stackNode.length);
  let top = 0;
  const pushChildren = (g: number, depth: number) => {
    const from = start[g];
    const to = start[g + 1];
    const childDepth = to - from > 1 || g === ROOT ? depth + 1 : depth;
    if (top + (to - from) > stackNode.length) {
      const size = Math.max(stackNode.length * 2, top + (to - from));
      const nodes = new Int32Array(size);
      const depths = new Int32Array(size);
      nodes.set(stackNode);
      depths.set(stackDepth);
      stackNode = nodes;
      stackDepth = depths;
    }
    for (let k = to - 1; k >= from; k--) {
      stackNode[top] = kids[k];
      stackDepth[top++] = childDepth;
    }
  };
  pushChildren(ROOT, -1);
  while (top > 0) {
    const i = stackNode[--top];
    const depth = stackDepth[top];
    const rec = records[i];
    const node: TreeNode = { id: rec.id, parentId: rec.parentId, type: rec.type, timestamp: rec.timestamp, preview: preview(rec), depth };
    // a message's role, as the scan read it
    if (rec.role !== undefined) node.role = rec.role;
    const label = labels.size > 0 ? labels.get(rec.id) : undefined;
    if (label) node.label = label;
    entries.push(node);
    pushChildren(group[i], depth);
  }
  return { leafId, entries };
}

/** How far back a parent is looked for record by record before every id is put in a map. */
const NEAR = 256;

/**
 * The index of record i's parent (ids unique): most often the record just before it, else a few
 * before (a branch goes back a few turns), else looked up in a map of every id, built the first
 * time one is needed (`ids`; a Map of 600k ids was a third of a first tree). ROOT when none.
 */
function nearParent(records: readonly EntryRecord[], i: number, ROOT: number, ids: { at?: Map<string, number> }): number {
  const pid = records[i].parentId;
  if (pid === null) return ROOT;
  const stop = Math.max(0, i - NEAR);
  for (let k = i - 1; k >= stop; k--) if (records[k].id === pid) return k;
  if (!ids.at) {
    ids.at = new Map();
    for (let k = 0; k < records.length; k++) ids.at.set(records[k].id, k);
  }
  return ids.at.get(pid) ?? ROOT;
}
