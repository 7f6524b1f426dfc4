// The abort plumbing of one streamed model call: the caller's signal and an idle timer both
// abort the request, and afterwards tell which of them did. An SDK's own timeout only covers
// the wait for the response headers; a stream that stalls after them would otherwise hang
// until undici's body timeout (300 s).
import { ProviderError } from "./types.js";

export class StreamWatch {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.controller.abort();
  /** bumped by every event: cheaper than reading the clock on the hot path */
  private seq = 0;
  private seenSeq = 0;
  private lastChange = Date.now();
  private stalled = false;

  constructor(
    private readonly caller: AbortSignal,
    private readonly idleTimeoutMs: number,
  ) {
    caller.addEventListener("abort", this.onAbort, { once: true });
    if (caller.aborted) this.controller.abort();
    // a stall check a few times per idle period, instead of re-arming a timer on every event
    this.timer = setInterval(
      () => {
        const now = Date.now();
        if (this.seq !== this.seenSeq) {
          this.seenSeq = this.seq;
          this.lastChange = now;
          return;
        }
        if (now - this.lastChange < this.idleTimeoutMs) return;
        this.stalled = true;
        this.controller.abort();
      },
      Math.max(10, Math.floor(idleTimeoutMs / 4)),
    );
  }

  /** the signal to hand the SDK */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** something arrived: the stream is alive */
  touch(): void {
    this.seq++;
  }

  /**
   * Why the request was stopped from this side, if it was: the caller aborted, or the stream
   * went silent. (SDKs end an aborted stream quietly, so the caller checks this after the loop.)
   */
  stopError(): ProviderError | undefined {
    if (this.caller.aborted) return new ProviderError({ errorClass: "aborted", message: "request aborted" });
    if (this.stalled) return new ProviderError({ errorClass: "transient", message: `no data from the API for ${Math.round(this.idleTimeoutMs / 1000)} s` });
    return undefined;
  }

  /**
   * Ends the reply here if the request was stopped: an SDK may still hand out chunks it read
   * before the abort (openai 6.x does), and what comes after the abort is not the user's to see.
   */
  throwIfStopped(): void {
    if (this.controller.signal.aborted) throw this.stopError() ?? new ProviderError({ errorClass: "aborted", message: "request aborted" });
  }

  dispose(): void {
    clearInterval(this.timer);
    this.caller.removeEventListener("abort", this.onAbort);
  }
}
