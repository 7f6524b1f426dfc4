// Store errors in the protocol's terms: what the session store throws becomes the code and
// data a client is written against.
import type { SessionOwner } from "../session/durable-sink.js";
import { SessionError } from "../session/session-error.js";
import { ErrorCode, HostError } from "./host-error.js";

/** -32018: the session is another node's (data.owner says whose, and where to reconnect). */
export function movedError(sessionId: string, owner: SessionOwner): HostError {
  const where = owner.nodeId === null ? "nobody holds it now; open it again" : `node ${owner.nodeId}${owner.url ? ` at ${owner.url}` : ""} owns it`;
  return new HostError(ErrorCode.SessionMoved, `session ${sessionId} is not this node's to write: ${where}`, { sessionId, owner: { ...owner } });
}

/** Maps store errors to the protocol's codes. */
export function hostErrorOf(err: unknown): HostError | undefined {
  if (err instanceof HostError) return err;
  if (err instanceof SessionError) {
    if (err.code === "SessionMoved") return movedError(String(err.data?.sessionId), err.data?.owner as SessionOwner);
    const code =
      err.code === "SessionNotFound" ? ErrorCode.SessionNotFound : err.code === "EntryNotFound" ? ErrorCode.EntryNotFound : err.code === "SessionLocked" ? ErrorCode.SessionLocked : ErrorCode.InvalidParams;
    // data.reason is the stable name; the store's own reason (a sentence) becomes detail
    const { reason: detail, ...rest } = (err.data ?? {}) as Record<string, unknown>;
    return new HostError(code, err.message, { ...rest, reason: err.code, ...(detail !== undefined ? { detail } : {}) });
  }
  return undefined;
}
