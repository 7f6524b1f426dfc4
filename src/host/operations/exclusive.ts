// The one gate for a session's exclusive operations (the methods whose scope is "exclusive" in
// protocol/methods.ts): a run, a manual compaction, a tree move, a user bash command, a model or
// thinking-level change. One at a time; another is refused at once with SessionBusy naming what
// is in progress, never queued behind it (a client that wants to wait subscribes and retries).
// A closing session refuses everything with SessionNotFound: it is about to be gone.
//
// Only the operation layer (perform.ts, beside this file) admits here, by the method's row: what it
// holds the slot as, and whether it may join a running run. The exclusive operations of
// LiveSession take the `Held` this gate hands out, so one that skips the gate does not compile.
import { methods, type Activity, type ExclusiveMethod, type ParsedParamsOf } from "../../../protocol/index.js";
import { ErrorCode, HostError } from "../host-error.js";

export type { Activity } from "../../../protocol/index.js";

declare const admitted: unique symbol;
/** Proof that the gate let an exclusive operation in; `signal` fires when abort() cancels it. */
export interface Held {
  readonly signal: AbortSignal;
  readonly [admitted]: true;
}

/** A prompt joining the running run holds nothing: the run is the agent's, and abort stops it there. */
const JOINED = { signal: new AbortController().signal } as Held;

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

  /**
   * Admits one exclusive method by its row: runs `fn` holding the slot as the row says (released
   * when `fn` returns or, for a promise, settles), or refuses it. A method that may join a running
   * run (prompt) joins it when its params say how, and is refused with the row's hint otherwise.
   */
  admit<M extends ExclusiveMethod, T>(method: M, params: ParsedParamsOf<M>, fn: (held: Held) => T): T {
    const row = methods[method];
    if ("joinsRun" in row && this.running()) {
      if ((params as Record<string, unknown>)[row.joinsRun.param] !== undefined) return fn(JOINED);
      throw new HostError(ErrorCode.SessionBusy, `the session is running; ${row.joinsRun.hint}`, { sessionId: this.sessionId });
    }
    return this.run(row.holds, (signal) => fn({ signal } as Held));
  }

  /** Throws when an exclusive operation could not start now. */
  private check(): void {
    if (this.closingNow) throw new HostError(ErrorCode.SessionNotFound, "the session is closing", { sessionId: this.sessionId });
    const activity = this.activity;
    if (activity) throw new HostError(ErrorCode.SessionBusy, `the session is busy: a ${activity} is in progress`, { sessionId: this.sessionId });
  }

  private run<T>(activity: Activity, fn: (signal: AbortSignal) => T): T {
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
