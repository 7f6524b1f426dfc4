// What the editor of this connection's client lends a session's tools, from the capabilities it
// advertised at initialize: its terminal. A client that advertised none gets pith's own processes.
//
// clientCapabilities.fs (readTextFile, writeTextFile) is accepted and not used: the editor opens
// the path it is given itself, after any check pith can make, so a directory on the way swapped
// for a link meanwhile (another session's command can do that) sends the read or write into
// pith's home or out of the cwd. The file tools read and write through descriptors pith opened
// and checked (confined-fs.ts); the editor sees their writes on disk (docs/acp.md).
import type * as acp from "@agentclientprotocol/sdk";
import type { EditorPorts } from "../tools/editor-ports.js";
import { editorTerminal } from "./editor-terminal.js";

export function editorPortsFor(client: acp.AgentContext, sessionId: string, caps: acp.ClientCapabilities): EditorPorts | undefined {
  return caps.terminal === true ? { terminal: editorTerminal(client, sessionId) } : undefined;
}
