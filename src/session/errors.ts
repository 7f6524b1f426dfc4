// Errors the store raises. `code` is stable: the daemon maps each to a JSON-RPC error code.

export type SessionErrorCode =
  | "NotASession" // no header, invalid header, empty, binary
  | "SessionLocked" // another live process holds the write lock
  | "EntryNotFound" // an id that is not in the session
  | "SessionClosed" // use after close()
  | "ReadOnly" // a write to a session opened read-only
  | "InvalidEntry" // an entry that cannot be appended (bad shape)
  | "SessionNotFound"; // no such file

export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "SessionError";
  }
}

/** A problem found while reading a file that did not stop it from opening. */
export interface SessionWarning {
  kind: "torn-line" | "malformed-line" | "dangling-parent" | "duplicate-id" | "unreadable-entry" | "recovered-entry";
  /** 1-based line number in the file (the header is line 1) */
  line: number;
  message: string;
}
