// The JSON-RPC binding of the session host, per connection: framing errors, the initialize
// gate, params checked against protocol/ schemas, errors mapped to the protocol's codes (no
// stack traces to clients), session events forwarded as notifications, and the server's own
// requests to clients (requestPermission).
import { JSONRPCClient, JSONRPCErrorException, JSONRPCServer, JSONRPCServerAndClient, type JSONRPCRequest, type JSONRPCResponse } from "json-rpc-2.0";
import type { Logger } from "pino";
import { ErrorCodes, PROTOCOL_VERSION, parseParams, serverRequests, type MethodName, type ParsedParamsOf } from "../../protocol/index.js";
import type { BeforeCompactDecision, LiveSession, PermissionOutcome, SessionListener } from "../host/live-session.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import type { ToolCall } from "../messages/types.js";
import { settingsHandlers } from "./settings-methods.js";
import type { Connection } from "./transport.js";

const SERVER_INFO = { name: "pith", version: "0.1.0" };
const PERMISSION_TIMEOUT_MS = 120_000;
const HOOK_TIMEOUT_MS = 30_000;

interface ConnState {
  conn: Connection;
  initialized: boolean;
  capabilities: { permissions: boolean; hooks: string[] };
  subs: Map<string, SessionListener>;
  peer: JSONRPCServerAndClient<ConnState, void>;
}

type Handler<M extends MethodName> = (params: ParsedParamsOf<M>, state: ConnState) => unknown;

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
  ) {
    this.server.mapErrorToJSONRPCErrorResponse = (id, error) => this.errorResponse(id, error);
    this.server.handleMethodNotFound = async (request) =>
      request.id === undefined ? null : { jsonrpc: "2.0", id: request.id, error: { code: ErrorCodes.MethodNotFound, message: `unknown method: ${request.method}` } };
    this.registerMethods();
    host.setPermissionAsker((session, call) => this.askPermission(session, call));
    host.setBeforeCompactHandler((session, reason, preparation) => this.beforeCompact(session, reason, preparation));
  }

  private errorResponse(id: JSONRPCRequest["id"], error: unknown): JSONRPCResponse & { error: { code: number; message: string; data?: unknown } } {
    const mapped = error instanceof JSONRPCErrorException ? error : hostErrorOf(error);
    if (mapped) return { jsonrpc: "2.0", id: id ?? null, error: { code: mapped.code, message: mapped.message, ...(mapped.data !== undefined ? { data: mapped.data } : {}) } };
    this.log.error({ err: error }, "internal error while handling a request");
    return { jsonrpc: "2.0", id: id ?? null, error: { code: ErrorCodes.InternalError, message: `internal error: ${(error as Error)?.message ?? String(error)}` } };
  }

  /** Serves one connection until it closes. */
  attach(conn: Connection): void {
    const client = new JSONRPCClient<void>((request) => conn.send(JSON.stringify(request)));
    const state = { conn, initialized: false, capabilities: { permissions: false, hooks: [] }, subs: new Map() } as unknown as ConnState;
    state.peer = new JSONRPCServerAndClient(this.server, client);
    this.connections.add(state);
    conn.onMessage((text) => void this.receive(state, text));
    conn.onOversize((bytes) => this.sendError(state, null, ErrorCodes.InvalidRequest, `message of ${bytes} bytes is over the size limit; discarded`));
    conn.onClose(() => {
      this.connections.delete(state);
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

  private on<M extends MethodName>(method: M, handler: Handler<M>): void {
    this.server.addMethod(method, async (raw, state) => {
      const checked = parseParams(method, raw);
      if (!checked.ok) throw rpcError(checked.error.code, checked.error.message, checked.error.data);
      try {
        return await handler(checked.params, state);
      } catch (err) {
        throw hostErrorOf(err) ?? err;
      }
    });
  }

  private subscribeTo(state: ConnState, session: LiveSession, afterSeq?: number, streamId?: string) {
    const existing = state.subs.get(session.id);
    if (existing) session.unsubscribe(existing);
    const listener: SessionListener = (_event, wire) => state.conn.send(wire);
    state.subs.set(session.id, listener);
    return session.subscribe(listener, afterSeq, streamId);
  }

  private opened(state: ConnState, session: LiveSession) {
    this.subscribeTo(state, session);
    return { sessionId: session.id, sessionFile: session.file.file, state: session.getState() };
  }

  private registerMethods(): void {
    const host = this.host;
    this.on("initialize", (p, state) => {
      state.initialized = true;
      state.capabilities = { permissions: p.capabilities.permissions, hooks: p.capabilities.hooks };
      return {
        protocolVersion: PROTOCOL_VERSION,
        serverInfo: SERVER_INFO,
        capabilities: { permissions: p.capabilities.permissions, hooks: p.capabilities.hooks, replayBufferSize: this.replayBufferSize },
      };
    });
    this.on("createSession", (p, state) => this.opened(state, host.create(p)));
    this.on("openSession", async (p, state) => this.opened(state, await host.open(p as { sessionFile?: string; sessionId?: string })));
    this.on("listSessions", async (p) => ({ sessions: await host.list(p.cwd) }));
    this.on("closeSession", async (p, state) => {
      state.subs.delete(p.sessionId);
      await host.close(p.sessionId);
      return { closed: true };
    });
    this.on("forkSession", async (p, state) => this.opened(state, await host.fork(p.sessionId, p.entryId)));
    this.on("subscribe", (p, state) => {
      const r = this.subscribeTo(state, host.get(p.sessionId), p.afterSeq, p.streamId);
      return { subscribed: true as const, replayed: r.replayed, ...(r.gap ? { gap: true } : {}), lastSeq: r.lastSeq, streamId: r.streamId };
    });
    this.on("unsubscribe", (p, state) => {
      const listener = state.subs.get(p.sessionId);
      if (listener) host.sessions.get(p.sessionId)?.unsubscribe(listener);
      return { unsubscribed: state.subs.delete(p.sessionId) };
    });
    this.on("getState", (p) => host.get(p.sessionId).getState());
    this.on("getMessages", (p) => host.get(p.sessionId).getMessages());
    this.on("getTree", (p) => host.get(p.sessionId).getTree());
    this.on("prompt", (p) => host.get(p.sessionId).prompt(p));
    this.on("abort", (p) => host.get(p.sessionId).abort());
    this.on("compact", (p) => host.get(p.sessionId).compact(p.instructions));
    this.on("setAutoCompactionEnabled", (p) => host.get(p.sessionId).setAutoCompaction(p.enabled));
    this.on("navigateTree", (p) => host.get(p.sessionId).navigateTree(p.targetId, p.summarize, p.instructions));
    this.on("setModel", (p) => host.get(p.sessionId).setModel(p.model));
    this.on("setThinkingLevel", (p) => host.get(p.sessionId).setThinkingLevel(p.level));
    this.on("listModels", () => ({ models: host.models().list().map((m) => ({ id: m.id, name: m.name, provider: m.provider, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens })) }));
    const settings = settingsHandlers(host);
    this.on("getSettings", (p) => settings.get(p.cwd));
    this.on("updateSettings", (p) => settings.update(p.patch));
    this.on("setSessionName", (p) => host.get(p.sessionId).setName(p.name));
    this.on("setLabel", (p) => host.get(p.sessionId).setLabel(p.entryId, p.label));
    this.on("deleteSession", (p) => host.delete(p.sessionId));
    this.on("getSessionStats", (p) => host.get(p.sessionId).stats());
    this.on("bash", (p) => host.get(p.sessionId).bash(p.command));
    this.on("setPermissionMode", (p) => {
      host.get(p.sessionId).permissionMode = p.mode;
      return { mode: p.mode };
    });
  }

  /** The first subscribed client serving the hook decides; none, an error, a bad answer or a timeout means "default". */
  private async beforeCompact(session: LiveSession, reason: string, preparation: unknown): Promise<BeforeCompactDecision> {
    for (const state of this.connections) {
      if (!state.capabilities.hooks.includes("beforeCompact") || !state.subs.has(session.id)) continue;
      try {
        const answer = await state.peer.timeout(HOOK_TIMEOUT_MS).request("beforeCompact", { sessionId: session.id, reason, preparation }, undefined);
        const parsed = serverRequests.beforeCompact.result.safeParse(answer);
        return parsed.success ? (parsed.data as BeforeCompactDecision) : { action: "default" };
      } catch (err) {
        this.log.warn({ err, sessionId: session.id }, "beforeCompact failed; compacting as usual");
        return { action: "default" };
      }
    }
    return { action: "default" };
  }

  /** Asks the first subscribed client that can answer; no such client, an error or a timeout is a deny. */
  private async askPermission(session: LiveSession, call: ToolCall): Promise<PermissionOutcome> {
    for (const state of this.connections) {
      if (!state.capabilities.permissions || !state.subs.has(session.id)) continue;
      try {
        const result = (await state.peer.timeout(PERMISSION_TIMEOUT_MS).request("requestPermission", { sessionId: session.id, toolCallId: call.id, toolName: call.name, args: call.arguments }, undefined)) as { outcome?: unknown };
        return result?.outcome === "allow" || result?.outcome === "allowAlways" ? result.outcome : "deny";
      } catch (err) {
        this.log.warn({ err, sessionId: session.id }, "requestPermission failed; denying");
        return "deny";
      }
    }
    return "deny";
  }
}

