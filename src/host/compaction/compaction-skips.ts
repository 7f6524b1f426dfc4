// An automatic compaction that would free too little (or finds nothing before its cut) is skipped.
// Trying again a turn later, a few dozen tokens on, gives the same answer, and saying so again
// tells the user nothing: on an 8k window the same skip was reported two or three times a run.
// So a skip holds until the context has grown by as much as a compaction must free
// (minSavingsFraction of its size at the skip, 10% by default): only then can the cut have moved
// far enough to pay. A compaction stored since ends it (the context is another one now). It is
// reported once per context size: a skip within that same margin of the last one reported (a
// context that compacted and grew back to the size it was skipped at, say) is not reported again.
// Both hold on the path they were judged on; a move to another branch ends them.
import type { SessionFile } from "../../session/session-file.js";

interface Mark {
  tokens: number;
  leafId: string | null;
}

export class CompactionSkips {
  /** the last skip (or a client's hook cancelling): no new attempt until the context grew */
  private tried: Mark | undefined;
  /** the last skip reported */
  private told: Mark | undefined;

  constructor(private readonly file: Pick<SessionFile, "isOnPath" | "leafId">) {}

  /** True while the last skip still answers for a context of `tokens`: not worth trying again. */
  holds(tokens: number, minSavingsFraction: number): boolean {
    const t = this.live(this.tried);
    return t !== undefined && tokens - t.tokens < margin(t.tokens, minSavingsFraction);
  }

  /** A compaction was skipped at `tokens`: true when that is news to report (not the size last reported). */
  skipped(tokens: number, minSavingsFraction: number): boolean {
    this.tried = this.mark(tokens);
    const t = this.live(this.told);
    if (t !== undefined && Math.abs(tokens - t.tokens) < margin(t.tokens, minSavingsFraction)) return false;
    this.told = this.tried;
    return true;
  }

  /** A client's hook cancelled a compaction at `tokens`: asked again once the context grew, like a skip. */
  cancelled(tokens: number): void {
    this.tried = this.mark(tokens);
  }

  /** A compaction was stored: the context the last skip was judged on is gone. */
  stored(): void {
    this.tried = undefined;
  }

  private mark(tokens: number): Mark {
    return { tokens, leafId: this.file.leafId };
  }

  private live(m: Mark | undefined): Mark | undefined {
    return m && this.file.isOnPath(m.leafId) ? m : undefined;
  }
}

/** The growth that makes a skip worth judging again: what a compaction must free at that size. */
function margin(tokens: number, minSavingsFraction: number): number {
  return Math.max(1, Math.ceil(minSavingsFraction * tokens));
}
