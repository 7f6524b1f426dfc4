// The server's own requests to clients: requestPermission before a tool runs in "ask" mode, and
// the beforeCompact hook. Only a client that said it can answer (initialize capabilities) and
// follows the session is asked, the first such one; no client, an error, a bad answer or a
// timeout is the safe default (deny; let pith summarize).
import type { Logger } from "pino";
import { serverRequests } from "../../protocol/index.js";
import type { BeforeCompactDecision, BeforeCompactRequest, PermissionOutcome, PermissionRequest } from "../host/ports.js";
import type { ConnState } from "./connection-state.js";

const PERMISSION_TIMEOUT_MS = 120_000;
const HOOK_TIMEOUT_MS = 30_000;

export async function askPermission(connections: Iterable<ConnState>, request: PermissionRequest, log: Logger): Promise<PermissionOutcome> {
  for (const state of connections) {
    if (!state.capabilities.permissions || !state.subs.has(request.sessionId)) continue;
    try {
      const answer = await state.peer.request("requestPermission", request, { timeoutMs: PERMISSION_TIMEOUT_MS });
      const parsed = serverRequests.requestPermission.result.safeParse(answer);
      return parsed.success ? parsed.data.outcome : "deny";
    } catch (err) {
      log.warn({ err, sessionId: request.sessionId }, "requestPermission failed; denying");
      return "deny";
    }
  }
  return "deny";
}

export async function beforeCompact(connections: Iterable<ConnState>, request: BeforeCompactRequest, log: Logger): Promise<BeforeCompactDecision> {
  for (const state of connections) {
    if (!state.capabilities.hooks.includes("beforeCompact") || !state.subs.has(request.sessionId)) continue;
    try {
      const answer = await state.peer.request("beforeCompact", request, { timeoutMs: HOOK_TIMEOUT_MS });
      const parsed = serverRequests.beforeCompact.result.safeParse(answer);
      return parsed.success ? parsed.data : { action: "default" };
    } catch (err) {
      log.warn({ err, sessionId: request.sessionId }, "beforeCompact failed; compacting as usual");
      return { action: "default" };
    }
  }
  return { action: "default" };
}
