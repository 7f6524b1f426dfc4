// The JSON-RPC binding of the session host, per connection: framing errors, the initialize
// gate, params checked against protocol/ schemas, errors mapped to the protocol's codes (no
// stack traces to clients), session events forwarded as notifications, and the server's own
// requests to clients (requestPermission, beforeCompact: client-requests.ts).
import { JSONRPCErrorException, type JSONRPCServer } from "json-rpc-2.0";
import type { Logger } from "pino";
import { ErrorCodes, METHOD_NAMES, parseParams, sessionIdOf, type MethodName } from "../../protocol/index.js";
import { answeringServer, JsonRpcPeer, type ClientCalls, type DaemonCalls, type WireError } from "../../protocol/jsonrpc-peer.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import { connectionQuestions } from "./client-requests.js";
import type { ConnState } from "./connection-state.js";
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
  // the methods every connection's peer answers; a handler's error goes through errorResponse (internal ones logged there)
  private readonly server: JSONRPCServer<ConnState> = answeringServer<ConnState>({ mapError: (error) => this.errorResponse(error) });
  private readonly connections = new Set<ConnState>();

  constructor(
    private readonly host: SessionHost,
    private readonly log: Logger,
    replayBufferSize = 5000,
    /** set when nodes share a PostgreSQL store: clients are relayed to the node owning their session */
    private readonly clusterToken?: string,
    /** how links to the other nodes are protected (the CA for wss://, whether plain ws:// may leave the host) */
    private readonly linkSecurity: LinkSecurity = {},
  ) {
    const handlers = methodHandlers(host, replayBufferSize);
    for (const method of METHOD_NAMES) this.register(method, handlers);
  }

  /** A handler's error as the protocol's: a code the protocol knows, or logged and -32603 (no stack traces to clients). */
  private errorResponse(error: unknown): WireError {
    const mapped = error instanceof JSONRPCErrorException ? error : hostErrorOf(error);
    if (mapped) return { code: mapped.code, message: mapped.message, data: mapped.data };
    this.log.error({ err: error }, "internal error while handling a request");
    return { code: ErrorCodes.InternalError, message: `internal error: ${(error as Error)?.message ?? String(error)}` };
  }

  /** Serves one connection until it closes. `fromNode`: another pith node's link (never relayed further). */
  attach(conn: Connection, options: { fromNode?: boolean } = {}): void {
    const state = { conn, initialized: false, capabilities: { permissions: false, hooks: [] }, subs: new Map(), fromNode: options.fromNode === true } as unknown as ConnState;
    // the envelope (parse errors, batches, invalid requests) is the peer's; the initialize gate is ours
    state.questions = connectionQuestions(state);
    state.peer = new JsonRpcPeer<ClientCalls, DaemonCalls, ConnState>({ send: (text) => conn.send(text), server: this.server, context: state, gate: initializeGate });
    if (this.clusterToken && !state.fromNode) state.relay = new ConnRelay(state, this.clusterToken, this.log, this.linkSecurity);
    this.connections.add(state);
    conn.onMessage((text) => state.peer.receive(text));
    conn.onOversize((bytes, id) => state.peer.sendError(id ?? null, ErrorCodes.InvalidRequest, `message of ${bytes} bytes is over the size limit; discarded`));
    conn.onClose(() => {
      this.connections.delete(state);
      state.relay?.close();
      // its questions wait for the session's other clients, or for one to come back (the grace period)
      for (const sessionId of state.subs.keys()) this.host.questions.leave(sessionId, state.questions);
      state.peer.rejectAll(new Error("connection closed"));
      // stdio "closes" at input EOF, and the process then shuts down: its output still works, so
      // the client keeps getting the events of the runs being aborted (agent_end included)
      if (conn.kind === "stdio") return;
      for (const [sessionId, listener] of state.subs) this.host.sessions.get(sessionId)?.unsubscribe(listener);
      state.subs.clear();
    });
  }

  /** A method's handler behind the params check, performed by the host's operation layer (its scope, durability); errors become the protocol's codes. */
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
        return await this.host.perform(method, checked.params, (held) => handler(checked.params, state, held));
      } catch (err) {
        // the owner node's answer, passed on as it gave it
        if (err instanceof LinkError) throw rpcError(err.code, err.message, err.data);
        throw hostErrorOf(err) ?? err;
      }
    });
  }
}

/** Nothing but initialize before initialize, and initialize once. */
function initializeGate(method: string, state: ConnState): WireError | undefined {
  if (state.initialized && method === "initialize") return { code: ErrorCodes.InvalidRequest, message: "already initialized" };
  if (!state.initialized && method !== "initialize") return { code: ErrorCodes.NotInitialized, message: "not initialized: call initialize first" };
  return undefined;
}
