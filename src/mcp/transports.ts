// How pith reaches a server entry: a stdio server is started (stdio-transport.ts), an HTTP one is
// spoken to by streamable HTTP with the entry's headers and, when `bearerTokenEnv` names a
// variable, `Authorization: Bearer <its value>` (the key stays in the environment, never in
// settings; a variable that is not set is an error naming it, not a request without the key).
import { StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { isAbsolute, resolve } from "node:path";
import type { McpServerConfig } from "../../protocol/mcp.js";
import { serverEnvironment } from "./server-env.js";
import { StdioTransport } from "./stdio-transport.js";

/** A transport, with what a stdio one knows of its process. */
export type ServerTransport = Transport & { readonly pid?: number; readonly stderr?: string };

export function connectTransport(config: McpServerConfig, where: { cwd: string; env: NodeJS.ProcessEnv }): ServerTransport {
  if ("command" in config) {
    const cwd = config.cwd === undefined ? where.cwd : isAbsolute(config.cwd) ? config.cwd : resolve(where.cwd, config.cwd);
    return new StdioTransport({ command: config.command, args: config.args ?? [], env: serverEnvironment(config, where.env), cwd });
  }
  const headers: Record<string, string> = { ...config.headers };
  if (config.bearerTokenEnv !== undefined) {
    const token = where.env[config.bearerTokenEnv];
    if (!token) throw new Error(`the variable ${config.bearerTokenEnv} (its bearerTokenEnv) is not set in the daemon's environment`);
    headers.Authorization = `Bearer ${token}`;
  }
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
}
