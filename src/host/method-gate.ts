// What a method's scope (its row in protocol/methods.ts) takes before the method runs. Both
// front ends go through here: the JSON-RPC dispatcher (src/rpc/dispatch.ts) for every request,
// and ACP (src/acp) for the operations it maps onto pith's methods. The gate sits in the host,
// not in either front end, because the slot it guards is the session's: an ACP prompt and a
// JSON-RPC compact of the same session must refuse each other.
//
// - exclusive: the session's slot (exclusive.ts), one at a time, refused while held; the
//   operation gets the `Held` it needs (LiveSession's exclusive operations take one)
// - session, read, global: nothing to take. A session change is applied at once even while the
//   session is busy (a few synchronous lines, so requests are applied in the order they arrive);
//   a read changes nothing; a global method works on the set of sessions or the settings, which
//   the host guards where it must (concurrent opens of one session share one open).
import { methods, type ExclusiveMethod, type MethodName, type ParsedParamsOf, type ScopeOf } from "../../protocol/index.js";
import type { Held } from "./exclusive.js";
import type { LiveSession } from "./live-session.js";

/** What a method's operation receives from the gate: a `Held` for an exclusive one, else nothing. */
export type HeldFor<M extends MethodName> = ScopeOf<M> extends "exclusive" ? Held : undefined;

/** Where the gate finds a session (SessionHost.get: SessionNotFound when it is not open here). */
export interface LiveSessions {
  get(sessionId: string): LiveSession;
}

function isExclusive(method: MethodName): method is ExclusiveMethod {
  return methods[method].scope === "exclusive";
}

/** Runs `fn` under what `method`'s scope takes (see above); the refusal, if any, is thrown before `fn` runs. */
export function underScope<M extends MethodName, T>(sessions: LiveSessions, method: M, params: ParsedParamsOf<M>, fn: (held: HeldFor<M>) => T): T {
  if (!isExclusive(method)) return fn(undefined as HeldFor<M>);
  const named = params as ParsedParamsOf<ExclusiveMethod>;
  return sessions.get(named.sessionId).admit(method, named, fn as (held: Held) => T);
}
