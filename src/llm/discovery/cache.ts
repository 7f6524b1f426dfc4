// One provider's discovery for the daemon's life: started once, shared by every caller, waited
// for only as long as a caller can afford, refreshed on demand. It never throws and never
// forgets a failure: an unreachable server is remembered with its reason until a refresh.
import type { DiscoveredModel, DiscoveryResult } from "./types.js";

export type DiscoveryState = DiscoveryResult | { status: "pending"; since: number };

export interface DiscoveryCacheOptions {
  /** how long get() waits for a discovery still running (default 2000 ms) */
  waitMs?: number;
  now?: () => number;
}

export class DiscoveryCache {
  private result?: DiscoveryResult;
  private inflight?: Promise<DiscoveryResult>;
  private since = 0;
  private readonly abort = new AbortController();
  private readonly waitMs: number;
  private readonly now: () => number;

  /** `run` does one discovery (e.g. `(signal) => discoverModels(target, { signal })`). */
  constructor(
    private readonly run: (signal: AbortSignal) => Promise<DiscoveryResult>,
    options: DiscoveryCacheOptions = {},
  ) {
    this.waitMs = options.waitMs ?? 2000;
    this.now = options.now ?? Date.now;
  }

  /** Starts the first discovery if none has started (idempotent). */
  start(): void {
    if (!this.result && !this.inflight) void this.refresh();
  }

  /** A new discovery, unless one is running (then that one). Resolves, never rejects. */
  refresh(): Promise<DiscoveryResult> {
    if (this.inflight) return this.inflight;
    if (this.abort.signal.aborted) return Promise.resolve(this.result ?? { status: "unreachable", failure: "timeout", reason: "discovery was stopped", at: this.now() });
    this.since = this.now();
    const running = (async (): Promise<DiscoveryResult> => {
      try {
        return await this.run(this.abort.signal);
      } catch (err) {
        return { status: "unreachable", failure: "network", reason: `discovery failed: ${err instanceof Error ? err.message : String(err)}`, at: this.now() };
      }
    })().then((r) => {
      this.result = r;
      this.inflight = undefined;
      return r;
    });
    this.inflight = running;
    return running;
  }

  /** What is known now, without waiting. */
  state(): DiscoveryState {
    return this.result ?? { status: "pending", since: this.since || this.now() };
  }

  /**
   * The last result; when there is none yet, starts the first discovery and waits for it at most
   * `waitMs` (then "pending": the caller goes on with what else it knows).
   */
  async get(waitMs = this.waitMs): Promise<DiscoveryState> {
    this.start();
    if (this.result || !this.inflight) return this.state();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, waitMs));
    });
    try {
      await Promise.race([this.inflight, bound]);
    } finally {
      clearTimeout(timer);
    }
    return this.state();
  }

  /** The discovered model of that id, from the last successful result. */
  model(id: string): DiscoveredModel | undefined {
    return this.result?.status === "ok" ? this.result.models.find((m) => m.id === id) : undefined;
  }

  /** Stops a running discovery (daemon shutdown). */
  close(): void {
    this.abort.abort();
  }
}
