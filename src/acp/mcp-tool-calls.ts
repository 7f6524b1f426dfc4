// A call of an MCP server's tool as an ACP client shows it, like a built-in's: titled by the
// tool's own name and its server's ("echo (MCP notes)"), of kind "read" when the server marked it
// read-only and "other" otherwise (what it does is the server's to say; ACP has no kind for
// "unknown effects"). The session's servers name the tool where one lists it; a call whose server
// is gone (a replayed session opened without it: stored entries keep the model's full name,
// mcp__<server>__<tool>) is read from that name, its effects then unknown.
import type { McpServerInfo } from "../../protocol/mcp.js";
import { terminalSafe } from "../log/terminal-safe.js";
import { oneLine } from "./content.js";

export interface McpToolRef {
  /** the server's name, as the user or the editor gave it */
  server: string;
  /** the tool's name, as the server gives it */
  tool: string;
  readOnly: boolean;
}

const PREFIX = "mcp__";

/** The MCP tool the model's tool name stands for, or undefined for any other tool. */
export function mcpToolRef(name: string, servers?: readonly McpServerInfo[]): McpToolRef | undefined {
  for (const s of servers ?? []) {
    const t = s.tools.find((tool) => tool.name === name);
    if (t) return { server: s.name, tool: t.serverName, readOnly: t.readOnly };
  }
  if (!name.startsWith(PREFIX)) return undefined;
  const rest = name.slice(PREFIX.length);
  const cut = rest.indexOf("__");
  if (cut <= 0 || cut + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2), readOnly: false };
}

/** Names from a server (or an editor) are shown, never obeyed: one line, controls written out. */
function shown(text: string, max: number): string {
  return terminalSafe(oneLine(text, max));
}

export function mcpToolTitle(ref: McpToolRef): string {
  return `${shown(ref.tool, 60)} (MCP ${shown(ref.server, 40)})`;
}
