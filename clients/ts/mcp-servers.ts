// A session's MCP servers as a client shows them: the list listMcpServers answers, kept current by
// mcp_server events (each carries one server whole), and which server a tool call belongs to.
// Imports only types from protocol/ (no zod in a browser bundle).
import type { McpServerInfo } from "../../protocol/index.js";

export type { McpServerInfo };

/** Where an MCP tool call goes: the server's name as the user gave it, the tool's as the server does. */
export interface McpToolOrigin {
  readonly server: string;
  readonly tool: string;
}

/** The list with `server` in it: in place of the entry of the same name, else at the end. */
export function withMcpServer(list: readonly McpServerInfo[], server: McpServerInfo): readonly McpServerInfo[] {
  const i = list.findIndex((s) => s.name === server.name);
  return i < 0 ? [...list, server] : list.map((s, j) => (j === i ? server : s));
}

/**
 * The MCP server and tool of a call named `name` (the model's name): from its result's
 * `details.mcp` (stored with the result, so it holds for a session reopened without that
 * server), else from the session's servers, else read from the name itself (mcp__<server>__<tool>,
 * each part as reduced for the model). undefined: a built-in tool.
 */
export function mcpToolOrigin(name: string, servers: readonly McpServerInfo[], details?: unknown): McpToolOrigin | undefined {
  const mcp = (details as { mcp?: { server?: unknown; tool?: unknown } } | null | undefined)?.mcp;
  if (typeof mcp?.server === "string" && typeof mcp.tool === "string") return { server: mcp.server, tool: mcp.tool };
  for (const s of servers) {
    const t = s.tools.find((x) => x.name === name);
    if (t) return { server: s.name, tool: t.serverName };
  }
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? { server: m[1], tool: m[2] } : undefined;
}
