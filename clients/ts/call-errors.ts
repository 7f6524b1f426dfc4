// What a failed call rejects with. The codes below are checked against protocol/errors.ts at
// compile time without loading it (and zod) at run time; the peer's error class has no imports.
import type { ErrorCodes } from "../../protocol/index.js";
import { PeerCallError } from "../../protocol/jsonrpc-peer.js";
import type { CloseInfo } from "./transport.js";

/** An error answer from the server (or a local one with a JSON-RPC code). `code` is one of ErrorCodes; `method`: the request's. */
export class PithRpcError extends PeerCallError {
  override readonly name = "PithRpcError";
}

/** The connection closed before the answer came (or the call was made on a closed client). */
export class PithConnectionError extends Error {
  override readonly name = "PithConnectionError";
  constructor(
    message: string,
    readonly info?: CloseInfo,
  ) {
    super(message);
  }
}

/** A call or waitFor ran out of time. The server may still carry the request out. */
export class PithTimeoutError extends Error {
  override readonly name = "PithTimeoutError";
}

export const INTERNAL_ERROR: (typeof ErrorCodes)["InternalError"] = -32603;
