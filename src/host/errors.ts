// Errors the host raises, with the protocol's stable codes.

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  NotInitialized: -32002,
  SessionNotFound: -32010,
  SessionBusy: -32011,
  NothingToCompact: -32012,
  EntryNotFound: -32013,
  ProviderError: -32014,
  SessionLocked: -32015,
  Aborted: -32016,
  CompactionSkipped: -32017,
} as const;

export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "HostError";
  }
}
