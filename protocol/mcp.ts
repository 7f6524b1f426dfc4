// MCP servers on the wire: an entry of the user's `mcpServers` setting (the same shape a client
// passes to createSession / openSession for its session), and what listMcpServers answers.
import { z } from "zod";

/** What a server entry may give besides how to reach it. */
const McpServerCommon = {
  /** default true; a disabled server is listed as "disabled" and never started */
  enabled: z.boolean().optional(),
  /** how long the server may take to start and list its tools (default 10,000) */
  startupTimeoutMs: z.int().positive().max(600_000).optional(),
  /** how long one tool call may take (default 60,000); each progress notification starts it again */
  requestTimeoutMs: z.int().positive().max(3_600_000).optional(),
  /** which of the server's tools the model gets, by the names the server gives them */
  tools: z.strictObject({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).optional(),
};

/** A server pith starts: a command speaking MCP on its stdin and stdout. */
const McpStdioServer = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** variables the server gets beside the allow-listed base (never the daemon's own) */
  env: z.record(z.string(), z.string()).optional(),
  /** the daemon's variables the server gets as they are, by name (a key need not sit in settings) */
  passEnv: z.array(z.string().min(1)).optional(),
  /** its working directory (default: the session's) */
  cwd: z.string().min(1).optional(),
  ...McpServerCommon,
});

/** A server pith reaches by streamable HTTP. */
const McpHttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** sent with every request as given */
  headers: z.record(z.string(), z.string()).optional(),
  /** the environment variable whose value is sent as `Authorization: Bearer <value>` (a key never sits in settings) */
  bearerTokenEnv: z.string().min(1).optional(),
  ...McpServerCommon,
});

export const McpServerConfig = z.union([McpStdioServer, McpHttpServer], { error: "an MCP server is either {command, args?, env?} or {url, headers?, bearerTokenEnv?}" });

/** A server's name as the user gives it (the model sees it reduced, in each tool's name). */
const McpServerName = z.string().min(1).max(200);

/** `mcpServers`: servers by name. */
export const McpServers = z.record(McpServerName, McpServerConfig);

export const McpServerState = z.enum(["connecting", "ready", "failed", "disabled"]);

/** One server of a session, as listMcpServers and the mcp_server event show it. */
export const McpServerInfo = z.object({
  name: McpServerName,
  /** where the entry came from: the user's settings or the client that opened the session */
  source: z.enum(["settings", "client"]),
  transport: z.enum(["stdio", "http"]),
  state: McpServerState,
  tools: z.array(
    z.object({
      /** as the model sees it: mcp__<server>__<tool>, reduced to A-Z a-z 0-9 _ - and at most 64 characters */
      name: z.string(),
      /** as the server gives it */
      serverName: z.string(),
      /** the server marked it read-only (readOnlyHint): it runs without asking in "ask" and runs in "readonly" */
      readOnly: z.boolean(),
    }),
  ),
  /** why it failed (state "failed") */
  error: z.string().optional(),
});

export type McpServerConfig = z.output<typeof McpServerConfig>;
export type McpServers = z.output<typeof McpServers>;
export type McpServerInfo = z.output<typeof McpServerInfo>;
export type McpServerState = z.output<typeof McpServerState>;
