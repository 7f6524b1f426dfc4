// The JSON-RPC binding of the session host, per connection: framing errors, the initialize
// gate, params checked against protocol/ schemas, errors mapped to the protocol's codes (no
// stack traces to clients), session events forwarded as notifications, and the server's own
// requests to clients (requestPermission).
import { JSONRPCClient, JSONRPCErrorException, JSONRPCServer, JSONRPCServerAndClient, type JSONRPCRequest, type JSONRPCResponse } from "json-rpc-2.0";
import type { Logger } from "pino";
import { ErrorCodes, METHOD_NAMES, parseParams, sessionIdOf, type MethodName } from "../../protocol/index.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import { askPermission, beforeCompact } from "./client-requests.js";
import type { ConnState } from "./connection-state.js";
import { dispatch } from "./dispatch.js";
import { methodHandlers, type Handler, type Handlers } from "./method-handlers.js";
import { linkCallRefusal } from "./link-scope.js";
import type { LinkSecurity } from "./link-security.js";
import { LinkError } from "./node-link.js";
import { ConnRelay } from "./relay.js";
import type { Connection } from "./transport.js";

function rpcError(code: number, message: string, data?: unknown): JSONRPCErrorException {
  return new JSONRPCErrorException(message, code, data);
}

export class RpcServer {
  // errors are logged here (internal ones) or are the client's (the rest): the library's console.error is noise
  private readonly server = new JSONRPCServer<ConnState>({ errorListener: () => undefined });
  private readonly connections = new Set<ConnState>();

  constructor(
    private readonly host: SessionHost,
    private readonly log: Logger,
    private readonly replayBufferSize = 5000,
    /** set when nodes share a PostgreSQL store: clients are relayed to the node owning their session */
    private readonly clusterToken?: string,
    /** how links to the other nodes are protected (the CA for wss://, whether plain ws:// may leave the host) */
    private readonly linkSecurity: LinkSecurity = {},
  ) {
    this.server.mapErrorToJSONRPCErrorResponse = (id, error) => this.errorResponse(id, error);
    this.server.handleMethodNotFound = async (request) =>
      request.id === undefined ? null : { jsonrpc: "2.0", id: request.id, error: { code: ErrorCodes.MethodNotFound, message: `unknown method: ${request.method}` } };
    const handlers = methodHandlers(host, replayBufferSize);
    for (const method of METHOD_NAMES) this.register(method, handlers);
    host.setPermissionAsker((request) => askPermission(this.connections, request, log));
    host.setBeforeCompactHandler((request) => beforeCompact(this.connections, request, log));
  }

  private errorResponse(id: JSONRPCRequest["id"], error: unknown): JSONRPCResponse & { error: { code: number; message: string; data?: unknown } } {
    const mapped = error instanceof JSONRPCErrorException ? error : hostErrorOf(error);
    if (mapped) return { jsonrpc: "2.0", id: id ?? null, error: { code: mapped.code, message: mapped.message, ...(mapped.data !== undefined ? { data: mapped.data } : {}) } };
    this.log.error({ err: error }, "internal error while handling a request");
    return { jsonrpc: "2.0", id: id ?? null, error: { code: ErrorCodes.InternalError, message: `internal error: ${(error as Error)?.message ?? String(error)}` } };
  }

  /** Serves one connection until it closes. `fromNode`: another pith node's link (never relayed further). */
  attach(conn: Connection, options: { fromNode?: boolean } = {}): void {
    const client = new JSONRPCClient<void>((request) => conn.send(JSON.stringify(request)));
    const state = { conn, initialized: false, capabilities: { permissions: false, hooks: [] }, subs: new Map(), fromNode: options.fromNode === true } as unknown as ConnState;
    state.peer = new JSONRPCServerAndClient(this.server, client);
    if (this.clusterToken && !state.fromNode) state.relay = new ConnRelay(state, this.clusterToken, this.log, this.linkSecurity);
    this.connections.add(state);
    conn.onMessage((text) => void this.receive(state, text));
    conn.onOversize((bytes, id) => this.sendError(state, id ?? null, ErrorCodes.InvalidRequest, `message of ${bytes} bytes is over the size limit; discarded`));
    conn.onClose(() => {
      this.connections.delete(state);
      state.relay?.close();
      state.peer.rejectAllPendingRequests("connection closed");
      // stdio "closes" at input EOF, and the process then shuts down: its output still works, so
      // the client keeps getting the events of the runs being aborted (agent_end included)
      if (conn.kind === "stdio") return;
      for (const [sessionId, listener] of state.subs) this.host.sessions.get(sessionId)?.unsubscribe(listener);
      state.subs.clear();
    });
  }

  private sendError(state: ConnState, id: JSONRPCRequest["id"] | null, code: number, message: string, data?: unknown): void {
    state.conn.send(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } }));
  }

  private async receive(state: ConnState, text: string): Promise<void> {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (err) {
      this.sendError(state, null, ErrorCodes.ParseError, `parse error: ${(err as Error).message}`);
      return;
    }
    if (Array.isArray(payload)) {
      // version 1 of the protocol takes one message at a time (see PROTOCOL.md)
      return this.sendError(state, null, ErrorCodes.InvalidRequest, "batches are not supported: send one JSON-RPC message per line or frame");
    }
    const response = await this.handleOne(state, payload);
    if (response) state.conn.send(JSON.stringify(response));
  }

  /** One request, notification or response; returns the response to send, if any. */
  private async handleOne(state: ConnState, msg: unknown): Promise<object | null> {
    const m = msg as Record<string, unknown> | null;
    const validId = (id: unknown) => typeof id === "string" || typeof id === "number" || id === null;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") {
      return { jsonrpc: "2.0", id: m && validId(m.id) ? m.id : null, error: { code: ErrorCodes.InvalidRequest, message: 'invalid request: expected a JSON-RPC 2.0 object ({"jsonrpc":"2.0", ...})' } };
    }
    if (!("method" in m)) {
      // a response to one of our requests
      if ("result" in m || "error" in m) state.peer.client.receive(m as never);
      else return { jsonrpc: "2.0", id: validId(m.id) ? m.id : null, error: { code: ErrorCodes.InvalidRequest, message: "invalid request: no method" } };
      return null;
    }
    if (typeof m.method !== "string" || ("id" in m && !validId(m.id)) || ("params" in m && (typeof m.params !== "object" || m.params === null))) {
      return { jsonrpc: "2.0", id: validId(m.id) ? m.id : null, error: { code: ErrorCodes.InvalidRequest, message: "invalid request: method must be a string, id a string, number or null, params an object or array" } };
    }
    const isNotification = !("id" in m);
    if (state.initialized && m.method === "initialize") {
      return isNotification ? null : { jsonrpc: "2.0", id: m.id, error: { code: ErrorCodes.InvalidRequest, message: "already initialized" } };
    }
    if (!state.initialized && m.method !== "initialize") {
      return isNotification ? null : { jsonrpc: "2.0", id: m.id, error: { code: ErrorCodes.NotInitialized, message: "not initialized: call initialize first" } };
    }
    const response = await this.server.receive(m as unknown as JSONRPCRequest, state);
    return response;
  }

  /** A method's handler behind the params check and its scope's gate (dispatch.ts); errors become the protocol's codes. */
  private register<M extends MethodName>(method: M, handlers: Handlers): void {
    const handler: Handler<M> = handlers[method];
    this.server.addMethod(method, async (raw, state) => {
      const checked = parseParams(method, raw);
      if (!checked.ok) throw rpcError(checked.error.code, checked.error.message, checked.error.data);
      // the cluster token relays a client's session requests; it is no client token (link-scope.ts)
      const refused = state.fromNode ? linkCallRefusal(method, checked.params) : undefined;
      if (refused !== undefined) throw rpcError(ErrorCodes.Forbidden, `not allowed over a node link: ${refused}`, { method });
      const named = sessionIdOf(checked.params);
      try {
        // a session another node owns: its gate and its durability are the owner's
        if (named !== undefined && state.relay?.has(named, method)) return await state.relay.forward(named, method, checked.params);
        return await dispatch(this.host, method, checked.params, state, handler);
      } catch (err) {
        // the owner node's answer, passed on as it gave it
        if (err instanceof LinkError) throw rpcError(err.code, err.message, err.data);
        throw hostErrorOf(err) ?? err;
      }
    });
  }
}
