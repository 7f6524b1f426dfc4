// One MCP server of a session: started (or reached) when the session opens, its tools listed,
// its calls made with a timeout that progress restarts, and its failures kept visible. A server
// that dies is started again for the next call; one that dies again within a minute of being
// restarted stays failed until the session reopens (a crash loop is not retried forever).
import { Client, ProtocolError, SdkError, SdkErrorCode, type CallToolResult, type Transport } from "@modelcontextprotocol/client";
import type { Logger } from "pino";
import type { McpServerConfig, McpServerInfo, McpServerState } from "../../protocol/mcp.js";
import { bounded } from "../tools/time-bound.js";
import { ToolError, type ToolInputSchema } from "../tools/types.js";
import { connectTransport, type ServerTransport } from "./transports.js";

const DEFAULT_STARTUP_MS = 10_000;
const DEFAULT_REQUEST_MS = 60_000;
/** A server that dies again this soon after a restart is left failed. */
const CRASH_LOOP_MS = 60_000;

/** A tool as the server lists it (its own name), with what pith reads of it. */
export interface ServerTool {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  readOnly: boolean;
}

export interface ServerEntry {
  name: string;
  source: McpServerInfo["source"];
  config: McpServerConfig;
}

export interface ConnectionDeps {
  /** the session's working directory: a stdio server's default cwd */
  cwd: string;
  logger: Logger;
  /** the state or the tool list changed */
  onChange: (connection: ServerConnection) => void;
  /** the daemon's environment (tests give another) */
  env?: NodeJS.ProcessEnv;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The last lines a stdio server wrote to stderr, as a clause for a reason ("" when it said nothing). */
function saidOn(transport: ServerTransport | undefined, lines: number): string {
  return transport?.stderr ? ` (it said: ${transport.stderr.split("\n").slice(-lines).join(" | ")})` : "";
}

export class ServerConnection {
  state: McpServerState;
  error: string | undefined;
  tools: ServerTool[] = [];
  private client: Client | undefined;
  private transport: ServerTransport | undefined;
  private starting: Promise<void> | undefined;
  private refreshing: Promise<void> | undefined;
  private restartedAt: number | undefined;
  private closed = false;

  constructor(
    readonly entry: ServerEntry,
    private readonly deps: ConnectionDeps,
  ) {
    this.state = entry.config.enabled === false ? "disabled" : "connecting";
  }

  get name(): string {
    return this.entry.name;
  }
  get transportKind(): McpServerInfo["transport"] {
    return "url" in this.entry.config ? "http" : "stdio";
  }
  get startupTimeoutMs(): number {
    return this.entry.config.startupTimeoutMs ?? DEFAULT_STARTUP_MS;
  }
  /** The server's process id (a stdio server that runs), for tests and `pith mcp`. */
  get pid(): number | undefined {
    return this.transport?.pid;
  }

  /** Connects (the first time, or again after the server died); settles when ready or failed. */
  start(): Promise<void> {
    if (this.state === "disabled" || this.closed) return Promise.resolve();
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves once the server is no longer connecting (ready or failed), at most its startup timeout. */
  settled(): Promise<void> {
    return this.starting ?? this.refreshing ?? Promise.resolve();
  }

  private set(state: McpServerState, error?: string): void {
    this.state = state;
    this.error = error;
    this.deps.onChange(this);
  }

  private async connect(): Promise<void> {
    this.set("connecting");
    const client = new Client({ name: "pith", version: "1" }, { capabilities: {} });
    let transport: ServerTransport | undefined;
    try {
      transport = connectTransport(this.entry.config, { cwd: this.deps.cwd, env: this.deps.env ?? process.env });
      this.transport = transport;
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        this.refreshing ??= this.listTools(client).finally(() => {
          this.refreshing = undefined;
        });
      });
      await bounded(
        (async () => {
          await client.connect(transport as Transport);
          await this.listTools(client);
        })(),
        this.startupTimeoutMs,
        `it did not start and list its tools within ${this.startupTimeoutMs} ms`,
      );
    } catch (err) {
      const said = saidOn(transport, 3);
      await client.close().catch(() => undefined);
      if (this.closed) return;
      // the SDK's word for a server that exited while it was being asked
      const what = /connection closed/i.test(errorText(err)) ? "it exited before it was ready" : errorText(err);
      const reason = `${what}${said}`;
      this.deps.logger.warn({ mcpServer: this.name, reason }, `MCP server ${this.name} failed to start`);
      this.set("failed", reason);
      return;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      return;
    }
    this.client = client;
    client.onclose = () => this.died(client);
    this.set("ready");
  }

  private async listTools(client: Client): Promise<void> {
    const { tools } = await client.listTools();
    const { allow, deny } = this.entry.config.tools ?? {};
    this.tools = tools
      .filter((t) => (!allow || allow.includes(t.name)) && !deny?.includes(t.name))
      .map((t) => ({
        name: t.name,
        description: t.description ?? t.title ?? "",
        inputSchema: { ...(t.inputSchema as object), type: "object" } as ToolInputSchema,
        readOnly: t.annotations?.readOnlyHint === true,
      }));
    if (this.client === client) this.deps.onChange(this);
  }

  /** The server went away by itself: started again, unless it did so just after a restart. */
  private died(client: Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    void client.close().catch(() => undefined); // an HTTP session the server lost is dropped too
    const why = this.transportKind === "http" ? "it could not be reached" : `it exited${saidOn(this.transport, 2)}`;
    if (this.restartedAt !== undefined && Date.now() - this.restartedAt < CRASH_LOOP_MS) {
      this.deps.logger.warn({ mcpServer: this.name }, `MCP server ${this.name} died again within a minute of its restart; left failed`);
      this.set("failed", `${why} again within a minute of being restarted; reopen the session to try again`);
      return;
    }
    this.deps.logger.warn({ mcpServer: this.name }, `MCP server ${this.name} went away; starting it again`);
    this.restartedAt = Date.now();
    void this.start();
  }

  /** Calls `tool` (the server's name for it): its answer, or a ToolError saying why there is none. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.state === "connecting") await this.settled();
    const client = this.client;
    if (this.state !== "ready" || !client) throw new ToolError(`The MCP server "${this.name}" is not available: ${this.error ?? this.state}.`);
    const timeout = this.entry.config.requestTimeoutMs ?? DEFAULT_REQUEST_MS;
    try {
      // a progress handler makes the SDK send a progressToken, without which no progress restarts the timeout
      return (await client.callTool({ name: tool, arguments: args }, { signal, timeout, resetTimeoutOnProgress: true, onprogress: () => undefined })) as CallToolResult;
    } catch (err) {
      if (signal.aborted) throw new ToolError(`Cancelled: the MCP tool ${tool} of "${this.name}" was stopped by the user.`);
      if (this.client !== client || this.state !== "ready") {
        throw new ToolError(`The MCP server "${this.name}" stopped during the call (${this.error ?? "it exited"}); it is being started again for the next call.`);
      }
      if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) throw new ToolError(`The MCP tool ${tool} of "${this.name}" did not answer within ${timeout} ms; the call was cancelled.`);
      if (this.transportKind === "http" && !(err instanceof ProtocolError)) {
        // not the server's answer but the way to it (refused, reset, its session lost): reconnect
        this.died(client);
        throw new ToolError(`The MCP server "${this.name}" could not be reached (${errorText(err)}); reconnecting for the next call.`);
      }
      throw new ToolError(`The MCP tool ${tool} of "${this.name}" failed: ${errorText(err)}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    // the transport too: a server still starting is ended now, not after its startup timeout
    await Promise.all([client?.close(), this.transport?.close()].map((p) => p?.catch(() => undefined)));
  }
}
