// v1 -> v2 -> v3 migration, as a pure function over a file's parsed lines.
// v1: a flat list, no ids; compactions point at the first kept entry by index (the header is
// index 0, malformed lines are not counted). v2: the id / parentId tree. v3: role
// "hookMessage" renamed to "custom".
import { newEntryId } from "./ids.js";
import { CURRENT_SESSION_VERSION } from "./types.js";

/** A line of the file: parsed JSON, or text that did not parse (kept so nothing is deleted). */
export type FileLine = { json: Record<string, unknown> } | { raw: string };

export function fileVersion(header: Record<string, unknown>): number {
  return typeof header.version === "number" ? header.version : 1;
}

/** Returns migrated copies of the lines; line 0 must be the header. */
export function migrateLines(lines: readonly FileLine[]): FileLine[] {
  const header = (lines[0] as { json: Record<string, unknown> }).json;
  const version = fileVersion(header);
  if (version >= CURRENT_SESSION_VERSION) return lines.slice();
  const out: FileLine[] = lines.map((l) => ("json" in l ? { json: structuredClone(l.json) } : l));
  const parsed = out.filter((l): l is { json: Record<string, unknown> } => "json" in l).map((l) => l.json);

  if (version < 2) {
    const taken = new Set<string>();
    let prevId: string | null = null;
    for (const entry of parsed) {
      if (entry.type === "session") continue;
      const id = newEntryId(taken);
      taken.add(id);
      entry.id = id;
      entry.parentId = prevId;
      prevId = id;
      if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
        const target = parsed[entry.firstKeptEntryIndex];
        if (target && target.type !== "session" && typeof target.id === "string") entry.firstKeptEntryId = target.id;
        delete entry.firstKeptEntryIndex;
      }
    }
  }
  if (version < 3) {
    for (const entry of parsed) {
      if (entry.type !== "message") continue;
      const message = entry.message as Record<string, unknown> | undefined;
      if (message && message.role === "hookMessage") message.role = "custom";
    }
  }
  const newHeader = (out[0] as { json: Record<string, unknown> }).json;
  newHeader.version = CURRENT_SESSION_VERSION;
  return out;
}

/** Serializes lines back to file text, one per line, each ending in "\n". */
export function serializeLines(lines: readonly FileLine[]): string {
  let text = "";
  for (const l of lines) text += ("json" in l ? JSON.stringify(l.json) : l.raw) + "\n";
  return text;
}
