// What a fork of a session holds: a new header naming the parent file, the path's lines as
// they were written (labels and bookkeeping left behind), and the labels on that path
// re-applied at the end. Pure over the path's lines; SessionFile reads them and writes the file.
import { randomUUID } from "node:crypto";
import { dirname, resolve } from "node:path";
import { newEntryId } from "./ids.js";
import { sessionFilePath } from "./paths.js";
import { CURRENT_SESSION_VERSION, isBookkeeping, type LabelEntry, type SessionEntry, type SessionHeader } from "./types.js";

/** An entry of a fork's path, serialized. */
export interface ForkLine {
  id: string;
  line: string;
}

export interface ForkOptions {
  sessionsDir?: string;
  cwd?: string;
}

/** Adds `e` to a fork's lines unless a fork leaves it behind (labels are re-applied, bookkeeping stays). */
export function forkLine(e: SessionEntry, lines: ForkLine[]): void {
  if (e.type !== "label" && !isBookkeeping(e)) lines.push({ id: e.id, line: JSON.stringify(e) });
}

/** The fork's file name and lines: header, the path's lines, and its labels re-applied at the end. */
export function forkFile(path: readonly ForkLine[], labels: ReadonlyMap<string, string>, parent: { file: string; cwd: string }, options: ForkOptions): { file: string; lines: string[] } {
  const id = randomUUID();
  const timestamp = new Date().toISOString();
  const cwd = options.cwd ? resolve(options.cwd) : parent.cwd;
  const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd, parentSession: parent.file };
  const taken = new Set(path.map((e) => e.id));
  let parentId: string | null = path.length > 0 ? path[path.length - 1].id : null;
  const labelLines: string[] = [];
  for (const e of path) {
    const label = labels.get(e.id);
    if (!label) continue;
    const labelEntry: LabelEntry = { type: "label", id: newEntryId(taken), parentId, timestamp, targetId: e.id, label };
    taken.add(labelEntry.id);
    parentId = labelEntry.id;
    labelLines.push(JSON.stringify(labelEntry));
  }
  const file = sessionFilePath(options.sessionsDir ?? dirname(dirname(parent.file)), cwd, timestamp, id);
  return { file, lines: [JSON.stringify(header), ...path.map((e) => e.line), ...labelLines] };
}
