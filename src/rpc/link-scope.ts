// What another node may ask of this one over a link authenticated with the cluster token. The
// cluster token is shared by every node, so it is a weaker secret than a node's client token; a
// link exists only to relay a client of the other node to a session this node owns. It may do
// exactly that: initialize, open a stored session by id, and the session's own methods. It may
// not act as a client of this node: change or read its settings, list or create sessions, list
// models; nor run the user's unsandboxed `bash`, which would make the cluster token a shell on
// every node (a client that needs `bash` on a session another node owns connects to that node
// with its client token: SessionMoved's data names the node's URL).
import { z } from "zod";
import { methods, type MethodName } from "../../protocol/methods.js";
import { PG_LOCATOR_PREFIX } from "../session/postgres/listing.js";

/**
 * The session methods a relayed client uses, passed on as they come: every method of the table
 * addressed to one session (its params carry `sessionId`), but the user's `bash`. Read from the
 * table, so a session method added to the protocol is relayed without a second list to keep (a
 * row's `notOverNodeLink` says why one is not).
 */
const SESSION_METHODS: ReadonlySet<MethodName> = new Set(
  (Object.entries(methods) as [MethodName, { params: z.ZodType }][])
    .filter(([name, def]) => !("notOverNodeLink" in methods[name]) && def.params instanceof z.ZodObject && "sessionId" in def.params.shape)
    .map(([name]) => name),
);

/** Undefined when a node link may call `method` with these (checked) params, else why not. */
export function linkCallRefusal(method: MethodName, params: unknown): string | undefined {
  if (method === "initialize" || SESSION_METHODS.has(method)) return undefined;
  if (method === "openSession") {
    const p = params as { sessionId?: unknown; sessionFile?: unknown };
    // a stored session, never a file on this node's disk
    if (typeof p.sessionId === "string" || (typeof p.sessionFile === "string" && p.sessionFile.startsWith(PG_LOCATOR_PREFIX))) return undefined;
    return "a node link opens stored sessions by id only";
  }
  const row = methods[method];
  if ("notOverNodeLink" in row) return row.notOverNodeLink;
  return `${method} is not relayed: a node link may only relay a client's session requests`;
}
