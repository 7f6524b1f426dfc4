// pith's TypeScript client: JSON-RPC 2.0 over any message transport (stdio pipes, a WebSocket in
// Node or in the browser). Transport-agnostic: this file imports no Node module, and from
// protocol/ only types plus PROTOCOL_VERSION (version.ts, which has no imports), so a browser
// bundle of it does not pull in zod.
import type {
  ErrorCodes,
  EventName,
  EventParams,
  MethodName,
  ParamsOf,
  ResultOf,
  ServerRequestName,
  ServerRequestParams,
  ServerRequestResult,
} from "../../protocol/index.js";
import { PROTOCOL_VERSION } from "../../protocol/version.js";

// ---- transport ---------------------------------------------------------------------------------

/** Why a transport closed (every field optional: not every transport knows). */
export interface CloseInfo {
  /** WebSocket close code */
  code?: number;
  reason?: string;
  /** the error that ended the connection, if one did */
  error?: Error;
  /** stdio: the child's exit code / signal */
  exitCode?: number | null;
  signal?: string | null;
}

/**
 * One connection carrying whole JSON-RPC messages as text (a WebSocket frame, a stdio line).
 * Like a MessageChannel port: send, receive, learn that it closed, close it.
 * `onClose` listeners registered after the close are called too (asynchronously).
 */
export interface Transport {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  onClose(cb: (info: CloseInfo) => void): void;
  close(): void;
}

/**
 * Plumbing shared by the transports: buffers messages until a listener is attached, drops
 * messages that arrive after close() was called, fires onClose exactly once.
 */
export class TransportBase {
  private messageListeners: ((text: string) => void)[] = [];
  private closeListeners: ((info: CloseInfo) => void)[] = [];
  private backlog: string[] = [];
  private closeInfo: CloseInfo | undefined;
  /** set by close(): later messages are dropped */
  protected closing = false;

  get closed(): boolean {
    return this.closeInfo !== undefined;
  }

  onMessage(cb: (text: string) => void): void {
    this.messageListeners.push(cb);
    if (this.backlog.length > 0) {
      const queued = this.backlog;
      this.backlog = [];
      for (const text of queued) this.deliver(text);
    }
  }

  onClose(cb: (info: CloseInfo) => void): void {
    const info = this.closeInfo;
    if (info) queueMicrotask(() => cb(info));
    else this.closeListeners.push(cb);
  }

  /** Called by the concrete transport for each incoming message. */
  protected deliver(text: string): void {
    if (this.closing || this.closeInfo) return;
    if (this.messageListeners.length === 0) {
      this.backlog.push(text);
      return;
    }
    for (const cb of this.messageListeners) cb(text);
  }

  /** Called by the concrete transport once the connection is gone. */
  protected closedWith(info: CloseInfo): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const cb of listeners) cb(info);
  }
}

// ---- errors ------------------------------------------------------------------------------------

/** An error answer from the server (or a local one with a JSON-RPC code). `code` is one of ErrorCodes. */
export class PithRpcError extends Error {
  override readonly name = "PithRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** the method of the request that failed */
    readonly method?: string,
  ) {
    super(message);
  }
}

/** The connection closed before the answer came (or the call was made on a closed client). */
export class PithConnectionError extends Error {
  override readonly name = "PithConnectionError";
  constructor(
    message: string,
    readonly info?: CloseInfo,
  ) {
    super(message);
  }
}

/** A call or waitFor ran out of time. The server may still carry the request out. */
export class PithTimeoutError extends Error {
  override readonly name = "PithTimeoutError";
}

const METHOD_NOT_FOUND: (typeof ErrorCodes)["MethodNotFound"] = -32601;
const INTERNAL_ERROR: (typeof ErrorCodes)["InternalError"] = -32603;

// ---- types -------------------------------------------------------------------------------------

export interface CallOptions {
  /** reject with PithTimeoutError after this long (default: the client's callTimeoutMs, none if 0) */
  timeoutMs?: number;
  /** reject with the signal's reason when it aborts (the request is not cancelled on the server) */
  signal?: AbortSignal;
}

export type EventListener<E extends EventName> = (params: EventParams<E>) => void;
/** (name, params), narrowed together: `if (name === "agent_end") params.stopReason` */
export type AnyEventArgs = { [E in EventName]: [name: E, params: EventParams<E>] }[EventName];
export type AnyEventListener = (...args: AnyEventArgs) => void;

export type ServerRequestHandler<R extends ServerRequestName> = (
  params: ServerRequestParams<R>,
) => ServerRequestResult<R> | Promise<ServerRequestResult<R>>;

/** Anything with zod's safeParse (the schemas in protocol/events.ts fit). */
export interface SafeParser {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}

export interface PithClientOptions {
  /** default timeout of call() in ms (0: none, the default) */
  callTimeoutMs?: number;
  /** debug: validate each event's params with these schemas (pass `events` from protocol/) */
  validateEvents?: Partial<Record<string, SafeParser>>;
  /** called for an event that fails validateEvents (default: console.warn) */
  onInvalidEvent?: (name: string, params: unknown, error: unknown) => void;
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

type Rpc = { [M in MethodName]: (params: ParamsOf<M>, options?: CallOptions) => Promise<ResultOf<M>> };

interface Pending {
  method: string;
  params: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

// ---- seq tracking ------------------------------------------------------------------------------

/**
 * The seqs seen of one session, as sorted disjoint ranges. The first range's end is what a
 * reconnect asks to resume after (everything up to it was seen, or predates this client).
 */
class SeqTracker {
  ranges: [number, number][] = [];
  /** the stream the seqs count in (SessionState.streamId); a new one means the numbering restarted */
  streamId: string | undefined;
  /** open subscribe {afterSeq} calls: events in them may repeat ones already seen */
  replaying = 0;

  has(seq: number): boolean {
    return this.ranges.some(([lo, hi]) => seq >= lo && seq <= hi);
  }

  add(seq: number): void {
    const last = this.ranges[this.ranges.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq; // the usual case: the next seq
    else this.addRange(seq, seq);
  }

  /** Everything up to `seq` counts as seen. */
  seenUpTo(seq: number): void {
    if (seq > 0) this.addRange(1, seq);
  }

  private addRange(from: number, to: number): void {
    const merged: [number, number][] = [];
    for (const [lo, hi] of [...this.ranges, [from, to] as [number, number]].sort((a, b) => a[0] - b[0])) {
      const last = merged[merged.length - 1];
      if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
      else merged.push([lo, hi]);
    }
    this.ranges = merged;
  }

  get resumeAfter(): number {
    return this.ranges.length > 0 ? this.ranges[0][1] : 0;
  }

  /** The session's current stream, as a result reported it: seqs of another stream are forgotten. */
  stream(streamId: string): void {
    if (this.streamId !== undefined && this.streamId !== streamId) this.ranges = [];
    this.streamId = streamId;
  }
}

// ---- the client --------------------------------------------------------------------------------

/**
 * A pith JSON-RPC client over one Transport.
 *
 * - `call(method, params)` / the typed helpers / `rpc.<method>(params)` send requests;
 * - `on(event, fn)`, `onAny(fn)`, `waitFor(event, pred)` receive session events;
 * - `handle("requestPermission" | "beforeCompact", fn)` answers the server's requests;
 * - `resubscribe(sessionId)` resumes a session's events after the last seq seen;
 *   `reconnect(transport)` moves the client (listeners, handlers, seqs) to a new connection.
 */
export class PithClient {
  private transport!: Transport;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: never) => void>>();
  private readonly anyListeners = new Set<AnyEventListener>();
  private readonly closeListeners = new Set<(info: CloseInfo) => void>();
  private readonly handlers = new Map<string, (params: never) => unknown>();
  private readonly seqs = new Map<string, SeqTracker>();
  private closeInfo: CloseInfo | undefined;
  private initArgs: ParamsOf<"initialize"> | undefined;
  /** the server's initialize answer */
  server: ResultOf<"initialize"> | undefined;

  /** Every method, typed: `client.rpc.setModel({sessionId, model})`. */
  readonly rpc: Rpc = new Proxy({} as Rpc, {
    // not "then": `await client.rpc` must not look like a promise
    get: (_target, method) =>
      typeof method === "string" && method !== "then" ? (params: never, options?: CallOptions) => this.call(method as MethodName, params, options) : undefined,
  });

  constructor(
    transport: Transport,
    private readonly options: PithClientOptions = {},
  ) {
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
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.callTimeoutMs ?? 0;
    const replay = method === "subscribe" ? this.replayWindow(params as ParamsOf<"subscribe">) : undefined;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => settle(() => reject(signal?.reason));
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
        replay?.();
      };
      const settle = (fn: () => void) => {
        if (!this.pending.has(id)) return;
        cleanup();
        fn();
      };
      this.pending.set(id, { method, params, resolve: resolve as (v: unknown) => void, reject, cleanup });
      if (timeoutMs > 0) timer = setTimeout(() => settle(() => reject(new PithTimeoutError(`${method}: no answer after ${timeoutMs} ms`))), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      } catch (err) {
        settle(() => reject(new PithConnectionError(`${method}: send failed: ${(err as Error)?.message ?? String(err)}`)));
      }
    });
  }

  /** subscribe {afterSeq}: replayed events may repeat ones already seen until the answer comes. */
  private replayWindow(params: ParamsOf<"subscribe">): (() => void) | undefined {
    if (params.afterSeq === undefined) return undefined;
    const tracker = this.tracker(params.sessionId);
    tracker.replaying++;
    let open = true;
    return () => {
      if (open) tracker.replaying--;
      open = false;
    };
  }

  // ---- typed helpers -----------------------------------------------------------------------------

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

  createSession(params: ParamsOf<"createSession"> = {}, options?: CallOptions) {
    return this.call("createSession", params, options);
  }
  openSession(params: ParamsOf<"openSession">, options?: CallOptions) {
    return this.call("openSession", params, options);
  }
  listSessions(cwd?: string, options?: CallOptions) {
    return this.call("listSessions", cwd === undefined ? {} : { cwd }, options);
  }
  async closeSession(sessionId: string, options?: CallOptions) {
    const result = await this.call("closeSession", { sessionId }, options);
    this.seqs.delete(sessionId);
    return result;
  }
  forkSession(sessionId: string, entryId: string, options?: CallOptions) {
    return this.call("forkSession", { sessionId, entryId }, options);
  }
  subscribe(sessionId: string, afterSeq?: number, options?: CallOptions) {
    return this.call("subscribe", afterSeq === undefined ? { sessionId } : { sessionId, afterSeq }, options);
  }
  unsubscribe(sessionId: string, options?: CallOptions) {
    return this.call("unsubscribe", { sessionId }, options);
  }
  getState(sessionId: string, options?: CallOptions) {
    return this.call("getState", { sessionId }, options);
  }
  getMessages(sessionId: string, options?: CallOptions) {
    return this.call("getMessages", { sessionId }, options);
  }
  getTree(sessionId: string, options?: CallOptions) {
    return this.call("getTree", { sessionId }, options);
  }
  prompt(sessionId: string, text: string, extra: Omit<ParamsOf<"prompt">, "sessionId" | "text"> = {}, options?: CallOptions) {
    return this.call("prompt", { sessionId, text, ...extra }, options);
  }
  abort(sessionId: string, options?: CallOptions) {
    return this.call("abort", { sessionId }, options);
  }
  compact(sessionId: string, instructions?: string, options?: CallOptions) {
    return this.call("compact", instructions === undefined ? { sessionId } : { sessionId, instructions }, options);
  }
  navigateTree(sessionId: string, targetId: string, extra: Omit<ParamsOf<"navigateTree">, "sessionId" | "targetId"> = {}, options?: CallOptions) {
    return this.call("navigateTree", { sessionId, targetId, ...extra }, options);
  }
  bash(sessionId: string, command: string, options?: CallOptions) {
    return this.call("bash", { sessionId, command }, options);
  }
  setPermissionMode(sessionId: string, mode: ParamsOf<"setPermissionMode">["mode"], options?: CallOptions) {
    return this.call("setPermissionMode", { sessionId, mode }, options);
  }

  // ---- seqs and reconnects -------------------------------------------------------------------------

  private tracker(sessionId: string): SeqTracker {
    let t = this.seqs.get(sessionId);
    if (!t) this.seqs.set(sessionId, (t = new SeqTracker()));
    return t;
  }

  /**
   * The seq to resume a session's events after: the end of the unbroken run of seqs this client
   * saw (or was told about with resubscribe(id, afterSeq)). 0 when it saw none.
   */
  lastSeq(sessionId: string): number {
    return this.seqs.get(sessionId)?.resumeAfter ?? 0;
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
    const tracker = this.tracker(sessionId);
    if (afterSeq !== undefined) tracker.seenUpTo(afterSeq);
    const after = tracker.resumeAfter;
    const streamId = tracker.streamId;
    const result = await this.call("subscribe", { sessionId, afterSeq: after, ...(streamId !== undefined ? { streamId } : {}) }, options);
    const reset = result.lastSeq < after;
    if (result.gap || reset) {
      tracker.ranges = [];
      tracker.seenUpTo(result.lastSeq);
    }
    return { ...result, afterSeq: after, ...(reset ? { reset } : {}) };
  }

  /**
   * Moves this client to a new connection (after the old one dropped): pending calls on the old
   * one are rejected, listeners, handlers and seqs stay, and `initialize` is sent again with the
   * same arguments if it was sent before. Then call resubscribe(sessionId) per session.
   */
  async reconnect(transport: Transport, options?: CallOptions): Promise<ResultOf<"initialize"> | undefined> {
    const old = this.transport;
    this.failPending(new PithConnectionError("connection replaced by reconnect()"));
    for (const t of this.seqs.values()) t.replaying = 0;
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
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const fn = listener as (params: never) => void;
    set.add(fn);
    return () => void set.delete(fn);
  }

  onAny(listener: AnyEventListener): () => void {
    this.anyListeners.add(listener);
    return () => void this.anyListeners.delete(listener);
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
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        off();
        offClose();
        if (timer) clearTimeout(timer);
      };
      const off = this.on(event, (params) => {
        let match: boolean;
        try {
          match = predicate ? predicate(params) : true;
        } catch (err) {
          done();
          reject(err);
          return;
        }
        if (match) {
          done();
          resolve(params);
        }
      });
      const offClose = this.onClose((info) => {
        done();
        reject(new PithConnectionError(`connection closed while waiting for ${event}`, info));
      });
      if (timeoutMs > 0) timer = setTimeout(() => (done(), reject(new PithTimeoutError(`no ${event} within ${timeoutMs} ms`))), timeoutMs);
    });
  }

  // ---- server requests -------------------------------------------------------------------------------

  /**
   * Answers the server's `requestPermission` / `beforeCompact` requests. One handler per name
   * (a new one replaces the old); the returned function removes it. Without a handler the
   * server gets -32601. Register before initialize() so the capabilities say so.
   */
  handle<R extends ServerRequestName>(name: R, handler: ServerRequestHandler<R>): () => void {
    const fn = handler as (params: never) => unknown;
    this.handlers.set(name, fn);
    return () => {
      if (this.handlers.get(name) === fn) this.handlers.delete(name);
    };
  }

  // ---- connection ----------------------------------------------------------------------------------

  /** Closes the connection; pending calls reject with PithConnectionError. */
  close(): void {
    this.transport.close();
    this.closed_({ reason: "closed by the client" }, this.transport);
  }

  private attach(transport: Transport): void {
    this.transport = transport;
    transport.onMessage((text) => {
      if (this.transport === transport) this.receive(text);
    });
    transport.onClose((info) => this.closed_(info, transport));
  }

  private closed_(info: CloseInfo, transport: Transport): void {
    if (this.transport !== transport || this.closeInfo) return;
    this.closeInfo = info;
    for (const t of this.seqs.values()) t.replaying = 0;
    this.failPending(new PithConnectionError(`connection closed${info.reason ? `: ${info.reason}` : ""}`, info));
    for (const fn of [...this.closeListeners]) this.safely(() => fn(info));
  }

  private failPending(error: Error): void {
    const pending = [...this.pending.values()];
    for (const p of pending) {
      p.cleanup();
      p.reject(error);
    }
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

  private send(message: object): void {
    try {
      this.transport.send(JSON.stringify(message));
    } catch (err) {
      this.report(err);
    }
  }

  private receive(text: string): void {
    let msg: JsonRpcMessage;
    try {
      msg = JSON.parse(text) as JsonRpcMessage;
    } catch {
      this.report(new Error(`unparsable message from the server: ${text.slice(0, 200)}`));
      return;
    }
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
      this.report(new Error(`unexpected message from the server: ${text.slice(0, 200)}`));
      return;
    }
    if (typeof msg.method === "string") {
      if ("id" in msg && msg.id !== undefined) void this.serverRequest(msg.id, msg.method, msg.params);
      else this.event(msg.method, msg.params);
      return;
    }
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p) {
      // an answer to nothing we sent, e.g. id null for a line the server could not read
      const e = msg.error;
      this.report(e ? new PithRpcError(Number(e.code), String(e.message), e.data) : new Error(`answer to an unknown request: ${text.slice(0, 200)}`));
      return;
    }
    p.cleanup();
    if (msg.error) p.reject(new PithRpcError(Number(msg.error.code), String(msg.error.message ?? "error"), msg.error.data, p.method));
    else {
      const validator = this.options.validateResults?.[p.method];
      if (validator) {
        const r = validator.result.safeParse(msg.result);
        if (!r.success) {
          if (this.options.onInvalidResult) this.options.onInvalidResult(p.method, msg.result, r.error);
          else console.warn(`pith client: invalid ${p.method} result`, r.error);
        }
      }
      this.noteStream(p.method, p.params, msg.result);
      p.resolve(msg.result);
    }
  }

  /** Results that name a session's current stream (a state, a subscribe answer) keep the seq tracker honest. */
  private noteStream(method: string, params: unknown, result: unknown): void {
    const r = result as { sessionId?: unknown; streamId?: unknown; state?: { streamId?: unknown } } | null;
    if (!r || typeof r !== "object") return;
    const sessionId = method === "subscribe" ? (params as { sessionId?: unknown } | null)?.sessionId : r.sessionId;
    const streamId = r.state?.streamId ?? r.streamId;
    if (typeof sessionId === "string" && typeof streamId === "string") this.tracker(sessionId).stream(streamId);
  }

  private event(name: string, params: unknown): void {
    const validator = this.options.validateEvents?.[name];
    if (validator) {
      const r = validator.safeParse(params);
      if (!r.success) {
        if (this.options.onInvalidEvent) this.options.onInvalidEvent(name, params, r.error);
        else console.warn(`pith client: invalid ${name} event`, r.error);
      }
    }
    const p = params as { sessionId?: unknown; seq?: unknown } | undefined;
    if (p && typeof p.sessionId === "string" && typeof p.seq === "number") {
      const tracker = this.tracker(p.sessionId);
      if (tracker.has(p.seq)) {
        // a replayed event already delivered live: drop it
        if (tracker.replaying > 0) return;
        // outside a replay, an old seq means the session was reopened and numbering restarted
        tracker.ranges = [];
      }
      tracker.add(p.seq);
    }
    const set = this.listeners.get(name);
    if (set) for (const fn of [...set]) this.safely(() => fn(params as never));
    for (const fn of [...this.anyListeners]) this.safely(() => (fn as (n: string, p: unknown) => void)(name, params));
  }

  private async serverRequest(id: unknown, method: string, params: unknown): Promise<void> {
    const handler = this.handlers.get(method);
    if (!handler) {
      this.send({ jsonrpc: "2.0", id, error: { code: METHOD_NOT_FOUND, message: `no handler for ${method}` } });
      return;
    }
    try {
      const result = await handler(params as never);
      this.send({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (err) {
      const code = err instanceof PithRpcError ? err.code : INTERNAL_ERROR;
      const data = err instanceof PithRpcError ? err.data : undefined;
      this.send({ jsonrpc: "2.0", id, error: { code, message: (err as Error)?.message ?? String(err), ...(data !== undefined ? { data } : {}) } });
    }
  }
}

// ---- URLs ----------------------------------------------------------------------------------------

/**
 * The WebSocket endpoint for what `pith serve` prints (`http://127.0.0.1:7777`) or any ws URL:
 * http(s) becomes ws(s), and a bare origin gets `/rpc`.
 */
export function rpcUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol === "http:") u.protocol = "ws:";
  else if (u.protocol === "https:") u.protocol = "wss:";
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/rpc";
  u.hash = "";
  return u.toString();
}

/** The subprotocol that carries the token (browsers cannot set an Authorization header). */
export function bearerSubprotocol(token: string): string {
  return `pith.bearer.${token}`;
}
