// A connection from this node to another pith node sharing the PostgreSQL store, speaking pith's
// own protocol over its WebSocket with the cluster token: the other end sees an ordinary client
// (marked as a node, so it never relays further). A relay (relay.ts) sends a client's requests
// for a session the other node owns through it; the other node's events and its own requests
// (requestPermission, beforeCompact) come back through it.
import WebSocket from "ws";
import { PROTOCOL_VERSION, type HookName } from "../../protocol/index.js";
import type { Logger } from "../log/logger.js";
import { LinkRefused, linkRefusal, type LinkSecurity } from "./link-security.js";
import { RPC_PATH } from "./ws-upgrade.js";

/** An error answer from the other node, passed on to the client as it was. */
export class LinkError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "LinkError";
  }
}

export interface LinkHandlers {
  /** a notification (an event), as the text the other node sent */
  onNotification(text: string): void;
  /** a request the other node makes of the client (requestPermission, beforeCompact) */
  onRequest(method: string, params: unknown): Promise<unknown>;
  onClose(): void;
}

const CONNECT_TIMEOUT_MS = 2_000;
const MAX_PAYLOAD = 64 * 1024 * 1024;

/** The /rpc endpoint of a node's advertised URL (ws://host:port, with or without the path). */
export function rpcUrlOf(nodeUrl: string): string {
  const u = new URL(nodeUrl);
  if (u.pathname === "/" || u.pathname === "") u.pathname = RPC_PATH;
  return u.toString();
}

export class NodeLink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private closed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly handlers: LinkHandlers,
    private readonly log: Logger,
  ) {
    ws.on("message", (data, isBinary) => {
      if (!isBinary) this.receive(data.toString());
    });
    ws.on("close", () => this.gone());
    ws.on("error", (err) => {
      log.warn({ err }, "node link failed");
      this.gone();
    });
  }

  /**
   * Connects and initializes with the client's capabilities (so the other node asks only what the
   * client can answer). LinkRefused, before any connection, for plain ws:// to another machine
   * unless the network is trusted (link-security.ts); a wss:// peer's certificate is verified.
   */
  static async open(nodeUrl: string, clusterToken: string, capabilities: { permissions: boolean; hooks: HookName[] }, handlers: LinkHandlers, log: Logger, security: LinkSecurity = {}): Promise<NodeLink> {
    const url = new URL(rpcUrlOf(nodeUrl));
    const refused = linkRefusal(url, security);
    if (refused !== undefined) throw new LinkRefused(refused);
    const tls = url.protocol === "wss:" && security.ca !== undefined ? { ca: security.ca } : {};
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${clusterToken}` }, maxPayload: MAX_PAYLOAD, handshakeTimeout: CONNECT_TIMEOUT_MS, ...tls });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`the node at ${nodeUrl} refused the link: HTTP ${res.statusCode}`)));
    });
    const link = new NodeLink(ws, handlers, log);
    try {
      await link.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: "pith-node-link" }, capabilities });
    } catch (err) {
      link.close();
      throw err;
    }
    return link;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the node link is closed"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  close(): void {
    this.ws.close(1000, "link closed");
    this.gone();
  }

  private receive(text: string): void {
    let m: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return this.log.warn("node link: a message that is not JSON; ignored");
    }
    if (typeof m.method === "string") {
      if (m.id === undefined) return this.handlers.onNotification(text);
      const id = m.id;
      this.handlers.onRequest(m.method, m.params).then(
        (result) => this.send({ jsonrpc: "2.0", id, result }),
        (err: { code?: number; message?: string; data?: unknown }) =>
          this.send({ jsonrpc: "2.0", id, error: { code: typeof err?.code === "number" ? err.code : -32603, message: err?.message ?? String(err), ...(err?.data !== undefined ? { data: err.data } : {}) } }),
      );
      return;
    }
    const waiter = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
    if (!waiter) return;
    this.pending.delete(m.id as number);
    if (m.error) waiter.reject(new LinkError(m.error.code, m.error.message, m.error.data));
    else waiter.resolve(m.result);
  }

  private send(message: object): void {
    if (!this.closed) this.ws.send(JSON.stringify(message));
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.pending.values()) w.reject(new Error("the node link closed"));
    this.pending.clear();
    this.handlers.onClose();
  }
}
