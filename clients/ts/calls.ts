// How a client's call can end: the options that bound it, and the errors it rejects with. The
// matching of answers to requests is the JSON-RPC peer's (protocol/jsonrpc-peer.ts), shared with
// the daemon.
import type { CallErrors } from "../../protocol/jsonrpc-peer.js";
import { PithConnectionError, PithRpcError, PithTimeoutError } from "./call-errors.js";

export interface CallOptions {
  /** reject with PithTimeoutError after this long (default: the client's callTimeoutMs, none if 0) */
  timeoutMs?: number;
  /** reject with the signal's reason when it aborts (the request is not cancelled on the server) */
  signal?: AbortSignal;
}

/** The client's rejections: the server's error answers as PithRpcError, a timeout, a send that failed. */
export const CLIENT_CALL_ERRORS: CallErrors = {
  answer: (e, method) => new PithRpcError(Number(e.code), String(e.message ?? "error"), e.data, method),
  timeout: (method, ms) => new PithTimeoutError(`${method}: no answer after ${ms} ms`),
  sendFailed: (method, cause) => new PithConnectionError(`${method}: send failed: ${(cause as Error)?.message ?? String(cause)}`),
};
