// Request correlation: ids for outgoing requests, the answers matched back to them, and what may
// end a call before its answer (a timeout, an abort signal, the connection going away).
import { PithConnectionError, PithRpcError, PithTimeoutError } from "./errors.js";

export interface CallOptions {
  /** reject with PithTimeoutError after this long (default: the client's callTimeoutMs, none if 0) */
  timeoutMs?: number;
  /** reject with the signal's reason when it aborts (the request is not cancelled on the server) */
  signal?: AbortSignal;
}

/** An answer as it came off the wire (not trusted: every field is checked before use). */
export interface AnswerMessage {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

interface Pending {
  method: string;
  params: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

export class PendingCalls {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    /** a result arrived for `method` (before the call resolves with it): validation, seq bookkeeping */
    private readonly onResult: (method: string, params: unknown, result: unknown) => void,
  ) {}

  /**
   * Sends `{jsonrpc, id, method, params}` with `send` and resolves with the answer's result (or
   * rejects with a PithRpcError). `onSettled` runs once, however the call ends.
   */
  start(method: string, params: unknown, timeoutMs: number, signal: AbortSignal | undefined, send: (text: string) => void, onSettled?: () => void): Promise<unknown> {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => settle(() => reject(signal?.reason));
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
        onSettled?.();
      };
      const settle = (fn: () => void) => {
        if (!this.pending.has(id)) return;
        cleanup();
        fn();
      };
      this.pending.set(id, { method, params, resolve, reject, cleanup });
      if (timeoutMs > 0) timer = setTimeout(() => settle(() => reject(new PithTimeoutError(`${method}: no answer after ${timeoutMs} ms`))), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      } catch (err) {
        settle(() => reject(new PithConnectionError(`${method}: send failed: ${(err as Error)?.message ?? String(err)}`)));
      }
    });
  }

  /** Settles the call an answer belongs to; false when it belongs to none (an id this client never sent, or one that already ended). */
  answer(msg: AnswerMessage): boolean {
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p) return false;
    p.cleanup();
    const e = msg.error;
    if (e) p.reject(new PithRpcError(Number(e.code), String(e.message ?? "error"), e.data, p.method));
    else {
      this.onResult(p.method, p.params, msg.result);
      p.resolve(msg.result);
    }
    return true;
  }

  /** Rejects every call in flight with `error`. */
  failAll(error: Error): void {
    for (const p of [...this.pending.values()]) {
      p.cleanup();
      p.reject(error);
    }
  }
}
