// Human-readable renderings of a tree and a context for the terminal.
import { messageText } from "../messages/types.js";
import type { SessionContext } from "../session/context.js";
import type { TreeView } from "../session/tree.js";

export function formatTree(tree: TreeView): string {
  const childCount = new Map<string | null, number>();
  for (const n of tree.entries) childCount.set(n.parentId, (childCount.get(n.parentId) ?? 0) + 1);
  let out = "";
  for (const n of tree.entries) {
    const mark = n.id === tree.leafId ? "*" : " ";
    // a branch starts here when the parent has more than one child
    const fork = n.depth === 0 ? "" : (childCount.get(n.parentId) ?? 0) > 1 ? "├ " : "  ";
    const kind = n.role ?? n.type;
    const label = n.label ? ` [${n.label}]` : "";
    out += `${mark} ${"  ".repeat(Math.max(0, n.depth - 1))}${fork}${n.id} ${kind}${label}: ${n.preview}\n`;
  }
  out += `leaf: ${tree.leafId ?? "(before the first entry)"}\n`;
  return out;
}

export function formatContext(ctx: SessionContext): string {
  let out = `model: ${ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : "(none)"}  thinking: ${ctx.thinkingLevel}  messages: ${ctx.messages.length}\n`;
  ctx.messages.forEach((m, i) => {
    const text = messageText(m).replace(/\s+/g, " ").trim();
    out += `${String(i + 1).padStart(4)} ${m.role.padEnd(17)} ${text.length > 100 ? text.slice(0, 99) + "…" : text}\n`;
  });
  return out;
}
