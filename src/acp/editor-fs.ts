// The editor's buffers for the file tools (ACP fs/read_text_file and fs/write_text_file), each
// only when the client advertised it (clientCapabilities.fs). Paths arrive here already checked
// by the tools (editor-files.ts): this only carries the request.
import * as acp from "@agentclientprotocol/sdk";
import type { EditorFiles } from "../tools/editor-ports.js";

export function editorFiles(client: acp.AgentContext, sessionId: string, caps: acp.FileSystemCapabilities | undefined): EditorFiles | undefined {
  const read = caps?.readTextFile === true;
  const write = caps?.writeTextFile === true;
  if (!read && !write) return undefined;
  const files: EditorFiles = {};
  if (read) files.readTextFile = async (path) => (await client.request(acp.methods.client.fs.readTextFile, { sessionId, path })).content;
  if (write) {
    files.writeTextFile = async (path, content) => {
      await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path, content });
    };
  }
  return files;
}
