// A working copy of a TranscriptState for one reduction: the reducer's steps read and write it
// like a mutable object, and each collection (items, tools, seen keys, summaries) is copied the
// first time it is written, so the state given in is never changed and a whole fetched
// transcript is built in one pass instead of one copy per message.
import type { ToolState, TranscriptItem, TranscriptState } from "./transcript-types.js";

type Writable<T> = { -readonly [K in keyof T]: T[K] };
/** An item as a step makes it; the draft gives it the next id. */
export type NewItem = TranscriptItem extends infer I ? (I extends TranscriptItem ? Omit<I, "id"> : never) : never;

export class TranscriptDraft {
  private readonly s: Writable<TranscriptState>;
  private changed = false;
  private readonly copied = new Set<"items" | "tools" | "seen" | "liveSummaries">();

  constructor(private readonly base: TranscriptState) {
    this.s = { ...base };
  }

  /** The state so far (read only: write through the methods). */
  get state(): TranscriptState {
    return this.s;
  }

  /** The new state, or the one given in if no step changed anything. */
  result(): TranscriptState {
    return this.changed ? this.s : this.base;
  }

  set<K extends "skipping" | "streaming" | "started" | "compactionItem" | "branchItem" | "retryItem" | "failedReply" | "runErrorItem">(key: K, value: TranscriptState[K]): void {
    if (this.s[key] === value) return;
    if (value === undefined) delete this.s[key];
    else this.s[key] = value;
    this.changed = true;
  }

  // ---- items ---------------------------------------------------------------------------------------

  item(id: number | undefined): TranscriptItem | undefined {
    if (id === undefined) return undefined;
    // the items asked for are nearly always the last few
    for (let i = this.s.items.length - 1; i >= 0; i--) if (this.s.items[i].id === id) return this.s.items[i];
    return undefined;
  }

  append(item: NewItem): number {
    const id = this.s.nextId;
    this.s.nextId = id + 1;
    this.items().push({ ...item, id } as TranscriptItem);
    return id;
  }

  /** Puts `item` where the item with its id is (nothing if there is none); returns it. */
  replace<I extends TranscriptItem>(item: I): I {
    const i = this.indexOf(item.id);
    if (i >= 0 && this.s.items[i] !== item) this.items()[i] = item;
    return item;
  }

  /** Replaces the item `id` (keeping the id), or appends when there is none. */
  replaceOrAppend(id: number | undefined, item: NewItem): number {
    if (id === undefined || this.indexOf(id) < 0) return this.append(item);
    this.replace({ ...item, id } as TranscriptItem);
    return id;
  }

  remove(id: number): void {
    const i = this.indexOf(id);
    if (i >= 0) this.items().splice(i, 1);
  }

  private indexOf(id: number): number {
    for (let i = this.s.items.length - 1; i >= 0; i--) if (this.s.items[i].id === id) return i;
    return -1;
  }

  private items(): TranscriptItem[] {
    if (!this.copied.has("items")) {
      this.s.items = this.s.items.slice();
      this.copied.add("items");
    }
    this.changed = true;
    return this.s.items as TranscriptItem[];
  }

  // ---- tools, seen messages, summaries being written ------------------------------------------------

  tool(id: string): ToolState | undefined {
    return this.s.tools.get(id);
  }

  putTool(tool: ToolState): void {
    if (this.s.tools.get(tool.id) === tool) return;
    this.writable("tools").set(tool.id, tool);
  }

  see(key: string): void {
    if (!this.s.seen.has(key)) this.writable("seen").add(key);
  }

  putSummary(compactionId: string, text: string): void {
    if (this.s.liveSummaries.get(compactionId) !== text) this.writable("liveSummaries").set(compactionId, text);
  }

  forgetSummary(compactionId: string): void {
    if (this.s.liveSummaries.has(compactionId)) this.writable("liveSummaries").delete(compactionId);
  }

  private writable(key: "tools"): Map<string, ToolState>;
  private writable(key: "seen"): Set<string>;
  private writable(key: "liveSummaries"): Map<string, string>;
  private writable(key: "tools" | "seen" | "liveSummaries"): Map<string, unknown> | Set<string> {
    if (!this.copied.has(key)) {
      if (key === "seen") this.s.seen = new Set(this.s.seen);
      else if (key === "tools") this.s.tools = new Map(this.s.tools);
      else this.s.liveSummaries = new Map(this.s.liveSummaries);
      this.copied.add(key);
    }
    this.changed = true;
    return this.s[key] as Map<string, unknown> | Set<string>;
  }
}
