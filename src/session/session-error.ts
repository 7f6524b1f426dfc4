// Errors the store raises. `code` is stable: the daemon maps each to a JSON-RPC error code.

export type SessionErrorCode =
  | "NotASession" // no header, invalid header, empty, binary, not a regular file, unreadable as one
  | "InvalidPath" // a path with a NUL character
  | "PathTooLong" // a path or one of its names longer than the system allows
  | "PermissionDenied" // the file (or a folder on its way) may not be read
  | "SessionLocked" // another live process holds the write lock
  | "EntryNotFound" // an id that is not in the session
  | "SessionClosed" // use after close()
  | "ReadOnly" // a write to a session opened read-only
  | "InvalidEntry" // an entry that cannot be appended (bad shape)
  | "SessionNotFound" // no such file
  | "InvalidSessionId" // a session id outside [A-Za-z0-9_-]{1,128} (from a client, a file header, the database)
  | "SessionMoved" // a shared store's session another node owns (or took from this one): data.owner says which
  | "CwdUnreachable"; // a shared store's session whose cwd this node does not reach (its workspace roots)

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

/**
 * A file system error on a path the caller gave, as the store reports it: a missing file is
 * SessionNotFound, the rest name what is wrong with the path; `undefined` for an error that is
 * not about the path (a full disk, an I/O failure of ours).
 */
export function pathError(err: unknown, file: string): SessionError | undefined {
  const code = (err as NodeJS.ErrnoException)?.code;
  const detail = (err as Error)?.message;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return new SessionError("SessionNotFound", `no such session file: ${file}`, { file });
    case "ENAMETOOLONG":
      return new SessionError("PathTooLong", `the path is too long for this system: ${file.slice(0, 200)}…`, { file: file.slice(0, 200) });
    case "EACCES":
    case "EPERM":
      return new SessionError("PermissionDenied", `permission denied: ${file}`, { file });
    case "ELOOP":
      return new SessionError("NotASession", `not a session file (too many symbolic links): ${file}`, { file, reason: "too many symbolic links" });
    case "EIO":
    case "EISDIR":
    case "EINVAL":
    case "ENXIO":
      return new SessionError("NotASession", `not a session file (it cannot be read as one: ${code}): ${file}`, { file, reason: detail });
    case "ERR_INVALID_ARG_VALUE":
    case "ERR_INVALID_ARG_TYPE":
      return new SessionError("InvalidPath", `not a valid path: ${JSON.stringify(file.slice(0, 200))}`, { file: file.slice(0, 200) });
    default:
      return undefined;
  }
}
