// The server's requests to the client (requestPermission, beforeCompact): one handler per name,
// answered through the client's JSON-RPC peer. Without a handler the server gets -32601 and takes
// its safe default; a handler that throws answers -32603 (or the code of a PithRpcError it throws).
import type { ClientCalls, DaemonCalls, JsonRpcPeer, WireError } from "../../protocol/jsonrpc-peer.js";
import type { ServerRequestName, ServerRequestParams, ServerRequestResult } from "../../protocol/index.js";
import { INTERNAL_ERROR, PithRpcError } from "./call-errors.js";

export type ServerRequestHandler<R extends ServerRequestName> = (
  params: ServerRequestParams<R>,
) => ServerRequestResult<R> | Promise<ServerRequestResult<R>>;

/** The message the server gets for a request the client has no handler for. */
export const noHandlerFor = (method: string): string => `no handler for ${method}`;

/** A handler's throw as the answer's error. */
export function handlerError(err: unknown): WireError {
  const code = err instanceof PithRpcError ? err.code : INTERNAL_ERROR;
  const data = err instanceof PithRpcError ? err.data : undefined;
  return { code, message: (err as Error)?.message ?? String(err), data };
}

export class ServerRequestHandlers {
  private readonly handlers = new Map<string, unknown>();

  constructor(private readonly peer: JsonRpcPeer<DaemonCalls, ClientCalls>) {}

  /** Registers (or replaces) the handler for `name`; the returned function removes it. */
  handle<R extends ServerRequestName>(name: R, handler: ServerRequestHandler<R>): () => void {
    this.handlers.set(name, handler);
    // the wire's params go to the handler as the protocol says the server sends them
    const remove = this.peer.addMethod(name, async (params) => ((await handler(params as ServerRequestParams<R>)) ?? null) as ServerRequestResult<R>);
    return () => {
      if (this.handlers.get(name) !== handler) return;
      this.handlers.delete(name);
      remove();
    };
  }

  has(name: ServerRequestName): boolean {
    return this.handlers.has(name);
  }
}
