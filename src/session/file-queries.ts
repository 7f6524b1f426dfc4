// Answers read from the whole file rather than from one path: the labels, the session's name,
// the latest bookkeeping entry of a type. Each walks the light records and parses only lines
// of its own type. Pure over the records and a reader; SessionFile keeps what it caches.
import type { EntryReader } from "./entry-reader.js";
import type { EntryRecord } from "./load.js";
import type { CustomEntry, LabelEntry, SessionInfoEntry } from "./types.js";

/** Current labels by target entry id (the latest label entry per target wins; empty clears). */
export function labelsIn(records: readonly EntryRecord[], reader: EntryReader): Map<string, string> {
  const labels = new Map<string, string>();
  for (const r of records) {
    if (r.type !== "label") continue;
    const e = reader.parse(r) as LabelEntry;
    if (e.label) labels.set(e.targetId, e.label);
    else labels.delete(e.targetId);
  }
  return labels;
}

/** The display name from the latest session_info entry, if any. */
export function nameIn(records: readonly EntryRecord[], reader: EntryReader): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.type !== "session_info") continue;
    const name = (reader.parse(r) as SessionInfoEntry).name;
    if (name) return name;
  }
  return undefined;
}

/** The data of the latest custom entry of this type, and its index in `records`. */
export function latestCustom(records: readonly EntryRecord[], customType: string, reader: EntryReader): { data: unknown; index: number } | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.type === "custom" && r.customType === customType) return { data: (reader.parse(r) as CustomEntry).data, index: i };
  }
  return undefined;
}
