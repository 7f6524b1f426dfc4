// The one operation layer: every front (the JSON-RPC server, ACP, the CLI) and the host's own
// create perform a session operation here, by its row in protocol/methods.ts. The row decides
// what the operation takes before it runs (an exclusive one the session's slot, or joining the
// running run when its params say how), and every scope but "read" is answered only once what it
// stored is durable (a shared store has committed it; the file store synced before this point).
// A front that skips this layer cannot get the `Held` an exclusive operation needs, and the
// architecture test finds any other way around it (test/architecture/operation-layer.test.ts).
import { methods, sessionIdOf, type ExclusiveMethod, type MethodName, type ParsedParamsOf, type ScopeOf } from "../../../protocol/index.js";
import type { Held } from "./exclusive.js";
import { LiveSession } from "../live/live-session.js";

/** What an operation receives: a `Held` for an exclusive one, else nothing. */
export type HeldFor<M extends MethodName> = ScopeOf<M> extends "exclusive" ? Held : undefined;

/** Where the layer finds a session, and waits for what it stored to be durable. */
export interface OperationSessions {
  /** the live session (SessionNotFound / SessionMoved when it is not live here) */
  get(sessionId: string): LiveSession;
  /** resolves once what the session stored so far is durable; at once for a session not live here */
  durable(sessionId: string): Promise<void>;
}

function isExclusive(method: MethodName): method is ExclusiveMethod {
  return methods[method].scope === "exclusive";
}

/** The session an operation made: the live session itself, or a result naming it (createSession, openSession by file, forkSession). */
function madeSessionId(result: unknown): string | undefined {
  if (result instanceof LiveSession) return result.id;
  if (typeof result !== "object" || result === null) return undefined;
  return "sessionId" in result && typeof result.sessionId === "string" ? result.sessionId : undefined;
}

/** Runs `fn` as `method` with `params`: under its scope, answered once durable (see above). */
export async function perform<M extends MethodName, T>(sessions: OperationSessions, method: M, params: ParsedParamsOf<M>, fn: (held: HeldFor<M>) => T | Promise<T>): Promise<T> {
  const result = isExclusive(method) ? await admitted(sessions, method, params as ParsedParamsOf<ExclusiveMethod>, fn as (held: Held) => T | Promise<T>) : await fn(undefined as HeldFor<M>);
  if (methods[method].scope !== "read") {
    const sessionId = sessionIdOf(params) ?? madeSessionId(result);
    if (sessionId !== undefined) await sessions.durable(sessionId);
  }
  return result;
}

/**
 * An exclusive operation, admitted by the session's slot (refused there when it cannot run now).
 * One that stores something when it ends is tracked, so closing the session waits for it; a run is
 * waited for as the run.
 */
function admitted<M extends ExclusiveMethod, T>(sessions: OperationSessions, method: M, params: ParsedParamsOf<M>, fn: (held: Held) => T | Promise<T>): T | Promise<T> {
  const session = sessions.get(params.sessionId);
  const result = session.slot.admit(method, params, fn);
  if (method !== "prompt" && result instanceof Promise) session.track(result);
  return result;
}
