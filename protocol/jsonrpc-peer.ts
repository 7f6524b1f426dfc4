// The one JSON-RPC 2.0 peer of pith: requests, notifications and answers in both directions over
// one connection of whole messages (a stdio line, a WebSocket frame). The daemon serves each
// connection with one (src/rpc/server.ts), the TypeScript client talks through one (clients/ts,
// in Node and in the browser), and so does a node's link to another node (src/rpc/node-link.ts).
//
// Built on json-rpc-2.0's JSONRPCServerAndClient (the library's server runs the methods, its
// client matches answers to requests), with what the library leaves out (LIBRARIES.md):
// - the envelope: it never answers -32700 / -32600 itself, so every incoming text is parsed and
//   checked here first, with the exact codes and messages pith has always sent; batches are
//   refused (protocol version 1 takes one message at a time);
// - errors: a thrown error becomes `{code, message, data}` through `mapError`, never the
//   library's code 0; unknown methods get `methodNotFound`'s message;
// - calls: timeouts, abort signals, a failed send and the connection going away end a call with
//   the caller's own errors (the library's timeouts reject with code 0);
// - answers the peer did not ask for are reported, not silently dropped.
//
// Why it lives in protocol/: the one layer both src/ and clients/ts may import. It is not the
// wire contract (protocol/index.ts does not re-export it); at run time it imports only
// json-rpc-2.0 (no Node module, no zod) and error-codes.ts, so the browser bundle takes it.
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient, type JSONRPCID, type JSONRPCRequest, type JSONRPCResponse } from "json-rpc-2.0";
import { ErrorCodes } from "./error-codes.js";
import type { MethodName, ParamsOf, ResultOf, ServerRequestName, ServerRequestParams, ServerRequestResult } from "./index.js";

/** Requests one side makes of the other: method → params and result. */
export type CallTable = { [method: string]: { params: unknown; result: unknown } };
/** What a client asks of the daemon (protocol/methods.ts). */
export type DaemonCalls = { [M in MethodName]: { params: ParamsOf<M>; result: ResultOf<M> } };
/** What the daemon asks of a client (protocol/server-requests.ts). */
export type ClientCalls = { [R in ServerRequestName]: { params: ServerRequestParams<R>; result: ServerRequestResult<R> } };

/** The error object of an answer. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** An error answer the peer sends (or, for a client, reports) for a message it could not take. */
export interface EnvelopeError {
  id: JSONRPCID;
  error: WireError;
}

export interface CallOptions {
  /** end the call with `errors.timeout` after this long (0 or absent: never) */
  timeoutMs?: number;
  /** end the call with the signal's reason when it aborts (the other side is not told) */
  signal?: AbortSignal;
  /** runs once, synchronously, however the call ends: with the answer when one came (before the caller hears of it) */
  settled?(answer: { result: unknown } | { error: WireError } | undefined): void;
}

/** How calls that end without a result reject (default: PeerCallError, with the method). */
export interface CallErrors {
  answer(error: WireError, method: string): unknown;
  timeout(method: string, ms: number): unknown;
  sendFailed(method: string, cause: unknown): unknown;
}

export interface PeerOptions<Ctx> {
  /** sends one serialized message; throwing fails the call being sent */
  send(text: string): void;
  /** the methods this side answers, shared by many peers (the daemon: one table for every connection); default: one of its own (`answeringServer()`) */
  server?: JSONRPCServer<Ctx>;
  /** what each method handler gets as its second argument */
  context: Ctx;
  /** a notification: handled here, synchronously, in order (default: run like a request, no answer) */
  onNotification?(method: string, params: unknown, text: string): void;
  /** a request this side will not serve now (the daemon's initialize gate); notifications it refuses are dropped */
  gate?(method: string, context: Ctx): WireError | undefined;
  /** a message that is not one this side can take (default: answered with the error, what a server does) */
  onInvalid?(refusal: EnvelopeError, text: string): void;
  /** an answer to no call in flight (an id never sent, one that already ended, id null); default: ignored */
  onStrayAnswer?(answer: { id?: unknown; result?: unknown; error?: WireError }, text: string): void;
  /** sending an answer failed (default: ignored; the other side is gone) */
  onSendError?(error: unknown): void;
  errors?: Partial<CallErrors>;
}

/** An error answer to a call (the default rejection). */
export class PeerCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly method?: string,
  ) {
    super(message);
    this.name = "PeerCallError";
  }
}

const DEFAULT_ERRORS: CallErrors = {
  answer: (e, method) => new PeerCallError(e.code, e.message, e.data, method),
  timeout: (method, ms) => new PeerCallError(ErrorCodes.InternalError, `${method}: no answer after ${ms} ms`, undefined, method),
  sendFailed: (method, cause) => new PeerCallError(ErrorCodes.InternalError, `${method}: send failed: ${(cause as Error)?.message ?? String(cause)}`, undefined, method),
};

export interface AnsweringOptions {
  /** a handler threw: the error object to answer with (default: its numeric `code` if it has one, else -32603; its message) */
  mapError?(error: unknown): WireError;
  /** the message for a method this side does not have (default: "unknown method: <name>") */
  methodNotFound?(method: string): string;
}

/** The side that answers: a json-rpc-2.0 server whose errors are pith's (never code 0, no console noise). */
export function answeringServer<Ctx>(options: AnsweringOptions = {}): JSONRPCServer<Ctx> {
  const mapError = options.mapError ?? defaultMapError;
  const notFound = options.methodNotFound ?? ((method: string) => `unknown method: ${method}`);
  // errors are the caller's to log (mapError): the library's console output is noise
  const server = new JSONRPCServer<Ctx>({ errorListener: () => undefined });
  server.mapErrorToJSONRPCErrorResponse = (id, error) => ({ jsonrpc: "2.0", id: id ?? null, error: withoutUndefinedData(mapError(error)) });
  server.handleMethodNotFound = async (request) =>
    request.id === undefined ? null : { jsonrpc: "2.0", id: request.id, error: { code: ErrorCodes.MethodNotFound, message: notFound(request.method) } };
  return server;
}

interface Call {
  method: string;
  settled?: CallOptions["settled"];
  /** why the call ended before its answer (timeout, abort, send failure, connection gone) */
  ended?: { error: unknown };
  cleanup(): void;
}

/**
 * Sends the requests of `Sends`, answers those of `Answers` (methods added to its server).
 * Notifications go untyped both ways: the daemon's events leave pre-serialized (the host's event
 * buffer) and the client checks each against protocol/events.ts where it dispatches them.
 */
export class JsonRpcPeer<Sends extends CallTable, Answers extends CallTable = CallTable, Ctx = void> {
  private readonly rpc: JSONRPCServerAndClient<Ctx, void>;
  private readonly calls = new Map<number, Call>();
  private readonly errors: CallErrors;
  private nextId = 0;

  constructor(private readonly options: PeerOptions<Ctx>) {
    const client = new JSONRPCClient<void>((message) => {
      try {
        options.send(JSON.stringify(message));
      } catch (err) {
        // a request that could not go out ends now, with the caller's error (not the library's code 0)
        const id = (message as { id?: unknown }).id;
        const call = typeof id === "number" ? this.calls.get(id) : undefined;
        if (call) this.endCall(id as number, this.errors.sendFailed(call.method, err));
        throw err;
      }
    });
    this.rpc = new JSONRPCServerAndClient(options.server ?? answeringServer<Ctx>(), client, { errorListener: () => undefined });
    this.errors = { ...DEFAULT_ERRORS, ...options.errors };
  }

  /** Answers `method` with `handler` (replacing any); the returned function removes it. Params are the wire's: check them. */
  addMethod<M extends keyof Answers & string>(method: M, handler: (params: unknown, context: Ctx) => Answers[M]["result"] | PromiseLike<Answers[M]["result"]>): () => void {
    const fn = (params: unknown, context: Ctx) => handler(params, context);
    this.rpc.addMethod(method, fn);
    return () => this.rpc.removeMethod(method);
  }

  /** Sends a request; resolves with its result, or rejects (CallErrors; the signal's reason). */
  request<M extends keyof Sends & string>(method: M, params: Sends[M]["params"], options: CallOptions = {}): Promise<Sends[M]["result"]> {
    const { signal, timeoutMs = 0 } = options;
    if (signal?.aborted) {
      options.settled?.(undefined);
      return Promise.reject(signal.reason);
    }
    const id = ++this.nextId;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const call: Call = {
      method,
      settled: options.settled,
      cleanup: () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      },
    };
    const onAbort = () => this.endCall(id, signal?.reason);
    this.calls.set(id, call);
    if (timeoutMs > 0) timer = setTimeout(() => this.endCall(id, this.errors.timeout(method, timeoutMs)), timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    // the library sends synchronously (a caller may read what went out right after this call)
    const answered = this.rpc.client.requestAdvanced({ jsonrpc: "2.0", id, method, params }, undefined);
    return Promise.resolve(answered).then((answer) => this.outcome(call, answer)) as Promise<Sends[M]["result"]>;
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.rpc.notify(method, params, undefined);
  }

  /** Ends every call in flight with `error` (the connection is gone or replaced). */
  rejectAll(error: unknown): void {
    for (const id of [...this.calls.keys()]) this.endCall(id, error);
  }

  /** Sends an error answer of this side's own (e.g. to a message the transport dropped as too big). */
  sendError(id: JSONRPCID, code: number, message: string, data?: unknown): void {
    this.options.send(JSON.stringify(errorAnswer(id, { code, message, ...(data !== undefined ? { data } : {}) })));
  }

  /**
   * One incoming message, as text. Envelope errors, answers and notifications are handled before
   * this returns (a notification handler's throw reaches the caller); a request is answered later.
   */
  receive(text: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (err) {
      return this.invalid({ id: null, error: { code: ErrorCodes.ParseError, message: `parse error: ${(err as Error).message}` } }, text);
    }
    if (Array.isArray(payload)) {
      // version 1 of the protocol takes one message at a time (see PROTOCOL.md)
      return this.invalid({ id: null, error: { code: ErrorCodes.InvalidRequest, message: "batches are not supported: send one JSON-RPC message per line or frame" } }, text);
    }
    const refusal = envelopeRefusal(payload);
    if (refusal) return this.invalid(refusal, text);
    const m = payload as { id?: JSONRPCID; method?: string; params?: unknown; result?: unknown; error?: WireError };
    if (m.method === undefined) return this.answerArrived(m, text);
    const isNotification = !("id" in m);
    const gated = this.options.gate?.(m.method, this.options.context);
    if (gated) {
      if (!isNotification) this.answer(errorAnswer(m.id ?? null, gated));
      return;
    }
    if (isNotification && this.options.onNotification) return this.options.onNotification(m.method, m.params, text);
    void this.serve(m as JSONRPCRequest);
  }

  /** Runs a request (or a notification nobody handles first) through the library's server; errors come back mapped, never thrown. */
  private async serve(request: JSONRPCRequest): Promise<void> {
    const response = await this.rpc.server.receive(request, this.options.context);
    if (response) this.answer(response);
  }

  /** Sends an answer; a connection that refuses it (gone meanwhile) is reported, not thrown at the reader. */
  private answer(message: object): void {
    try {
      this.options.send(JSON.stringify(message));
    } catch (err) {
      this.options.onSendError?.(err);
    }
  }

  private invalid(refusal: EnvelopeError, text: string): void {
    if (this.options.onInvalid) this.options.onInvalid(refusal, text);
    else this.answer(errorAnswer(refusal.id, refusal.error));
  }

  private answerArrived(m: { id?: unknown; result?: unknown; error?: WireError }, text: string): void {
    const call = typeof m.id === "number" ? this.calls.get(m.id) : undefined;
    if (!call) return this.options.onStrayAnswer?.(m, text);
    this.calls.delete(m.id as number);
    call.cleanup();
    call.settled?.(m.error ? { error: m.error } : { result: m.result });
    this.rpc.client.receive(m as JSONRPCResponse);
  }

  /** Ends a call before its answer: the library forgets it, the caller gets `error`. */
  private endCall(id: number, error: unknown): void {
    const call = this.calls.get(id);
    if (!call) return;
    this.calls.delete(id);
    call.cleanup();
    call.ended = { error };
    call.settled?.(undefined);
    this.rpc.client.receive({ jsonrpc: "2.0", id, error: { code: ErrorCodes.InternalError, message: "ended" } });
  }

  private outcome(call: Call, answer: JSONRPCResponse): unknown {
    if (call.ended) throw call.ended.error;
    if (answer.error) throw this.errors.answer(answer.error, call.method);
    return answer.result;
  }
}

/** Why a parsed message is no JSON-RPC 2.0 message pith takes (batches aside), or undefined. */
function envelopeRefusal(payload: unknown): EnvelopeError | undefined {
  const m = payload as Record<string, unknown> | null;
  const idOf = (id: unknown): JSONRPCID => (typeof id === "string" || typeof id === "number" || id === null ? id : null);
  const refuse = (id: unknown, message: string): EnvelopeError => ({ id: idOf(id), error: { code: ErrorCodes.InvalidRequest, message } });
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return refuse(m?.id, 'invalid request: expected a JSON-RPC 2.0 object ({"jsonrpc":"2.0", ...})');
  if (!("method" in m)) return "result" in m || "error" in m ? undefined : refuse(m.id, "invalid request: no method");
  const badId = "id" in m && idOf(m.id) !== m.id;
  if (typeof m.method !== "string" || badId || ("params" in m && (typeof m.params !== "object" || m.params === null))) {
    return refuse(m.id, "invalid request: method must be a string, id a string, number or null, params an object or array");
  }
  return undefined;
}

function errorAnswer(id: JSONRPCID, error: WireError): { jsonrpc: "2.0"; id: JSONRPCID; error: WireError } {
  return { jsonrpc: "2.0", id, error: withoutUndefinedData(error) };
}

function withoutUndefinedData(error: WireError): WireError {
  return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
}

function defaultMapError(error: unknown): WireError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  return typeof e?.code === "number" ? { code: e.code, message, data: e.data } : { code: ErrorCodes.InternalError, message };
}
