// A connection from this node to another pith node sharing the PostgreSQL store, speaking pith's
// own protocol over its WebSocket with the cluster token: the other end sees an ordinary client
// (marked as a node, so it never relays further). A relay (relay.ts) sends a client's requests
// for a session the other node owns through it; the other node's events and its own requests
// (requestPermission, beforeCompact) come back through it.
import WebSocket from "ws";
import { PROTOCOL_VERSION, SERVER_REQUEST_NAMES, type HookName, type MethodName, type ServerRequestName } from "../../protocol/index.js";
import { JsonRpcPeer, type ClientCalls, type DaemonCalls } from "../../protocol/jsonrpc-peer.js";
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
  onRequest<R extends ServerRequestName>(method: R, params: unknown): PromiseLike<ClientCalls[R]["result"]>;
  onClose(): void;
}

const CONNECT_TIMEOUT_MS = 2_000;
const MAX_PAYLOAD = 64 * 1024 * 1024;

/** The /rpc endpoint of a node's advertised URL (ws://host:port, with or without the path). */
function rpcUrlOf(nodeUrl: string): string {
  const u = new URL(nodeUrl);
  if (u.pathname === "/" || u.pathname === "") u.pathname = RPC_PATH;
  return u.toString();
}

export class NodeLink {
  /** this node is the other node's client: it calls the daemon's methods and answers its requests */
  private readonly peer: JsonRpcPeer<DaemonCalls, ClientCalls>;
  private closed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly handlers: LinkHandlers,
    log: Logger,
  ) {
    this.peer = new JsonRpcPeer<DaemonCalls, ClientCalls>({
      send: (text) => {
        if (!this.closed) ws.send(text);
      },
      context: undefined,
      // events pass through as the other node wrote them
      onNotification: (_method, _params, text) => handlers.onNotification(text),
      onInvalid: (refusal) => log.warn({ error: refusal.error }, "node link: a message that is not JSON-RPC; ignored"),
      errors: { answer: (e) => new LinkError(e.code, e.message, e.data) },
    });
    for (const name of SERVER_REQUEST_NAMES) this.peer.addMethod(name, (params) => handlers.onRequest(name, params));
    ws.on("message", (data, isBinary) => {
      if (!isBinary) this.peer.receive(data.toString());
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

  request(method: MethodName, params: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the node link is closed"));
    return this.peer.request(method, params as never);
  }

  close(): void {
    this.ws.close(1000, "link closed");
    this.gone();
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.peer.rejectAll(new Error("the node link closed"));
    this.handlers.onClose();
  }
}
