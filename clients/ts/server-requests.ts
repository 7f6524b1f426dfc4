// The server's requests to the client (requestPermission, beforeCompact): one handler per name,
// and the answer sent back. Without a handler the server gets -32601 and takes its safe default;
// a handler that throws answers -32603 (or the code of a PithRpcError it throws).
import type { ServerRequestName, ServerRequestParams, ServerRequestResult } from "../../protocol/index.js";
import { INTERNAL_ERROR, METHOD_NOT_FOUND, PithRpcError } from "./errors.js";

export type ServerRequestHandler<R extends ServerRequestName> = (
  params: ServerRequestParams<R>,
) => ServerRequestResult<R> | Promise<ServerRequestResult<R>>;

export class ServerRequestHandlers {
  private readonly handlers = new Map<string, (params: never) => unknown>();

  /** Registers (or replaces) the handler for `name`; the returned function removes it. */
  handle<R extends ServerRequestName>(name: R, handler: ServerRequestHandler<R>): () => void {
    const fn = handler as (params: never) => unknown;
    this.handlers.set(name, fn);
    return () => {
      if (this.handlers.get(name) === fn) this.handlers.delete(name);
    };
  }

  has(name: ServerRequestName): boolean {
    return this.handlers.has(name);
  }

  /** Runs the handler for one request and sends its answer (`reply` takes the response object). */
  async answer(id: unknown, method: string, params: unknown, reply: (response: object) => void): Promise<void> {
    const handler = this.handlers.get(method);
    if (!handler) {
      reply({ jsonrpc: "2.0", id, error: { code: METHOD_NOT_FOUND, message: `no handler for ${method}` } });
      return;
    }
    try {
      const result = await handler(params as never);
      reply({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (err) {
      const code = err instanceof PithRpcError ? err.code : INTERNAL_ERROR;
      const data = err instanceof PithRpcError ? err.data : undefined;
      reply({ jsonrpc: "2.0", id, error: { code, message: (err as Error)?.message ?? String(err), ...(data !== undefined ? { data } : {}) } });
    }
  }
}
