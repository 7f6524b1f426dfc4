// The one gate for a session's exclusive operations (the methods whose scope is "exclusive" in
// protocol/methods.ts): a run, a manual compaction, a tree move, a user bash command, a model or
// thinking-level change. One at a time; another is refused at once with SessionBusy naming what
// is in progress, never queued behind it (a client that wants to wait subscribes and retries).
// A closing session refuses everything with SessionNotFound: it is about to be gone.
import { ErrorCode, HostError } from "./errors.js";

/** What holds the session. A run is the agent's own state; the others hold the slot here. */
export type Activity = "run" | "compaction" | "tree move" | "bash command" | "change";

export class ExclusiveSlot {
  private held: { activity: Activity; controller: AbortController } | null = null;
  private closingNow = false;

  constructor(
    private readonly sessionId: string,
    /** the agent's run: held from prompt to agent_end, tracked by the agent itself */
    private readonly running: () => boolean,
  ) {}

  /** What is in progress, if anything. */
  get activity(): Activity | null {
    if (this.running()) return "run";
    return this.held?.activity ?? null;
  }

  get closing(): boolean {
    return this.closingNow;
  }

  /** From now on every exclusive operation is refused (the session is closing). */
  close(): void {
    this.closingNow = true;
  }

  /** Throws when an exclusive operation could not start now. */
  check(): void {
    if (this.closingNow) throw new HostError(ErrorCode.SessionNotFound, "the session is closing", { sessionId: this.sessionId });
    const activity = this.activity;
    if (activity) throw new HostError(ErrorCode.SessionBusy, `the session is busy: a ${activity} is in progress`, { sessionId: this.sessionId });
  }

  /**
   * Runs `fn` holding the slot; `fn` gets the signal abort() fires. The slot is released when
   * `fn` returns or, for a promise, when it settles.
   */
  run<T>(activity: Exclude<Activity, "run">, fn: (signal: AbortSignal) => T): T {
    this.check();
    const held = { activity, controller: new AbortController() };
    this.held = held;
    const release = () => {
      if (this.held === held) this.held = null;
    };
    let result: T;
    try {
      result = fn(held.controller.signal);
    } catch (err) {
      release();
      throw err;
    }
    if (result instanceof Promise) result.then(release, release);
    else release();
    return result;
  }

  /** Cancels what holds the slot (not a run: the agent aborts its own); true if something did. */
  abort(): boolean {
    if (!this.held) return false;
    this.held.controller.abort();
    return true;
  }
}
