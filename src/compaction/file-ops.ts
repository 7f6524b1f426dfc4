// Which files a span of work read and changed, from the tool calls in it, carried from one
// summary to the next. pith appends the lists to summaries itself: models are bad at it.
import type { FileLists } from "../../protocol/messages.js";
import type { AgentMessage } from "../messages/types.js";

export interface FileOps {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

/** The lists a summary ends with, as compaction and branch summary entries store them. */
export type { FileLists };

export function emptyFileOps(): FileOps {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/** Adds the read / write / edit tool calls of an assistant message (Pi's tool and argument names). */
export function collectFileOps(message: AgentMessage, ops: FileOps): void {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (!block || block.type !== "toolCall") continue;
    const path = (block.arguments as { path?: unknown } | undefined)?.path;
    if (typeof path !== "string" || path.length === 0) continue;
    if (block.name === "read") ops.read.add(path);
    else if (block.name === "write") ops.written.add(path);
    else if (block.name === "edit") ops.edited.add(path);
  }
}

/** Adds the lists of an earlier compaction or branch summary (`details`), if it has them. */
export function collectPreviousFileLists(details: unknown, ops: FileOps): void {
  const d = details as Partial<FileLists> | undefined;
  if (!d || typeof d !== "object") return;
  if (Array.isArray(d.readFiles)) for (const f of d.readFiles) if (typeof f === "string") ops.read.add(f);
  if (Array.isArray(d.modifiedFiles)) for (const f of d.modifiedFiles) if (typeof f === "string") ops.edited.add(f);
}

/** modified = written + edited; read = read - modified; both sorted. */
export function fileLists(ops: FileOps): FileLists {
  const modified = new Set([...ops.written, ...ops.edited]);
  return { readFiles: [...ops.read].filter((f) => !modified.has(f)).sort(), modifiedFiles: [...modified].sort() };
}

export function formatFileLists(lists: FileLists): string {
  const parts: string[] = [];
  if (lists.readFiles.length > 0) parts.push(`<read-files>\n${lists.readFiles.join("\n")}\n</read-files>`);
  if (lists.modifiedFiles.length > 0) parts.push(`<modified-files>\n${lists.modifiedFiles.join("\n")}\n</modified-files>`);
  return parts.join("\n\n");
}
