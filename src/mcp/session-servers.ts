// A session's MCP servers: the user's (settings) and its client's, merged by name (the client's
// winning for its session), all started in parallel when the session opens and stopped when it
// closes. Before each model request the agent asks for the tools: servers still connecting are
// waited for (each at most its startup timeout, which its connection enforces), and a tool list a
// server said changed is read again, so the model sees one consistent list.
import type { Logger } from "pino";
import type { McpServerInfo, McpServers } from "../../protocol/mcp.js";
import { estimateTextTokens } from "../compaction/index.js";
import type { Tool } from "../tools/types.js";
import { mcpTool } from "./mcp-tool.js";
import { ServerConnection, type ServerEntry } from "./server-connection.js";
import { mcpToolName } from "./tool-names.js";

export interface SessionServersDeps {
  cwd: string;
  logger: Logger;
  /** a server's state or tools changed */
  onChange: (server: McpServerInfo) => void;
  env?: NodeJS.ProcessEnv;
}

/** The entries of both sources by name, the client's winning. */
export function mergeServerEntries(settings: McpServers | undefined, client: McpServers | undefined): ServerEntry[] {
  const byName = new Map<string, ServerEntry>();
  for (const [name, config] of Object.entries(settings ?? {})) byName.set(name, { name, source: "settings", config });
  for (const [name, config] of Object.entries(client ?? {})) byName.set(name, { name, source: "client", config });
  return [...byName.values()];
}

export class SessionServers {
  private readonly connections = new Map<string, ServerConnection>();
  /** the model's name of each (server, tool), kept so names do not move when lists change */
  private readonly names = new Map<string, string>();
  private readonly taken = new Set<string>();
  /** what the servers' tool definitions add to every request, in tokens (as of the last request) */
  overheadTokens = 0;

  constructor(
    entries: readonly ServerEntry[],
    private readonly deps: SessionServersDeps,
  ) {
    for (const entry of entries) this.add(entry);
  }

  get size(): number {
    return this.connections.size;
  }

  private add(entry: ServerEntry): void {
    const connection = new ServerConnection(entry, { cwd: this.deps.cwd, logger: this.deps.logger, env: this.deps.env, onChange: (c) => this.deps.onChange(this.info(c)) });
    this.connections.set(entry.name, connection);
    void connection.start();
  }

  /**
   * Servers a client passes for a session already open (ACP's session/load, say): a name not yet
   * connected, or connected with another entry, is (re)started; the others are left running.
   */
  async addClientServers(servers: McpServers | undefined): Promise<void> {
    for (const entry of mergeServerEntries(undefined, servers)) {
      const running = this.connections.get(entry.name);
      if (running && JSON.stringify(running.entry.config) === JSON.stringify(entry.config)) continue;
      if (running) await running.close();
      this.add(entry);
    }
  }

  private nameOf(server: string, tool: string): string {
    const key = `${server}\u0000${tool}`;
    let name = this.names.get(key);
    if (name === undefined) {
      name = mcpToolName(server, tool, this.taken);
      this.names.set(key, name);
    }
    return name;
  }

  /** The servers' tools for the next model request, once every server that is still starting has settled. */
  async tools(): Promise<Tool[]> {
    await Promise.all([...this.connections.values()].map((c) => c.settled()));
    const tools: Tool[] = [];
    for (const c of this.connections.values()) {
      if (c.state !== "ready") continue;
      for (const t of c.tools) tools.push(mcpTool(c, t, this.nameOf(c.name, t.name)) as Tool);
    }
    this.overheadTokens = Math.ceil(estimateTextTokens(JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema]))));
    return tools;
  }

  private info(c: ServerConnection): McpServerInfo {
    return {
      name: c.name,
      source: c.entry.source,
      transport: c.transportKind,
      state: c.state,
      tools: c.tools.map((t) => ({ name: this.nameOf(c.name, t.name), serverName: t.name, readOnly: t.readOnly })),
      ...(c.error !== undefined ? { error: c.error } : {}),
    };
  }

  list(): McpServerInfo[] {
    return [...this.connections.values()].map((c) => this.info(c));
  }

  /** A server's process id (tests: the same process across a model change). */
  pidOf(name: string): number | undefined {
    return this.connections.get(name)?.pid;
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }
}
