// The in-memory index of a session's tree: the light records in file order and by id, and the
// active leaf with its path root -> leaf kept (reads of the active path cost no walk). No I/O:
// a record says where its line is, EntryReader reads it. Kept apart from SessionFile so the
// tree bookkeeping can be read (and changed) without the reading and writing around it.
import { SessionError, type SessionWarning } from "./session-error.js";
import { newEntryId } from "./ids.js";
import { linkRecords, type EntryRecord } from "./load.js";
import { isBookkeepingType } from "./types.js";

export class SessionIndex {
  /** every entry in file order (the header is not one) */
  readonly records: EntryRecord[];
  readonly byId: Map<string, EntryRecord>;
  private leaf: string | null;
  /** records root -> leaf for the current leaf; kept up to date on append, rebuilt after a move */
  private leafPath: EntryRecord[] | null;

  /** Links `records` into a tree (dangling parents re-attached, with a warning) and finds the leaf. */
  constructor(records: EntryRecord[], warnings: SessionWarning[]) {
    this.records = records;
    this.byId = linkRecords(records, warnings);
    this.leaf = this.resolveLeaf();
    // walking the tree is part of opening: later reads of the active path cost nothing
    this.leafPath = this.walkToRoot(this.leaf);
  }

  /** the active position: appends become its children; null = before the first entry */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Whether `path` is the kept path of the active leaf (what may be cached alongside it). */
  isLeafPath(path: readonly EntryRecord[]): boolean {
    return path === this.leafPath;
  }

  /** A fresh entry id, unused in this file. */
  newId(): string {
    return newEntryId(this.byId);
  }

  require(id: string): EntryRecord {
    const rec = this.byId.get(id);
    if (!rec) throw new SessionError("EntryNotFound", `no entry ${id} in this session`, { entryId: id });
    return rec;
  }

  /** The line number a new line gets (one more when a newline must first end a cut-off line). */
  nextLineNo(afterCutLine: boolean): number {
    return (this.records.length > 0 ? this.records[this.records.length - 1].lineNo : 1) + 1 + (afterCutLine ? 1 : 0);
  }

  /** Indexes a line just written (the leaf does not move: see moveLeaf). */
  add(rec: EntryRecord): void {
    this.records.push(rec);
    this.byId.set(rec.id, rec);
  }

  /** The records root -> `leafId`: the kept path for the active leaf, else a fresh walk. */
  path(leafId: string | null): EntryRecord[] {
    if (leafId !== this.leaf) return this.walkToRoot(leafId);
    this.leafPath ??= this.walkToRoot(leafId);
    return this.leafPath;
  }

  /** Moves the leaf, extending the kept path when the new leaf is a child of the old one. */
  moveLeaf(id: string | null): void {
    const rec = id === null ? undefined : this.byId.get(id);
    if (this.leafPath && rec && rec.parentId === this.leaf) this.leafPath.push(rec);
    else this.leafPath = null;
    this.leaf = id;
  }

  /** No id is used by two records (then an id names one record: the tree finds parents without a map). */
  get uniqueIds(): boolean {
    return this.byId.size === this.records.length;
  }

  /** Every record but bookkeeping (what the tree shows). */
  visible(): EntryRecord[] {
    return this.records.filter((r) => !(r.type === "custom" && isBookkeepingType(r.customType)));
  }

  /** The leaf a reopened file resumes at: its last entry, bookkeeping skipped up to its parent. */
  private resolveLeaf(): string | null {
    let rec = this.records.length > 0 ? this.records[this.records.length - 1] : undefined;
    while (rec && rec.type === "custom" && isBookkeepingType(rec.customType)) {
      rec = rec.parentId === null ? undefined : this.byId.get(rec.parentId);
      if (!rec) return null;
    }
    return rec ? rec.id : null;
  }

  private walkToRoot(leafId: string | null): EntryRecord[] {
    if (leafId === null) return [];
    const path: EntryRecord[] = [];
    let rec = this.byId.get(leafId);
    if (!rec) throw new SessionError("EntryNotFound", `no entry ${leafId} in this session`, { entryId: leafId });
    while (rec) {
      path.push(rec);
      rec = rec.parentId === null ? undefined : this.byId.get(rec.parentId);
    }
    return path.reverse();
  }
}
