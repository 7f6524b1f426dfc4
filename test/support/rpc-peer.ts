// The daemon tests' JSON-RPC peer: a PithClient (clients/ts) that also records everything the
// daemon sends, so tests can assert on the exact stream, and lets a test wait for what it needs
// with a deadline (never for ever).
//
// - Requests go through the client: `request` / `call` are typed by protocol/ (ParamsOf,
//   ResultOf), and the client validates every event and every result against the protocol's zod
//   schemas (its validateEvents / validateResults options, here always on). Failures are
//   collected in `violations`, which tests assert empty. Events the protocol does not know are
//   violations too (the client itself lets them through).
// - Every message is recorded as it arrives, before the client handles it: `received` (all of
//   it), `events` (notifications as `{type, ...params}`, exactly as sent: the client's own
//   dedup of replayed events does not apply here), `nullIdErrors`, `garbage` (non-JSON).
// - Bad input on purpose: `sendRaw(text)` / `send(object)` bypass the client, and
//   `expectError(method, params, code)` takes any method name and params. Answers to raw
//   requests land in `received` (the client reports them as unknown answers: see `clientReports`).
//   Give raw requests string ids: the client numbers its own requests 1, 2, 3, ..., and an answer
//   is matched by id.
import { PithClient, PithConnectionError, PithRpcError, PithTimeoutError, eventSchemas, methodSchemas, type CloseInfo, type ServerRequestHandler, type Transport } from "../../clients/ts/index.js";
import { isEventName, PROTOCOL_VERSION, type EventLine, type EventName, type EventParams, type MethodName, type ParamsOf, type ResultOf, type ServerRequestName, type ServerRequestParams } from "../../protocol/index.js";

/** A notification as an event: its params plus `type` (the method). */
export type Ev = EventLine;
/** One kind of event. */
export type EvOf<E extends EventName> = Extract<EventLine, { type: E }>;

type RpcId = string | number | null;
/** keys a message of this kind does not have (so `m.result` reads on any message) */
type Absent<K extends string> = { [P in K]?: undefined };

/** A JSON-RPC error object as received. */
export interface WireError {
  code: number;
  message: string;
  // Its shape depends on the code (protocol/errors.ts ErrorData: the zod error tree, {reason},
  // {sessionId}, ...) and tests read it by path to assert on it; `any` because a wrong path
  // throws or fails that assertion, and narrowing per code in every test would add nothing.
  data?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type EventMessage = { [E in EventName]: { jsonrpc: "2.0"; method: E; params: EventParams<E> } & Absent<"id" | "result" | "error"> }[EventName];
type ServerRequestMessage = { [R in ServerRequestName]: { jsonrpc: "2.0"; id: string | number; method: R; params: ServerRequestParams<R> } & Absent<"result" | "error"> }[ServerRequestName];
export type ResultMessage<R = unknown> = { jsonrpc: "2.0"; id: RpcId; result: R } & Absent<"method" | "params" | "error">;
export type ErrorMessage = { jsonrpc: "2.0"; id: RpcId; error: WireError } & Absent<"method" | "params" | "result">;
/** The answer to a request for M. */
export type Response<M extends MethodName> = ResultMessage<ResultOf<M>> | ErrorMessage;
/**
 * Anything the daemon sends, as parsed. The types are what the schemas check (events, results),
 * or the envelope the daemon's own code builds; a message that breaks them is a violation.
 */
export type WireMessage = EventMessage | ServerRequestMessage | ResultMessage | ErrorMessage;

/** A notification (an event), not a request from the server or an answer. */
export function isEventMessage(m: WireMessage): m is EventMessage {
  return typeof m.method === "string" && m.id === undefined;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${code}: ${message}`);
  }
}

interface Waiter {
  check(): boolean;
  fail(err: Error): void;
}

let nextPeerId = 0;

/** The daemon's safe answers: deny, compact as usual. */
const SAFE_ANSWERS: { [R in ServerRequestName]: ServerRequestHandler<R> } = {
  requestPermission: () => ({ outcome: "deny" }),
  beforeCompact: () => ({ action: "default" }),
};

export class RpcPeer {
  readonly label: string;
  /** the client under the peer (typed calls, handlers, validation) */
  readonly client: PithClient;
  /** every message received, in order (parsed) */
  readonly received: WireMessage[] = [];
  /** notifications as events: the params plus `type` */
  readonly events: Ev[] = [];
  /** error answers with id null (parse errors, batches, oversize lines) */
  readonly nullIdErrors: ErrorMessage[] = [];
  /** schema problems in events and results: each test checks this is empty */
  readonly violations: string[] = [];
  /** lines that were not JSON (the server must never send one) */
  readonly garbage: string[] = [];
  /** what the client reported instead of throwing: answers to raw requests it did not send, listener errors */
  readonly clientReports: unknown[] = [];
  /** answers to the server's requests (requestPermission, beforeCompact); default: the safe ones */
  readonly onServerRequest: { [R in ServerRequestName]: ServerRequestHandler<R> } = { ...SAFE_ANSWERS };
  private readonly responses = new Map<number, ResultMessage | ErrorMessage>();
  private waiters = new Set<Waiter>();
  private lastSentId: number | undefined;
  private closedWith: Error | null = null;
  private readonly whenGone: Promise<Error>;
  private gone!: (err: Error) => void;

  constructor(
    /** the connection; the peer's raw sends go straight to it */
    readonly transport: Transport,
    label = "peer",
  ) {
    this.label = `${label}#${++nextPeerId}`;
    this.whenGone = new Promise((resolve) => (this.gone = resolve));
    // first listener: a message is recorded before the client acts on it (a call resolves after its answer is in `received`)
    transport.onMessage((text) => this.record(text));
    const sent: Transport = {
      send: (text) => {
        this.lastSentId = (JSON.parse(text) as { id?: number }).id;
        transport.send(text);
      },
      onMessage: (cb) => transport.onMessage(cb),
      onClose: (cb) => transport.onClose(cb),
      close: () => transport.close(),
    };
    this.client = new PithClient(sent, {
      validateEvents: eventSchemas,
      validateResults: methodSchemas,
      onInvalidEvent: (name, params, error) => this.violations.push(`event ${name} seq ${(params as { seq?: unknown })?.seq}: ${String((error as Error)?.message ?? error).slice(0, 500)}`),
      onInvalidResult: (method, _result, error) => this.violations.push(`result of ${method}: ${String((error as Error)?.message ?? error).slice(0, 500)}`),
      onError: (error) => this.clientReports.push(error),
    });
    this.client.handle("requestPermission", (p) => this.onServerRequest.requestPermission(p));
    this.client.handle("beforeCompact", (p) => this.onServerRequest.beforeCompact(p));
    this.client.onClose((info) => this.closed(describeClose(info)));
  }

  private record(text: string): void {
    let msg: WireMessage;
    try {
      msg = JSON.parse(text) as WireMessage;
    } catch {
      this.garbage.push(text);
      return;
    }
    this.received.push(msg);
    if (msg && typeof msg === "object") {
      if (isEventMessage(msg)) {
        const ev = { ...msg.params, type: msg.method } as Ev;
        this.events.push(ev);
        if (!isEventName(msg.method)) this.violations.push(`unknown event ${msg.method}`);
      } else if ("result" in msg || "error" in msg) {
        if (msg.id === null && msg.error) this.nullIdErrors.push(msg as ErrorMessage);
        if (typeof msg.id === "number") this.responses.set(msg.id, msg as ResultMessage | ErrorMessage);
      }
    }
    this.poke();
  }

  /** The connection ended: every wait and call in progress fails. */
  closed(why: string): void {
    if (this.closedWith) return;
    this.closedWith = new Error(`${this.label}: connection closed (${why})`);
    this.gone(this.closedWith);
    for (const w of this.waiters) w.fail(this.closedWith);
    this.waiters.clear();
  }

  get isClosed(): boolean {
    return this.closedWith !== null;
  }

  private poke(): void {
    for (const w of [...this.waiters]) if (w.check()) this.waiters.delete(w);
  }

  /** Resolves when `test()` returns a value other than undefined; rejects after timeoutMs (or when `test` throws). */
  until<T>(test: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout;
      const w: Waiter = {
        check: () => {
          let v: T | undefined;
          try {
            v = test();
          } catch (err) {
            clearTimeout(timer);
            reject(err);
            return true;
          }
          if (v === undefined) return false;
          clearTimeout(timer);
          resolve(v);
          return true;
        },
        fail: (err) => {
          clearTimeout(timer);
          reject(new Error(`${err.message} while waiting for ${what}`));
        },
      };
      if (w.check()) return;
      if (this.closedWith) return w.fail(this.closedWith);
      timer = setTimeout(() => {
        this.waiters.delete(w);
        const tail = this.events.slice(-8).map((e) => `${e.seq}:${e.type}`).join(" ");
        reject(new Error(`${this.label}: timed out after ${timeoutMs} ms waiting for ${what} (last events: ${tail})`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** Sends text as it is (one line or frame), past the client: for input that is wrong on purpose. Dropped once the connection is gone. */
  sendRaw(text: string): void {
    try {
      this.transport.send(text);
    } catch {
      // the connection is gone (the transport refuses): like a write to a closed pipe, nothing happens
    }
  }

  /** Sends an object as JSON, past the client (notifications, hand-made requests). */
  send(msg: object): void {
    this.sendRaw(JSON.stringify(msg));
  }

  /**
   * Sends a request and resolves with the whole response (result or error): the very object
   * recorded in `received`. When the connection closes first, an error with code 0.
   */
  async call<M extends MethodName>(method: M, params?: ParamsOf<M>, timeoutMs = 15_000): Promise<Response<M>> {
    if (this.closedWith) throw this.closedWith;
    this.lastSentId = undefined;
    const answered = this.client.call(method, params as ParamsOf<M>, { timeoutMs }).then(
      () => undefined,
      (err: unknown) => err,
    );
    const id = this.lastSentId;
    const outcome = await Promise.race([answered, this.whenGone]);
    if (outcome === undefined || outcome instanceof PithRpcError) {
      const response = id === undefined ? undefined : this.responses.get(id);
      if (response) {
        this.responses.delete(id!);
        return response as Response<M>;
      }
    }
    if (outcome instanceof PithTimeoutError) throw new Error(`${this.label}: no answer to ${method} (id ${id}) within ${timeoutMs} ms`);
    // (TS keeps the narrowing of the check above across the await: read it afresh)
    const gone = this.closedWith as Error | null;
    if (outcome instanceof PithConnectionError || (gone !== null && outcome === gone)) {
      return { jsonrpc: "2.0", id: null, error: { code: 0, message: gone?.message ?? (outcome as Error).message } };
    }
    throw outcome;
  }

  /** Sends a request; resolves with its result, rejects with an RpcError. */
  async request<M extends MethodName>(method: M, params: ParamsOf<M>, timeoutMs?: number): Promise<ResultOf<M>> {
    const msg = await this.call(method, params, timeoutMs);
    if (msg.error) throw new RpcError(msg.error.code, msg.error.message, msg.error.data);
    return msg.result;
  }

  /**
   * Sends a request that must fail; resolves with its error object. Any method name and any
   * params: this is how tests send what the protocol does not allow.
   */
  async expectError(method: string, params: unknown, code: number): Promise<WireError> {
    const msg = await this.call(method as MethodName, params as never);
    if (!msg.error) throw new Error(`${method} ${JSON.stringify(params)?.slice(0, 200)}: expected error ${code}, got result ${JSON.stringify(msg.result)?.slice(0, 300)}`);
    if (msg.error.code !== code) throw new Error(`${method} ${JSON.stringify(params)?.slice(0, 200)}: expected error ${code}, got ${JSON.stringify(msg.error).slice(0, 500)}`);
    return msg.error;
  }

  initialize(capabilities?: ParamsOf<"initialize">["capabilities"]): Promise<ResultOf<"initialize">> {
    return this.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: "daemon-tests", version: "0" }, ...(capabilities ? { capabilities } : {}) });
  }

  /** The index the next event will get in `events` (to wait for events after this point). */
  mark(): number {
    return this.events.length;
  }

  /** The first event from index `from` that matches. */
  waitEvent<T extends Ev>(pred: (e: Ev) => e is T, what: string, from?: number, timeoutMs?: number): Promise<T>;
  waitEvent(pred: (e: Ev) => unknown, what: string, from?: number, timeoutMs?: number): Promise<Ev>;
  waitEvent(pred: (e: Ev) => unknown, what: string, from = 0, timeoutMs?: number): Promise<Ev> {
    return this.until(() => this.events.slice(from).find(pred), what, timeoutMs);
  }

  /** The next null-id error answer after `from` of them were seen. */
  waitNullIdError(from: number, timeoutMs?: number): Promise<ErrorMessage> {
    return this.until(() => this.nullIdErrors[from], "an error answer with id null", timeoutMs);
  }

  /** A session's events from index `from` on. */
  sessionEvents(sessionId: string, from = 0): Ev[] {
    return this.events.slice(from).filter((e) => e.sessionId === sessionId);
  }

  /** Waits for the run's agent_end and returns the session's events from `from` to it. */
  async runEvents(sessionId: string, runId: string, from = 0, timeoutMs?: number): Promise<Ev[]> {
    const end = await this.waitEvent((e) => e.sessionId === sessionId && e.type === "agent_end" && e.runId === runId, `agent_end of run ${runId}`, from, timeoutMs);
    const all = this.sessionEvents(sessionId, from);
    return all.slice(0, all.indexOf(end) + 1);
  }

  /** Sends a prompt and waits for the run to end; returns its runId and the session's events from before the prompt to agent_end. */
  async runPrompt(sessionId: string, text: string, timeoutMs?: number): Promise<{ runId: string; events: Ev[] }> {
    const from = this.mark();
    const { runId } = await this.request("prompt", { sessionId, text });
    return { runId, events: await this.runEvents(sessionId, runId, from, timeoutMs) };
  }
}

function describeClose(info: CloseInfo): string {
  if (info.code !== undefined) return `close ${info.code}`;
  return info.reason ?? "closed";
}
