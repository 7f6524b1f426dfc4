// What the editor is told about its session's MCP servers: a server that failed (to start, or
// again after its restart), with the reason, once per failure; and an entry of its own list pith
// left out (SSE). A notice where the client shows them, a line in the conversation otherwise (as
// every pith notice, content.ts). The session keeps working without that server's tools.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { McpServerInfo } from "../../protocol/mcp.js";
import { noticeOrNote, type ClientFeatures } from "./content.js";

/** The failures already told, by server: the same failure is not told twice, a new one is. */
export type McpFailuresTold = Map<string, string>;

/** The update for a server's new state (`key`: unique to this state, for a line's messageId): a notice when it has failed and that was not told yet. */
export function mcpServerUpdates(server: McpServerInfo, told: McpFailuresTold, features: Pick<ClientFeatures, "notices">, key: string): SessionUpdate[] {
  if (server.state !== "failed") {
    // connecting again (a restart) or ready: a later failure is news
    told.delete(server.name);
    return [];
  }
  const reason = server.error ?? "no reason was given";
  if (told.get(server.name) === reason) return [];
  told.set(server.name, reason);
  return [noticeOrNote(features, "warning", `MCP server "${server.name}" failed; its tools are not available`, reason, `mcp:${key}`)];
}

/** An entry of the editor's list that pith does not connect. */
export function mcpSkippedUpdate(message: string, features: Pick<ClientFeatures, "notices">, key: string): SessionUpdate {
  return noticeOrNote(features, "warning", message, undefined, `mcp-skipped:${key}`);
}
