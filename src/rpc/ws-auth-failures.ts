// Failed-auth rate limiting on the WebSocket upgrade: an address that sent `maxFailures` wrong or
// missing tokens within `windowMs` is refused (429 with Retry-After, ws-upgrade.ts) without its
// token being looked at, until `blockMs` after the failure that tipped it over. Only failures
// count: a client that authenticates often is never slowed down, and an address that stops
// failing is forgotten when its window ends.
//
// Why: nothing else bounds guessing (tens of thousands of tries a second over loopback), and a
// token chosen by the user may be short (16 characters at least, auth.ts). The price: another
// user of the same address (a shared host: 127.0.0.1) can lock the owner out for blockMs by
// failing on purpose; the block is kept short for that reason, and it ends by itself.
import { addressKey } from "./remote-address.js";

export interface AuthFailureLimits {
  /** failures within the window that block the address; default 20 */
  maxFailures?: number;
  /** default 60 s */
  windowMs?: number;
  /** how long a blocked address is refused; default 30 s */
  blockMs?: number;
  /** addresses remembered at most (the oldest are forgotten first); default 10,000 */
  maxAddresses?: number;
}

interface Entry {
  windowStart: number;
  failures: number;
  blockedUntil: number;
}

export class AuthFailures {
  private readonly entries = new Map<string, Entry>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly blockMs: number;
  private readonly maxAddresses: number;

  constructor(
    limits: AuthFailureLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxFailures = limits.maxFailures ?? 20;
    this.windowMs = limits.windowMs ?? 60_000;
    this.blockMs = limits.blockMs ?? 30_000;
    this.maxAddresses = limits.maxAddresses ?? 10_000;
  }

  /** Seconds until the address may try again (for Retry-After), or 0 when it may try now. */
  blockedFor(remoteAddress: string | undefined): number {
    const e = this.entries.get(addressKey(remoteAddress));
    if (e === undefined) return 0;
    const left = e.blockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** A wrong or missing token from this address. */
  failed(remoteAddress: string | undefined): void {
    const key = addressKey(remoteAddress);
    const now = this.now();
    let e = this.entries.get(key);
    if (e === undefined || (now - e.windowStart > this.windowMs && e.blockedUntil <= now)) {
      e = { windowStart: now, failures: 0, blockedUntil: 0 };
    }
    this.entries.delete(key); // re-inserted last: the Map's order is the order of last failure
    this.entries.set(key, e);
    e.failures++;
    if (e.failures >= this.maxFailures) {
      e.blockedUntil = now + this.blockMs;
      e.windowStart = now;
      e.failures = 0;
    }
    this.prune(now);
  }

  /** Forgets expired addresses from the oldest failure on, and the oldest ones beyond maxAddresses. */
  private prune(now: number): void {
    for (const [key, e] of this.entries) {
      const expired = now - e.windowStart > this.windowMs && e.blockedUntil <= now;
      if (!expired && this.entries.size <= this.maxAddresses) break;
      this.entries.delete(key);
    }
  }
}
