// Relaying a client to the node that owns its session (PostgreSQL store, several daemons): when
// openSession finds the session owned by another live node, this node opens a link to it
// (node-link.ts, one per client and owner node) and from then on passes every request of that
// client naming the session through it, as it is, and every answer, event and server request
// back, as they are. The client sees one daemon: the owner's seq, streamId and replay buffer.
//
// When the link closes (the owner died or shut down), requests for its sessions are answered
// with SessionMoved and an unknown owner: the client opens the session again, and this node (or
// another) takes it over.
import { ErrorCodes, methods, type HookName, type MethodName, type ParsedParamsOf, type ResultOf, type ServerRequestName } from "../../protocol/index.js";
import type { ClientCalls } from "../../protocol/jsonrpc-peer.js";
import type { Logger } from "../log/logger.js";
import { LinkRefused, type LinkSecurity } from "./link-security.js";
import { LinkError, NodeLink } from "./node-link.js";

/** What the relay needs of the client's connection (ConnState has it). */
export interface RelayedClient {
  conn: { send(text: string): void };
  capabilities: { permissions: boolean; hooks: HookName[] };
  /** the server's requests to the client */
  peer: { request<R extends ServerRequestName>(method: R, params: ClientCalls[R]["params"]): PromiseLike<ClientCalls[R]["result"]> };
}

export interface RelayOwner {
  nodeId: string | null;
  url: string;
}

type Route = { link: NodeLink; nodeId: string | null } | { lost: true };

export class ConnRelay {
  private readonly links = new Map<string, Promise<NodeLink>>();
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly state: RelayedClient,
    private readonly clusterToken: string,
    private readonly log: Logger,
    private readonly security: LinkSecurity = {},
  ) {}

  /**
   * Whether a request naming this session goes to another node (or is answered as moved). Once
   * its node is gone, openSession is this node's again: it takes the session over, or relays anew.
   */
  has(sessionId: string, method: MethodName): boolean {
    const route = this.routes.get(sessionId);
    if (route && "lost" in route && method === "openSession") this.routes.delete(sessionId);
    return this.routes.has(sessionId);
  }

  /** openSession (or another request that makes a session this client's) on the owner node; the session is relayed from then on. */
  async open<M extends MethodName>(owner: RelayOwner, method: M, params: ParsedParamsOf<M>): Promise<ResultOf<M>> {
    let link: NodeLink;
    let result: unknown;
    try {
      link = await this.link(owner.url);
      result = await link.request(method, params);
    } catch (err) {
      if (err instanceof LinkError) throw err;
      // a refusal is this node's configuration, not the network: said louder
      if (err instanceof LinkRefused) this.log.error({ owner }, err.message);
      else this.log.warn({ err, owner }, "could not reach the node that owns the session");
      throw new LinkError(ErrorCodes.SessionMoved, `the session is owned by node ${owner.nodeId} at ${owner.url}, which this node cannot reach: ${(err as Error).message}`, {
        sessionId: ("sessionId" in params ? params.sessionId : undefined) ?? "",
        owner,
      });
    }
    this.learn(result, link, owner.nodeId);
    return methods[method].result.parse(result) as ResultOf<M>;
  }

  /**
   * A request naming a relayed session, answered by its owner (its errors passed on as they
   * are). The answer is passed on unparsed, as the owner gave it (a parse would drop keys a newer
   * owner adds); it is the method's result because the owner serves the same method table.
   */
  async forward<M extends MethodName>(sessionId: string, method: M, params: ParsedParamsOf<M>): Promise<ResultOf<M>> {
    const route = this.routes.get(sessionId);
    if (!route || "lost" in route) {
      throw new LinkError(ErrorCodes.SessionMoved, `the node that had session ${sessionId} is gone: open it again`, { sessionId, owner: { nodeId: null } });
    }
    let result: unknown;
    try {
      result = await route.link.request(method, params);
    } catch (err) {
      if (err instanceof LinkError) throw err;
      throw new LinkError(ErrorCodes.SessionMoved, `the node that had session ${sessionId} is gone: open it again`, { sessionId, owner: { nodeId: null } });
    }
    if ("endsRoute" in methods[method]) this.routes.delete(sessionId);
    else this.learn(result, route.link, route.nodeId);
    return result as ResultOf<M>;
  }

  close(): void {
    for (const p of this.links.values()) p.then((l) => l.close(), () => {});
    this.links.clear();
  }

  /** A session an answer names (the one opened, a fork) lives on that node too. */
  private learn(result: unknown, link: NodeLink, nodeId: string | null): void {
    const sessionId = (result as { sessionId?: unknown } | null)?.sessionId;
    if (typeof sessionId === "string") this.routes.set(sessionId, { link, nodeId });
  }

  private link(url: string): Promise<NodeLink> {
    let pending = this.links.get(url);
    if (!pending) {
      pending = NodeLink.open(
        url,
        this.clusterToken,
        this.state.capabilities,
        {
          onNotification: (text) => this.state.conn.send(text),
          // the owner asks this client (a permission, a beforeCompact hook) through us
          onRequest: (method, params) => this.state.peer.request(method, params as never),
          onClose: () => this.lost(url, pending!),
        },
        this.log,
        this.security,
      );
      pending.catch(() => this.links.delete(url));
      this.links.set(url, pending);
    }
    return pending;
  }

  private async lost(url: string, pending: Promise<NodeLink>): Promise<void> {
    if (this.links.get(url) === pending) this.links.delete(url);
    const link = await pending.catch(() => undefined);
    for (const [sessionId, route] of this.routes) if ("link" in route && route.link === link) this.routes.set(sessionId, { lost: true });
  }
}
