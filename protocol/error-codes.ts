// Error codes as plain constants: the numbers are stable, clients switch on them. This module
// imports nothing (errors.ts re-exports it alongside the zod schemas for the data shapes), so a
// browser bundle can name the codes without pulling in zod.

export const ErrorCodes = {
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
  SessionMoved: -32018,
  Forbidden: -32019,
  ReplyTooLarge: -32020,
  ContextFull: -32021,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;
export type ErrorCode = (typeof ErrorCodes)[ErrorCodeName];

export const ErrorDescriptions: { readonly [K in ErrorCodeName]: string } = {
  ParseError: "The message is not valid JSON.",
  InvalidRequest: "The message is not a valid JSON-RPC 2.0 request (or is over the size limit).",
  MethodNotFound: "No such method.",
  InvalidParams: "The params do not match the method's schema (wrong type, missing or unknown key, unsupported protocol version); data is the zod error tree.",
  InternalError: "The server failed unexpectedly; details are in its log.",
  NotInitialized: "A request arrived before `initialize` on this connection.",
  SessionNotFound: "No session with this id (or file), or the session is not open.",
  SessionBusy: "The session is running, compacting, summarizing a branch or running a command; the request needs it idle.",
  NothingToCompact: "The context holds nothing before the cut point: there is nothing to summarize.",
  EntryNotFound: "No entry with this id in the session.",
  ProviderError: "The model provider failed; data carries class, status and retryable.",
  SessionLocked: "Another process holds the session file's write lock.",
  Aborted: "The operation was aborted (the `abort` method, or a beforeCompact hook cancelled it).",
  CompactionSkipped:
    "An automatic compaction was skipped because it would free too little. No longer sent as an `error` event: the `compaction_skipped` event reports a skip (its `code` field says why); this code names that case and is never sent as a response.",
  SessionMoved:
    "The session is owned by another pith node sharing the store (PostgreSQL store): this node may not write it. data.owner names the node and, when it advertised one, its URL to reconnect to.",
  Forbidden:
    "The connection may not call this method: another node's link (authenticated with the cluster token) may only relay a client's session requests. data.method names the method.",
  ReplyTooLarge:
    "The model's reply passed the cap on one reply (settings' maxReplyMB): the stream was cut and the reply stored up to the cap as an error. Sent as an `error` event and in agent_end's error, never as a response; data as -32014's.",
  ContextFull:
    "The context no longer fits the model's window and automatic compaction is off for the session: pith does not compact unasked. The provider refused the request as too long (the run ends; agent_end's error carries this code), or an endpoint cut the prompt without saying so (data.truncated; the run goes on). data: {contextTokens, contextWindow, class: \"overflow\", status?, retryable: false}. Sent as an `error` event and in agent_end's error, never as a response. `compact`, or turning automatic compaction on, frees the context.",
};

/** The name of a code, or undefined for a code this version does not define. */
export function errorCodeName(code: number): ErrorCodeName | undefined {
  for (const [name, value] of Object.entries(ErrorCodes)) if (value === code) return name as ErrorCodeName;
  return undefined;
}
