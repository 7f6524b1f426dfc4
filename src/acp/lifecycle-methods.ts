// session/new, load, resume, list, close and delete: the sessions an editor starts, opens, lists
// and ends. Sessions are the host's; the connection follows the ones it created or opened.
import * as acp from "@agentclientprotocol/sdk";
import type { McpServers } from "../../protocol/mcp.js";
import type { LiveSession } from "../host/live/live-session.js";
import { clientMcpServers } from "./mcp-servers.js";
import { historyUpdates } from "./replay.js";
import { BadCursor, pageOf } from "./session-pages.js";
import { absolute, acpError, type ConnectionState } from "./connection-state.js";

export async function newSession(cx: ConnectionState, params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
  // a cwd pith will not use (missing, pith's own folder) is the editor's -32602 with its reason, not an internal error
  const cwd = absolute(params.cwd);
  const { servers, skipped } = editorServers(cx, params.mcpServers);
  const p = { cwd, ...servers };
  const s = cx.follow(await cx.host.perform("createSession", p, () => cx.host.create(p)).catch((err) => Promise.reject(acpError(err))));
  cx.afterResponse(s.id, skipped);
  return { sessionId: s.id, ...cx.described(s) };
}

export async function loadSession(cx: ConnectionState, params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
  absolute(params.cwd);
  const { servers, skipped } = editorServers(cx, params.mcpServers);
  const live = await openLive(cx, params.sessionId, servers);
  const s = cx.follow(live);
  // the whole active branch from the root, not only what the model sees after the last summary
  for (const update of historyUpdates(live.file.branchPath(), { cwd: live.file.cwd, compaction: cx.features().compaction })) cx.send(s.id, update);
  cx.afterResponse(s.id, skipped);
  return cx.described(s);
}

export async function resumeSession(cx: ConnectionState, params: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
  absolute(params.cwd);
  const { servers, skipped } = editorServers(cx, params.mcpServers);
  const live = await openLive(cx, params.sessionId, servers);
  const s = cx.follow(live);
  cx.afterResponse(s.id, skipped);
  return cx.described(s);
}

export async function listSessions(cx: ConnectionState, params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
  if (params.cwd) absolute(params.cwd);
  let paged: ReturnType<typeof pageOf>;
  try {
    paged = pageOf(await cx.host.list(params.cwd ?? undefined), params.cursor);
  } catch (err) {
    if (err instanceof BadCursor) throw acp.RequestError.invalidParams({ cursor: params.cursor }, err.message);
    throw err;
  }
  const sessions = paged.page.map((x) => ({ sessionId: x.id, cwd: x.cwd, title: x.name ?? (x.firstMessage.slice(0, 80) || null), updatedAt: x.modified }));
  return paged.nextCursor ? { sessions, nextCursor: paged.nextCursor } : { sessions };
}

export async function closeSession(cx: ConnectionState, params: acp.CloseSessionRequest): Promise<acp.CloseSessionResponse> {
  const s = cx.get(params.sessionId);
  cx.unfollow(s.id);
  await cx.host.perform("closeSession", { sessionId: s.id }, () => cx.host.close(s.id)).catch((err) => Promise.reject(acpError(err, params.sessionId)));
  return {};
}

export async function deleteSession(cx: ConnectionState, params: acp.DeleteSessionRequest): Promise<acp.DeleteSessionResponse> {
  cx.unfollow(params.sessionId);
  const sessionId = params.sessionId;
  await cx.host.perform("deleteSession", { sessionId }, () => cx.host.delete(sessionId)).catch((err) => Promise.reject(acpError(err, sessionId)));
  return {};
}

/** session/load and session/resume: pith's openSession by id, with the editor's MCP servers (joining the session if it is live already). */
function openLive(cx: ConnectionState, sessionId: string, servers: { mcpServers?: McpServers }): Promise<LiveSession> {
  const p = { sessionId, ...servers };
  return cx.host.perform("openSession", p, () => cx.host.open(p)).catch((err) => Promise.reject(acpError(err, sessionId)));
}

/**
 * The editor's MCP servers as createSession / openSession take them (a bad entry is -32602 before
 * anything opens), and the notices for those left out, sent after the response; each note is logged.
 */
function editorServers(cx: ConnectionState, list: acp.NewSessionRequest["mcpServers"] | undefined): { servers: { mcpServers?: McpServers }; skipped: string[] } {
  const { servers, notes } = clientMcpServers(list);
  for (const note of notes) cx.log.warn({ mcpServer: note.server }, note.message);
  return { servers: servers ? { mcpServers: servers } : {}, skipped: notes.filter((n) => n.shown).map((n) => n.message) };
}
