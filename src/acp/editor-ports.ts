// What the editor of this connection's client lends a session's tools, from the capabilities it
// advertised at initialize: its buffers (fs.readTextFile, fs.writeTextFile, each on its own) and
// its terminal. A client that advertised neither gets pith's own disk and processes.
import type * as acp from "@agentclientprotocol/sdk";
import type { EditorPorts } from "../tools/editor-ports.js";
import { editorFiles } from "./editor-fs.js";
import { editorTerminal } from "./editor-terminal.js";

export function editorPortsFor(client: acp.AgentContext, sessionId: string, caps: acp.ClientCapabilities): EditorPorts | undefined {
  const files = editorFiles(client, sessionId, caps.fs);
  const terminal = caps.terminal === true ? editorTerminal(client, sessionId) : undefined;
  if (!files && !terminal) return undefined;
  return { ...(files ? { files } : {}), ...(terminal ? { terminal } : {}) };
}
