// Which seqs of each session this client has seen, so that a reconnect resumes where it stopped
// and a replay does not deliver an event twice.
import type { ParamsOf, ResultOf } from "../../protocol/index.js";

/**
 * The seqs seen of one session, as sorted disjoint ranges. The first range's end is what a
 * reconnect asks to resume after (everything up to it was seen, or predates this client).
 */
export class SeqTracker {
  ranges: [number, number][] = [];
  /** the stream the seqs count in (SessionState.streamId); a new one means the numbering restarted */
  streamId: string | undefined;
  /** open subscribe {afterSeq} calls: events in them may repeat ones already seen */
  replaying = 0;

  has(seq: number): boolean {
    return this.ranges.some(([lo, hi]) => seq >= lo && seq <= hi);
  }

  add(seq: number): void {
    const last = this.ranges[this.ranges.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq; // the usual case: the next seq
    else this.addRange(seq, seq);
  }

  /** Everything up to `seq` counts as seen. */
  seenUpTo(seq: number): void {
    if (seq > 0) this.addRange(1, seq);
  }

  private addRange(from: number, to: number): void {
    const merged: [number, number][] = [];
    for (const [lo, hi] of [...this.ranges, [from, to] as [number, number]].sort((a, b) => a[0] - b[0])) {
      const last = merged[merged.length - 1];
      if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
      else merged.push([lo, hi]);
    }
    this.ranges = merged;
  }

  get resumeAfter(): number {
    return this.ranges.length > 0 ? this.ranges[0][1] : 0;
  }

  /** The session's current stream, as a result reported it: seqs of another stream are forgotten. */
  stream(streamId: string): void {
    if (this.streamId !== undefined && this.streamId !== streamId) this.ranges = [];
    this.streamId = streamId;
  }
}

/** The trackers of every session the client heard of. */
export class SessionSeqs {
  private readonly trackers = new Map<string, SeqTracker>();

  tracker(sessionId: string): SeqTracker {
    let t = this.trackers.get(sessionId);
    if (!t) this.trackers.set(sessionId, (t = new SeqTracker()));
    return t;
  }

  forget(sessionId: string): void {
    this.trackers.delete(sessionId);
  }

  lastSeq(sessionId: string): number {
    return this.trackers.get(sessionId)?.resumeAfter ?? 0;
  }

  /** The connection changed or closed: no replay is open any more. */
  endReplays(): void {
    for (const t of this.trackers.values()) t.replaying = 0;
  }

  /** subscribe {afterSeq}: replayed events may repeat ones already seen until the answer comes. Returns the function that ends the window. */
  replayWindow(params: ParamsOf<"subscribe">): (() => void) | undefined {
    if (params.afterSeq === undefined) return undefined;
    const tracker = this.tracker(params.sessionId);
    tracker.replaying++;
    let open = true;
    return () => {
      if (open) tracker.replaying--;
      open = false;
    };
  }

  /** Results that name a session's current stream (a state, a subscribe answer) keep the tracker honest. */
  noteStream(method: string, params: unknown, result: unknown): void {
    const r = result as { sessionId?: unknown; streamId?: unknown; state?: { streamId?: unknown } } | null;
    if (!r || typeof r !== "object") return;
    const sessionId = method === "subscribe" ? (params as { sessionId?: unknown } | null)?.sessionId : r.sessionId;
    const streamId = r.state?.streamId ?? r.streamId;
    if (typeof sessionId === "string" && typeof streamId === "string") this.tracker(sessionId).stream(streamId);
  }

  /** Records an event's seq; false for a replayed event already delivered live (to drop). */
  accept(params: unknown): boolean {
    const p = params as { sessionId?: unknown; seq?: unknown } | undefined;
    if (!p || typeof p.sessionId !== "string" || typeof p.seq !== "number") return true;
    const tracker = this.tracker(p.sessionId);
    if (tracker.has(p.seq)) {
      if (tracker.replaying > 0) return false;
      // outside a replay, an old seq means the session was reopened and numbering restarted
      tracker.ranges = [];
    }
    tracker.add(p.seq);
    return true;
  }

  /** What resubscribe asks for: after the unbroken run seen (or `afterSeq`, a previous client's), in the stream seen. */
  resumePoint(sessionId: string, afterSeq?: number): { after: number; streamId: string | undefined } {
    const tracker = this.tracker(sessionId);
    if (afterSeq !== undefined) tracker.seenUpTo(afterSeq);
    return { after: tracker.resumeAfter, streamId: tracker.streamId };
  }

  /** subscribe's answer to a resubscribe: on a gap or a restarted numbering, what was seen no longer counts. Returns `reset`. */
  resumed(sessionId: string, after: number, result: ResultOf<"subscribe">): boolean {
    const reset = result.lastSeq < after;
    if (result.gap || reset) {
      const tracker = this.tracker(sessionId);
      tracker.ranges = [];
      tracker.seenUpTo(result.lastSeq);
    }
    return reset;
  }
}
