// Which entries the model's context is built from: after a compaction only the kept part of
// the path, plus the last model and thinking-level setters before it, so a long compacted
// session's context costs what its kept part costs, not the whole branch. Those setters are
// kept while the leaf only moves forward. Kept apart from SessionFile as its own cache.
import { latestCompactionIndex } from "./context.js";
import type { EntryReader } from "./entry-reader.js";
import type { EntryRecord } from "./load.js";
import type { SessionIndex } from "./session-index.js";
import type { CompactionEntry } from "./types.js";

interface Setters {
  path: EntryRecord[];
  start: number;
  thinking?: EntryRecord;
  model?: EntryRecord;
}

export class ContextRecords {
  /** the last model / thinking setters before the kept part of the current leaf's path */
  private settersCache: Setters | null = null;

  constructor(
    private readonly index: SessionIndex,
    private readonly reader: EntryReader,
  ) {}

  /** The records buildContext reads for `leafId`, in order. */
  of(leafId: string | null): EntryRecord[] {
    const path = this.index.path(leafId);
    const compactionIdx = latestCompactionIndex(path);
    if (compactionIdx < 0) return path;
    // Only entries from the first kept one on are messages; earlier ones can only set the
    // model or thinking level, so only the last of each kind is read.
    const compaction = this.reader.parse(path[compactionIdx]) as CompactionEntry;
    // the first kept entry lies shortly before the compaction: search back from it
    let start = compactionIdx;
    for (let i = compactionIdx - 1; i >= 0; i--) {
      if (path[i].id === compaction.firstKeptEntryId) {
        start = i;
        break;
      }
    }
    const lastBefore = (match: (r: EntryRecord) => boolean) => {
      for (let i = start - 1; i >= 0; i--) if (match(path[i])) return path[i];
      return undefined;
    };
    // the setters before the kept part do not change while the leaf only moves forward
    let setters = this.settersCache;
    if (!setters || setters.path !== path || setters.start !== start) {
      setters = {
        path,
        start,
        thinking: lastBefore((r) => r.type === "thinking_level_change"),
        model: lastBefore((r) => r.type === "model_change" || (r.type === "message" && this.reader.roleOf(r) === "assistant")),
      };
      if (this.index.isLeafPath(path)) this.settersCache = setters;
    }
    const { thinking, model } = setters;
    const selected = [thinking, model].filter((r): r is EntryRecord => r !== undefined).sort((a, b) => a.lineNo - b.lineNo);
    for (let i = start; i < path.length; i++) selected.push(path[i]);
    return selected;
  }
}
