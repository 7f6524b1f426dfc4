// One request from checked params to its answer, by its row in protocol/methods.ts: the gate of
// the row's scope is taken before the handler runs (src/host/method-gate.ts), and what a
// non-read request stored is durable before it is acknowledged (a shared store commits after
// the local write; the file store syncs before this point).
import { methods, sessionIdOf, type MethodName, type ParsedParamsOf, type ResultOf } from "../../protocol/index.js";
import { underScope } from "../host/method-gate.js";
import type { SessionHost } from "../host/session-host.js";
import type { ConnState } from "./connection-state.js";
import type { Handler } from "./method-handlers.js";

export async function dispatch<M extends MethodName>(host: SessionHost, method: M, params: ParsedParamsOf<M>, state: ConnState, handler: Handler<M>): Promise<ResultOf<M>> {
  const result = await underScope(host, method, params, (held) => handler(params, state, held));
  if (methods[method].scope !== "read") {
    // the session named, or the one the request made (createSession, openSession by file, forkSession)
    const answered: ResultOf<MethodName> = result;
    const sessionId = sessionIdOf(params) ?? ("sessionId" in answered ? answered.sessionId : undefined);
    if (sessionId !== undefined) await host.durable(sessionId);
  }
  return result;
}
