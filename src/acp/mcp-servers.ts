// The MCP servers an editor passes in session/new, load and resume, as pith's `mcpServers` (the
// settings' shape, keyed by name: protocol/mcp.ts). ACP lists them with their variables and
// headers as {name, value} pairs; pith keys both by name. What pith cannot connect is said, not
// dropped silently: an SSE server (pith speaks stdio and streamable HTTP) is left out with a note
// the editor is shown, a name given twice keeps the later entry (as a later key of a JSON object
// would) with a note for the log, and an entry that could never start (no command, a URL that is
// not http(s), a header no HTTP request can carry) is the request's -32602 naming it.
import * as acp from "@agentclientprotocol/sdk";
import { McpServers, type McpServerConfig } from "../../protocol/mcp.js";

type AcpMcpServer = acp.NewSessionRequest["mcpServers"][number];

/** Something about the editor's list the user should hear of: shown (an entry left out) or logged (a name given twice). */
interface McpServersNote {
  server: string;
  /** shown to the user: an entry not connected; else for the log only */
  shown: boolean;
  message: string;
}

export interface ClientMcpServers {
  /** undefined when the editor passed none (nothing to add to a live session) */
  servers: McpServers | undefined;
  notes: McpServersNote[];
}

/** An HTTP header name (RFC 9110 token): a request with any other cannot be sent. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** what a header value or a variable may not hold */
const LINE_BREAK_OR_NUL = /[\r\n\u0000]/;

function invalid(index: number, name: unknown, why: string): acp.RequestError {
  const entry = typeof name === "string" && name.length > 0 ? `mcpServers[${index}] ("${name}")` : `mcpServers[${index}]`;
  return acp.RequestError.invalidParams({ mcpServers: { index, name } }, `${entry}: ${why}`);
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** {name, value} pairs as a record, each name checked by `valid` (what `what` calls them). */
function pairs(list: readonly { name: string; value: string }[], what: string, valid: (name: string) => boolean, fail: (why: string) => never): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of list) {
    if (!valid(name)) fail(`${what} ${JSON.stringify(name)} is not a valid name`);
    if (LINE_BREAK_OR_NUL.test(value)) fail(`the value of ${what} ${name} holds a line break or a NUL`);
    out[name] = value;
  }
  return out;
}

function converted(entry: AcpMcpServer, fail: (why: string) => never): McpServerConfig {
  if ("type" in entry && entry.type === "http") {
    if (!isHttpUrl(entry.url)) fail(`url ${JSON.stringify(entry.url)} is not an http(s) URL`);
    const headers = pairs(entry.headers ?? [], "the header", (n) => HEADER_NAME.test(n), fail);
    return Object.keys(headers).length > 0 ? { url: entry.url, headers } : { url: entry.url };
  }
  const stdio = entry as Extract<AcpMcpServer, { command: string }>;
  if (typeof stdio.command !== "string" || stdio.command.trim().length === 0) fail("command is empty");
  const env = pairs(stdio.env ?? [], "the variable", (n) => n.length > 0 && !n.includes("=") && !LINE_BREAK_OR_NUL.test(n), fail);
  const config: McpServerConfig = { command: stdio.command, args: stdio.args ?? [] };
  if (Object.keys(env).length > 0) config.env = env;
  return config;
}

/** The editor's list as pith's servers by name, with what was left out or replaced; a bad entry throws -32602. */
export function clientMcpServers(list: readonly AcpMcpServer[] | null | undefined): ClientMcpServers {
  if (!list || list.length === 0) return { servers: undefined, notes: [] };
  // a Map: a name like "__proto__" is a server like any other
  const servers = new Map<string, McpServerConfig>();
  const notes: McpServersNote[] = [];
  list.forEach((entry, index) => {
    const fail = (why: string): never => {
      throw invalid(index, entry.name, why);
    };
    if (typeof entry.name !== "string" || entry.name.length === 0) fail("name is empty");
    if (entry.name.length > 200) fail("name is longer than 200 characters");
    if ("type" in entry && entry.type === "sse") {
      notes.push({ server: entry.name, shown: true, message: `MCP server "${entry.name}" is not connected: pith does not speak SSE (give its streamable HTTP URL as an "http" server)` });
      return;
    }
    if (servers.has(entry.name)) {
      notes.push({ server: entry.name, shown: false, message: `MCP server "${entry.name}" is given more than once; the later entry (mcpServers[${index}]) is used` });
    }
    servers.set(entry.name, converted(entry, fail));
  });
  // the wire's own schema has the last word: what passes here is what createSession / openSession take
  const parsed = McpServers.safeParse(Object.fromEntries(servers));
  if (!parsed.success) throw acp.RequestError.invalidParams({ mcpServers: parsed.error.issues }, `mcpServers: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  // a name an object cannot hold as a key ("__proto__") would vanish: refused instead
  const lost = [...servers.keys()].filter((name) => !Object.prototype.hasOwnProperty.call(parsed.data, name));
  if (lost.length > 0) throw acp.RequestError.invalidParams({ mcpServers: { names: lost } }, `mcpServers: the name ${JSON.stringify(lost[0])} cannot be used`);
  return { servers: Object.keys(parsed.data).length > 0 ? parsed.data : undefined, notes };
}
