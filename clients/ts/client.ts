// pith's TypeScript client: JSON-RPC 2.0 over any message transport (stdio pipes, a WebSocket in
// Node or in the browser). Transport-agnostic: no Node module is imported here or in the files it
// imports, and from protocol/ only types plus PROTOCOL_VERSION (version.ts), the connection core
// (connection-core.ts) and the JSON-RPC peer (jsonrpc-peer.ts: json-rpc-2.0, no zod), so a browser
// bundle does not pull in zod.
//
// This file is PithClient and the client's public surface; the jobs are in their own files:
// - transport.ts        the Transport interface and TransportBase (on protocol/connection-core.ts)
// - protocol/jsonrpc-peer.ts  the JSON-RPC peer (shared with the daemon): envelopes, ids, answers
// - calls.ts            what a call takes (timeout, abort signal) and the errors it rejects with
// - events.ts           event dispatch: typed listeners, waitFor, debug validation
// - server-requests.ts  handlers for the server's requests
// - seqs.ts             seqs seen per session, for resubscribe and replays
// - typed-methods.ts    a typed helper per common method, and `rpc.<method>`
// - errors.ts, urls.ts
import type { EventName, EventParams, MethodName, ParamsOf, ResultOf, ServerRequestName } from "../../protocol/index.js";
import { answeringServer, JsonRpcPeer, type ClientCalls, type DaemonCalls } from "../../protocol/jsonrpc-peer.js";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";
import { CLIENT_CALL_ERRORS, type CallOptions } from "./calls.js";
import { PithConnectionError, PithRpcError } from "./call-errors.js";
import { EventDispatch, waitForEvent, type AnyEventListener, type EventListener, type EventValidation, type SafeParser } from "./events.js";
import { SessionSeqs } from "./seqs.js";
import { handlerError, noHandlerFor, ServerRequestHandlers, type ServerRequestHandler } from "./server-requests.js";
import type { CloseInfo, Transport } from "./transport.js";
import { TypedMethods } from "./typed-methods.js";

export { TransportBase, type CloseInfo, type Transport } from "./transport.js";
export { PithConnectionError, PithRpcError, PithTimeoutError } from "./call-errors.js";
export type { CallOptions } from "./calls.js";
export type { AnyEventArgs, AnyEventListener, EventListener, SafeParser } from "./events.js";
export type { ServerRequestHandler } from "./server-requests.js";
export { bearerSubprotocol, rpcUrl } from "./urls.js";

export interface PithClientOptions extends EventValidation {
  /** default timeout of call() in ms (0: none, the default) */
  callTimeoutMs?: number;
  /** debug: validate each result with these schemas (pass `methods` from protocol/) */
  validateResults?: Partial<Record<string, { result: SafeParser }>>;
  /** called for a result that fails validateResults (default: console.warn) */
  onInvalidResult?: (method: string, result: unknown, error: unknown) => void;
  /** a listener or handler threw, or the server sent something the client cannot place (default: console.error) */
  onError?: (error: unknown) => void;
}

export type ClientInfo = ParamsOf<"initialize">["clientInfo"];
export type ClientCapabilitiesInput = NonNullable<ParamsOf<"initialize">["capabilities"]>;
/** subscribe's result, plus `reset` when the session's numbering restarted (refetch, like `gap`). */
export type ResubscribeResult = ResultOf<"subscribe"> & { afterSeq: number; reset?: boolean };

/**
 * A pith JSON-RPC client over one Transport.
 *
 * - `call(method, params)` / the typed helpers / `rpc.<method>(params)` send requests;
 * - `on(event, fn)`, `onAny(fn)`, `waitFor(event, pred)` receive session events;
 * - `handle("requestPermission" | "beforeCompact", fn)` answers the server's requests;
 * - `resubscribe(sessionId)` resumes a session's events after the last seq seen;
 *   `reconnect(transport)` moves the client (listeners, handlers, seqs) to a new connection.
 */
export class PithClient extends TypedMethods {
  private transport!: Transport;
  private readonly peer: JsonRpcPeer<DaemonCalls, ClientCalls>;
  private readonly events: EventDispatch;
  private readonly handlers: ServerRequestHandlers;
  private readonly seqs = new SessionSeqs();
  private readonly closeListeners = new Set<(info: CloseInfo) => void>();
  private closeInfo: CloseInfo | undefined;
  private initArgs: ParamsOf<"initialize"> | undefined;
  /** the server's initialize answer */
  server: ResultOf<"initialize"> | undefined;

  constructor(
    transport: Transport,
    private readonly options: PithClientOptions = {},
  ) {
    super();
    this.peer = new JsonRpcPeer<DaemonCalls, ClientCalls>({
      send: (text) => this.transport.send(text),
      server: answeringServer({ mapError: handlerError, methodNotFound: noHandlerFor }),
      context: undefined,
      onNotification: (method, params) => this.event(method, params),
      // a client never answers its server's mistakes: it reports them
      onInvalid: (refusal, text) =>
        this.report(new Error(`${refusal.error.code === ErrorCodes.ParseError ? "unparsable" : "unexpected"} message from the server: ${text.slice(0, 200)}`)),
      // e.g. id null for a line the server could not read
      onStrayAnswer: ({ error: e }, text) => this.report(e ? new PithRpcError(Number(e.code), String(e.message), e.data) : new Error(`answer to an unknown request: ${text.slice(0, 200)}`)),
      onSendError: (err) => this.report(err),
      errors: CLIENT_CALL_ERRORS,
    });
    this.handlers = new ServerRequestHandlers(this.peer);
    this.events = new EventDispatch(options, (fn) => this.safely(fn));
    this.attach(transport);
  }

  get closed(): boolean {
    return this.closeInfo !== undefined;
  }

  // ---- requests --------------------------------------------------------------------------------

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    if (this.closeInfo) return Promise.reject(new PithConnectionError(`connection closed; ${method} not sent`, this.closeInfo));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const timeoutMs = options.timeoutMs ?? this.options.callTimeoutMs ?? 0;
    const replayEnded = method === "subscribe" ? this.seqs.replayWindow(params as ParamsOf<"subscribe">) : undefined;
    return this.peer.request(method, params, {
      timeoutMs,
      signal,
      // before the caller hears of it, and before any later message is read
      settled: (answer) => {
        replayEnded?.();
        if (answer && "result" in answer) this.resultArrived(method, params, answer.result);
      },
    });
  }

  /**
   * The handshake. Without `capabilities`, they follow the handlers registered so far:
   * `permissions` if there is a requestPermission handler, `hooks: ["beforeCompact"]` if there is
   * a beforeCompact handler.
   */
  async initialize(clientInfo: ClientInfo, capabilities?: ClientCapabilitiesInput, options?: CallOptions): Promise<ResultOf<"initialize">> {
    const caps = capabilities ?? {
      permissions: this.handlers.has("requestPermission"),
      hooks: this.handlers.has("beforeCompact") ? ["beforeCompact" as const] : [],
    };
    this.initArgs = { protocolVersion: PROTOCOL_VERSION, clientInfo, capabilities: caps };
    this.server = await this.call("initialize", this.initArgs, options);
    return this.server;
  }

  async closeSession(sessionId: string, options?: CallOptions) {
    const result = await this.call("closeSession", { sessionId }, options);
    this.seqs.forget(sessionId);
    return result;
  }

  // ---- seqs and reconnects -------------------------------------------------------------------------

  /**
   * The seq to resume a session's events after: the end of the unbroken run of seqs this client
   * saw (or was told about with resubscribe(id, afterSeq)). 0 when it saw none.
   */
  lastSeq(sessionId: string): number {
    return this.seqs.lastSeq(sessionId);
  }

  /**
   * `subscribe {sessionId, afterSeq, streamId}` with afterSeq = lastSeq(sessionId), or the given
   * one (a new client taking over from an old one), and the stream those seqs were counted in.
   * Replayed events that this client already saw (live events between an openSession and this
   * call) are not delivered twice. When the answer has `gap` (events lost, or the session was
   * reopened since: another stream), or a lastSeq below afterSeq (`reset`, from a server that
   * predates stream ids), the events are lost: refetch getState / getMessages / getTree.
   */
  async resubscribe(sessionId: string, afterSeq?: number, options?: CallOptions): Promise<ResubscribeResult> {
    const { after, streamId } = this.seqs.resumePoint(sessionId, afterSeq);
    const result = await this.call("subscribe", { sessionId, afterSeq: after, ...(streamId !== undefined ? { streamId } : {}) }, options);
    const reset = this.seqs.resumed(sessionId, after, result);
    return { ...result, afterSeq: after, ...(reset ? { reset } : {}) };
  }

  /**
   * Moves this client to a new connection (after the old one dropped): pending calls on the old
   * one are rejected, listeners, handlers and seqs stay, and `initialize` is sent again with the
   * same arguments if it was sent before. Then call resubscribe(sessionId) per session.
   */
  async reconnect(transport: Transport, options?: CallOptions): Promise<ResultOf<"initialize"> | undefined> {
    const old = this.transport;
    this.peer.rejectAll(new PithConnectionError("connection replaced by reconnect()"));
    this.seqs.endReplays();
    this.closeInfo = undefined;
    this.attach(transport);
    try {
      old.close();
    } catch {
      // already gone
    }
    if (!this.initArgs) return undefined;
    this.server = await this.call("initialize", this.initArgs, options);
    return this.server;
  }

  // ---- events ------------------------------------------------------------------------------------

  on<E extends EventName>(event: E, listener: EventListener<E>): () => void {
    return this.events.on(event, listener);
  }

  onAny(listener: AnyEventListener): () => void {
    return this.events.onAny(listener);
  }

  /**
   * Called when the connection closes (right away, asynchronously, if it already has), and again
   * for each later connection given to reconnect() that closes. A connection replaced by
   * reconnect() is not reported.
   */
  onClose(listener: (info: CloseInfo) => void): () => void {
    const info = this.closeInfo;
    if (info) queueMicrotask(() => listener(info));
    this.closeListeners.add(listener);
    return () => void this.closeListeners.delete(listener);
  }

  /**
   * The params of the next `event` that matches `predicate`. Call it before the request that
   * causes the event: events can come before that request's answer (prompt's agent_start does).
   * Rejects with PithTimeoutError after timeoutMs (default 30 s; 0: never) and with
   * PithConnectionError when the connection closes.
   */
  waitFor<E extends EventName>(event: E, predicate?: (params: EventParams<E>) => boolean, timeoutMs = 30_000): Promise<EventParams<E>> {
    if (this.closeInfo) return Promise.reject(new PithConnectionError(`connection closed; no ${event} will come`, this.closeInfo));
    return waitForEvent(this, event, predicate, timeoutMs);
  }

  // ---- server requests -------------------------------------------------------------------------------

  /**
   * Answers the server's `requestPermission` / `beforeCompact` requests. One handler per name
   * (a new one replaces the old); the returned function removes it. Without a handler the
   * server gets -32601. Register before initialize() so the capabilities say so.
   */
  handle<R extends ServerRequestName>(name: R, handler: ServerRequestHandler<R>): () => void {
    return this.handlers.handle(name, handler);
  }

  // ---- connection ----------------------------------------------------------------------------------

  /** Closes the connection; pending calls reject with PithConnectionError. */
  close(): void {
    this.transport.close();
    this.connectionClosed({ reason: "closed by the client" }, this.transport);
  }

  private attach(transport: Transport): void {
    this.transport = transport;
    transport.onMessage((text) => {
      if (this.transport === transport) this.peer.receive(text);
    });
    transport.onClose((info) => this.connectionClosed(info, transport));
  }

  private connectionClosed(info: CloseInfo, transport: Transport): void {
    if (this.transport !== transport || this.closeInfo) return;
    this.closeInfo = info;
    this.seqs.endReplays();
    this.peer.rejectAll(new PithConnectionError(`connection closed${info.reason ? `: ${info.reason}` : ""}`, info));
    for (const fn of [...this.closeListeners]) this.safely(() => fn(info));
  }

  private report(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else console.error("pith client:", error);
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.report(err);
    }
  }

  private resultArrived(method: string, params: unknown, result: unknown): void {
    const validator = this.options.validateResults?.[method];
    if (validator) {
      const r = validator.result.safeParse(result);
      if (!r.success) {
        if (this.options.onInvalidResult) this.options.onInvalidResult(method, result, r.error);
        else console.warn(`pith client: invalid ${method} result`, r.error);
      }
    }
    this.seqs.noteStream(method, params, result);
  }

  private event(name: string, params: unknown): void {
    this.events.validate(name, params);
    // a replayed event already delivered live is dropped
    if (!this.seqs.accept(params)) return;
    this.events.emit(name, params);
  }
}
