// The typed surface over call(): a helper per common method (positional arguments for what is
// always needed) and `rpc.<method>(params)` for every method. PithClient extends this class;
// initialize and closeSession are PithClient's own, since they touch its state.
import type { MethodName, ParamsOf, ResultOf } from "../../protocol/index.js";
import type { CallOptions } from "./calls.js";

type Rpc = { [M in MethodName]: (params: ParamsOf<M>, options?: CallOptions) => Promise<ResultOf<M>> };

export abstract class TypedMethods {
  abstract call<M extends MethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>>;

  /** Every method, typed: `client.rpc.setModel({sessionId, model})`. */
  readonly rpc: Rpc = new Proxy({} as Rpc, {
    // not "then": `await client.rpc` must not look like a promise
    get: (_target, method) =>
      typeof method === "string" && method !== "then" ? (params: never, options?: CallOptions) => this.call(method as MethodName, params, options) : undefined,
  });

  createSession(params: ParamsOf<"createSession"> = {}, options?: CallOptions) {
    return this.call("createSession", params, options);
  }
  openSession(params: ParamsOf<"openSession">, options?: CallOptions) {
    return this.call("openSession", params, options);
  }
  listSessions(cwd?: string, options?: CallOptions) {
    return this.call("listSessions", cwd === undefined ? {} : { cwd }, options);
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
}
