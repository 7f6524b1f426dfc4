// The PostgreSQL store's sink (durable-sink.ts): commits a session's appended lines to the shared
// log in order, fenced by the ownership token, and keeps the lease. Lines that arrive while a
// commit is in flight go together in the next one, so a turn's entries usually share a commit.
//
// A failed commit is retried with the same lines at the same seqs until it succeeds or the sink
// is fenced: the server may be restarting (kill -9 of PostgreSQL included). A commit whose answer
// was lost (the connection died after COMMIT) comes back as SeqConflict on the retry; the lines
// at those seqs are then checked to be ours (same ids, same epoch) and counted as durable.
//
// Fenced (another node took the session, or its lease expired and it was taken) is final: the
// waiting marks are rejected with SessionMoved naming the new owner, listeners are told, and
// nothing more is written.
import type { Pool } from "pg";
import type { Logger } from "pino";
import type { DurableSink, SessionOwner, SinkLine } from "../durable-sink.js";
import { SessionError } from "../session-error.js";
import { Fenced, SeqConflict, type OwnerInfo } from "./ownership-errors.js";
import { appendLines, DEFAULT_LEASE_MS, releaseOwnership, renewLease, type ListingChange, type Ownership } from "./ownership.js";
import { firstUserText, sessionNameOf } from "../listing-fields.js";

export interface SinkOptions {
  logger: Logger;
  leaseMs?: number;
  /** lines per commit at most (a long backlog is committed in several) */
  maxBatch?: number;
  /** whether the session already has a first user message in its listing */
  hasFirstMessage: boolean;
  /** how long close() waits for lines still uncommitted (the server away) before giving them up (default 10 s) */
  closeWaitMs?: number;
  /** after close(), whatever its outcome (the store removes its local copy) */
  onClosed?(): void;
  /** the URL a node advertised, for SessionMoved (undefined if unknown) */
  urlOf(nodeId: string): Promise<string | undefined>;
}

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2_000;

export class PgSink implements DurableSink {
  accepted = 0;
  durable = 0;
  fenced: SessionOwner | undefined;
  private readonly queue: SinkLine[] = [];
  private waiters: { mark: number; resolve(): void; reject(err: Error): void }[] = [];
  private readonly fenceListeners: ((owner: SessionOwner) => void)[] = [];
  private flushing: Promise<void> | null = null;
  private hasFirstMessage: boolean;
  private closing = false;
  /** close() gave up waiting: the retry loop stops */
  private abandoned = false;
  private readonly renewTimer: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    readonly own: Ownership,
    private readonly options: SinkOptions,
  ) {
    this.hasFirstMessage = options.hasFirstMessage;
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewTimer = setInterval(() => void this.renew(leaseMs), Math.max(50, Math.floor(leaseMs / 3)));
    this.renewTimer.unref();
  }

  accept(line: SinkLine): void {
    if (this.fenced) throw this.movedError();
    this.queue.push(line);
    this.accepted++;
    // started after the current task, so the lines a turn appends together share one commit
    this.flushing ??= Promise.resolve().then(() => this.flush());
  }

  whenDurable(mark: number): Promise<void> {
    if (this.fenced) return Promise.reject(this.movedError());
    if (mark <= this.durable) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ mark, resolve, reject }));
  }

  onFenced(listener: (owner: SessionOwner) => void): void {
    this.fenceListeners.push(listener);
  }

  async close(): Promise<void> {
    try {
      await this.closeLog();
    } finally {
      this.options.onClosed?.();
    }
  }

  private async closeLog(): Promise<void> {
    this.closing = true;
    clearInterval(this.renewTimer);
    if (this.flushing) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), this.options.closeWaitMs ?? 10_000)));
      if ((await Promise.race([this.flushing, gaveUp])) === "timeout") {
        this.abandoned = true;
        this.options.logger.error({ sessionId: this.own.sessionId, lines: this.queue.length }, "closing with lines the session store never confirmed: they are lost");
        this.rejectWaiters(new SessionError("SessionClosed", `session ${this.own.sessionId} closed before the store confirmed its last lines`));
        return;
      }
      clearTimeout(timer);
    }
    if (this.fenced) return;
    await releaseOwnership(this.pool, this.own).catch((err) => this.options.logger.warn({ err, sessionId: this.own.sessionId }, "could not release the session (it is taken again once its lease expires)"));
  }

  /** Commits queued lines until none are left (or the sink is fenced). */
  private async flush(): Promise<void> {
    let delay = RETRY_MIN_MS;
    while (this.queue.length > 0 && !this.fenced && !this.abandoned) {
      const batch = this.queue.slice(0, this.options.maxBatch ?? 1000);
      const listing = this.listingOf(batch);
      let committed: number;
      try {
        committed = await this.commit(batch, listing);
      } catch (err) {
        if (err instanceof Fenced) return this.fence(err.owner);
        this.options.logger.warn({ err, sessionId: this.own.sessionId, lines: batch.length }, "committing to the session store failed; retrying");
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, RETRY_MAX_MS);
        continue;
      }
      delay = RETRY_MIN_MS;
      if (listing.firstMessage !== undefined && committed === batch.length) this.hasFirstMessage = true;
      this.queue.splice(0, committed);
      this.durable += committed;
      const ready = this.waiters.filter((w) => w.mark <= this.durable);
      this.waiters = this.waiters.filter((w) => w.mark > this.durable);
      for (const w of ready) w.resolve();
    }
    this.flushing = null;
  }

  /**
   * One commit; returns how many of the batch's lines are durable. A commit whose answer was lost
   * may have succeeded with fewer lines than this retry holds (more were queued meanwhile): the
   * lines already stored at our seqs, if they are ours (same ids, our epoch), count as done, and
   * the rest go in the next commit.
   */
  private async commit(batch: SinkLine[], listing: ListingChange): Promise<number> {
    try {
      await appendLines(this.pool, this.own, batch, listing);
      return batch.length;
    } catch (err) {
      if (!(err instanceof SeqConflict)) throw err;
      const res = await this.pool.query<{ id: string; epoch: string }>("SELECT id, epoch FROM entries WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq", [
        this.own.sessionId,
        this.own.nextSeq,
        this.own.nextSeq + batch.length,
      ]);
      const ours = res.rows.length > 0 && res.rows.every((r, i) => r.id === batch[i].id && Number(r.epoch) === this.own.epoch);
      if (!ours) throw new Fenced(this.own.sessionId);
      this.own.nextSeq += res.rows.length;
      return res.rows.length;
    }
  }

  private listingOf(batch: readonly SinkLine[]): ListingChange {
    const change: ListingChange = {};
    for (const l of batch) {
      if (l.type === "session_info") change.name = sessionNameOf(l.line) ?? change.name;
      else if (!this.hasFirstMessage && change.firstMessage === undefined && l.type === "message") change.firstMessage = firstUserText(l.line);
    }
    return change;
  }

  private async renew(leaseMs: number): Promise<void> {
    if (this.fenced || this.closing) return;
    try {
      await renewLease(this.pool, this.own, leaseMs);
    } catch (err) {
      if (err instanceof Fenced) return this.fence(err.owner);
      // the server is away: appends are refused by the database if the lease runs out meanwhile
      this.options.logger.warn({ err, sessionId: this.own.sessionId }, "renewing the session's lease failed; retrying");
    }
  }

  private async fence(owner: OwnerInfo | undefined): Promise<void> {
    if (this.fenced) return;
    clearInterval(this.renewTimer);
    const url = owner?.nodeId ? await this.options.urlOf(owner.nodeId).catch(() => undefined) : undefined;
    this.fenced = { nodeId: owner?.nodeId ?? null, ...(url ? { url } : {}), ...(owner ? { epoch: owner.epoch } : {}) };
    this.flushing = null;
    this.options.logger.warn({ sessionId: this.own.sessionId, owner: this.fenced, lost: this.queue.length }, "fenced: another node owns the session now");
    this.rejectWaiters(this.movedError());
    for (const l of this.fenceListeners) l(this.fenced);
  }

  private rejectWaiters(err: Error): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(err);
  }

  private movedError(): SessionError {
    return new SessionError("SessionMoved", `session ${this.own.sessionId} is now owned by ${this.fenced?.nodeId ?? "no node"}: this node may not write it`, {
      sessionId: this.own.sessionId,
      owner: this.fenced,
    });
  }
}
