// The server's own requests to clients: requestPermission before a tool runs in "ask" mode, and
// the beforeCompact hook. Only a client that said it can answer (initialize capabilities) and
// follows the session is asked, the first such one; no client, an error, a bad answer or a
// timeout is the safe default (deny; let pith summarize). Each request is typed by its row in
// protocol/server-requests.ts: its params, and the answer checked against its result schema.
import type { Logger } from "pino";
import { serverRequests, type ServerRequestName, type ServerRequestParams } from "../../protocol/index.js";
import type { z } from "zod";
import type { BeforeCompactDecision, BeforeCompactRequest, PermissionOutcome, PermissionRequest } from "../host/ports.js";
import type { ConnState } from "./connection-state.js";

const PERMISSION_TIMEOUT_MS = 120_000;
const HOOK_TIMEOUT_MS = 30_000;

type Answer<R extends ServerRequestName> = z.output<(typeof serverRequests)[R]["result"]>;

/** Asks the first client that can answer `request`; `fallback` for none, an error, a bad answer or a timeout. */
async function askFirst<R extends ServerRequestName>(
  connections: Iterable<ConnState>,
  method: R,
  params: ServerRequestParams<R>,
  timeoutMs: number,
  canAnswer: (state: ConnState) => boolean,
  log: Logger,
): Promise<Answer<R> | undefined> {
  for (const state of connections) {
    if (!canAnswer(state) || !state.subs.has(params.sessionId)) continue;
    try {
      const answer = await state.peer.request(method, params, { timeoutMs });
      const schema: z.ZodType = serverRequests[method].result;
      const parsed = schema.safeParse(answer);
      // the output of R's own result schema (TypeScript does not follow the generic R into it)
      return parsed.success ? (parsed.data as Answer<R>) : undefined;
    } catch (err) {
      log.warn({ err, sessionId: params.sessionId }, `${method} failed; taking the safe default`);
      return undefined;
    }
  }
  return undefined;
}

export async function askPermission(connections: Iterable<ConnState>, request: PermissionRequest, log: Logger): Promise<PermissionOutcome> {
  const answer = await askFirst(connections, "requestPermission", request, PERMISSION_TIMEOUT_MS, (s) => s.capabilities.permissions, log);
  return answer?.outcome ?? "deny";
}

export async function beforeCompact(connections: Iterable<ConnState>, request: BeforeCompactRequest, log: Logger): Promise<BeforeCompactDecision> {
  const answer = await askFirst(connections, "beforeCompact", request, HOOK_TIMEOUT_MS, (s) => s.capabilities.hooks.includes("beforeCompact"), log);
  return answer ?? { action: "default" };
}
