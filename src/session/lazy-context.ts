// The context of a path's records with its message list built on first use. Opening a long
// session never compacted reads only its model and thinking level (a live session's constructor
// does), and parsing every message body for that costs as much as a plain parse of the whole
// file. Those two come from the light records plus the one or two entries they are set by; the
// messages, their entry ids and freshFrom are built together, by the eager code, when any of
// them is first read, or when the session is closed (UnreadContexts): a context built before
// close reads after it as it always did.
import { buildSessionContext, type SessionContext } from "./context.js";
import type { EntryReader } from "./entry-reader.js";
import type { EntryRecord } from "./load.js";
import type { SessionEntry } from "./types.js";

type LazyKey = "messages" | "entryIds" | "freshFrom";

/** buildSessionContext of the entries of `records` (in path order). */
function buildContextOf(records: readonly EntryRecord[], reader: EntryReader): SessionContext {
  // a live session's context is usually parsed already (warmed at open, appended since): taken
  // as it is, without the reader's runs (a context per getState of a long session added up)
  const entries = records.every((r) => r.entry !== undefined) ? records.map((r) => r.entry as SessionEntry) : [...reader.parsedRuns(records, true)].map(([, e]) => e);
  return buildSessionContext(entries);
}

/**
 * buildContextOf, with the message list built when first read. `records` may be the index's kept
 * leaf path, which grows in place on append: only the first `records.length` (now) are read.
 */
export function buildLazyContext(records: readonly EntryRecord[], reader: EntryReader, unread: UnreadContexts): SessionContext {
  const settings = settingsOf(records, reader);
  if (!settings) return buildContextOf(records, reader);
  const count = records.length;
  const ctx = {} as SessionContext;
  const ref = unread.add(ctx);
  const build = () => {
    const full = buildContextOf(count === records.length ? records : records.slice(0, count), reader);
    unread.delete(ref);
    // a field assigned before the build keeps what was assigned
    for (const key of LAZY) if (Object.getOwnPropertyDescriptor(ctx, key)?.get) settle(ctx, key, full[key]);
  };
  const lazy = (key: LazyKey): PropertyDescriptor => ({
    get: () => (build(), ctx[key]),
    set: (value: unknown) => settle(ctx, key, value),
    enumerable: true,
    configurable: true,
  });
  // the keys in buildSessionContext's order: JSON.stringify of the context is the same text
  Object.defineProperty(ctx, "messages", lazy("messages"));
  Object.defineProperty(ctx, "entryIds", lazy("entryIds"));
  ctx.model = settings.model;
  ctx.thinkingLevel = settings.thinkingLevel;
  Object.defineProperty(ctx, "freshFrom", lazy("freshFrom"));
  return ctx;
}

const LAZY: readonly LazyKey[] = ["messages", "entryIds", "freshFrom"];

/**
 * A session's contexts whose messages are not built yet, held weakly (one nobody holds needs no
 * building), so that close() can build the rest while the file is open.
 */
export class UnreadContexts {
  private readonly refs = new Set<WeakRef<SessionContext>>();
  /** the count above which add() first drops the refs of contexts already collected */
  private sweepAt = 64;

  add(ctx: SessionContext): WeakRef<SessionContext> {
    if (this.refs.size >= this.sweepAt) {
      for (const r of this.refs) if (r.deref() === undefined) this.refs.delete(r);
      this.sweepAt = Math.max(64, 2 * this.refs.size);
    }
    const ref = new WeakRef(ctx);
    this.refs.add(ref);
    return ref;
  }

  delete(ref: WeakRef<SessionContext>): void {
    this.refs.delete(ref);
  }

  /**
   * Builds every unread context still held (before the file closes). One that fails to build
   * (its file unreadable) is left unread: reading it later throws that error again, or
   * SessionClosed, which says more than a close that failed for it would.
   */
  buildAll(): void {
    for (const ref of [...this.refs]) {
      const ctx = ref.deref();
      try {
        // each of them: one assigned before it was read is no longer lazy, the others still are
        if (ctx) void [ctx.messages, ctx.entryIds, ctx.freshFrom];
      } catch {
        // left unread (see above)
      }
    }
    this.refs.clear();
  }
}

/** A lazy field become an ordinary data property. */
function settle(ctx: SessionContext, key: LazyKey, value: unknown): void {
  Object.defineProperty(ctx, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The model and thinking level buildSessionContext finds (the last setter of each wins), read
 * from the light records and the entries of those two setters; undefined when that cannot be
 * exact cheaply: a context_edit (it changes what the messages are), a message whose role the
 * light fields lack (the eager build decides what it means), a setter's line that does not parse
 * as what its light fields said (a damaged line is no setter: an earlier one wins), or every
 * entry parsed already (the eager build is then cheap).
 */
function settingsOf(records: readonly EntryRecord[], reader: EntryReader): Pick<SessionContext, "model" | "thinkingLevel"> | undefined {
  let thinkingFrom: EntryRecord | undefined;
  let modelFrom: EntryRecord | undefined;
  let allParsed = true;
  for (const r of records) {
    if (r.entry === undefined) allParsed = false;
    if (r.type === "context_edit" || (r.type === "message" && r.role === undefined)) return undefined;
    if (r.type === "thinking_level_change") thinkingFrom = r;
    else if (r.type === "model_change" || (r.type === "message" && r.role === "assistant")) modelFrom = r;
  }
  if (allParsed) return undefined;
  let thinkingLevel = "off";
  if (thinkingFrom) {
    const e = reader.parse(thinkingFrom);
    if (e.type !== "thinking_level_change") return undefined;
    thinkingLevel = e.thinkingLevel;
  }
  let model: SessionContext["model"] = null;
  if (modelFrom) {
    const e = reader.parse(modelFrom);
    if (e.type !== modelFrom.type) return undefined;
    if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message" && e.message?.role === "assistant") model = { provider: e.message.provider, modelId: e.message.model };
    else return undefined;
  }
  return { model, thinkingLevel };
}
