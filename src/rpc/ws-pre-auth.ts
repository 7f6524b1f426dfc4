// Connections that have not (yet) authenticated: bounded in number and in time, so that nobody
// without the token can use up the daemon's file descriptors (each socket is one) and starve the
// owner's clients, its session files and its model connections (EMFILE).
//
// Every accepted TCP connection counts here from its first moment (before TLS, before any HTTP)
// until it completes an authenticated WebSocket upgrade, or closes. Connections that fetch the
// web UI's files never authenticate and count for their whole life.
// - At most `perAddress` of them per remote address (remote-address.ts) and `overall` in all.
//   Past either cap the OLDEST is closed, not the new one: the owner's client, which completes
//   its upgrade within milliseconds of connecting, still gets in while someone else holds many
//   idle sockets from the same address (on a shared host that is 127.0.0.1 for everybody).
// - One that has sent no HTTP request within `timeoutMs` of connecting is closed. Node's own
//   timeouts (headersTimeout, requestTimeout: ws-server.ts) never fire for a socket that sends
//   nothing at all, nor for one that stalls inside the TLS handshake.
//
// No setrlimit (prlimit, `ulimit -n` in bin/pith) at start: Node already raises the soft limit
// on open files to the hard one itself (a child started under `prlimit --nofile=1024:20000` has
// 20000), and the hard limit cannot be raised without privilege. These caps are what keeps the
// descriptors for the owner when the hard limit is small (1,024: the attack's machine).
import type { Socket } from "node:net";
import type { Logger } from "../log/logger.js";
import { addressKey } from "./remote-address.js";

export interface PreAuthLimits {
  /** default 64 */
  perAddress?: number;
  /** default 256 */
  overall?: number;
  /** default 10 s */
  timeoutMs?: number;
}

interface Pending {
  socket: Socket;
  address: string;
  /** peerOf(socket), kept: a closed socket no longer knows its peer */
  peer: string;
  timer: NodeJS.Timeout;
}

const WARN_EVERY_MS = 10_000;

/** `remoteAddress|remotePort`: the same for the raw socket and the TLS socket over it. */
function peerOf(socket: Socket): string {
  return `${socket.remoteAddress ?? ""}|${socket.remotePort ?? ""}`;
}

export class PreAuthSockets {
  /** oldest first (a Set keeps insertion order) */
  private readonly all = new Set<Pending>();
  private readonly byAddress = new Map<string, Set<Pending>>();
  private readonly byPeer = new Map<string, Pending>();
  private readonly perAddress: number;
  private readonly overall: number;
  private readonly timeoutMs: number;
  private lastWarn = 0;

  constructor(
    limits: PreAuthLimits,
    private readonly log: Logger,
  ) {
    this.perAddress = limits.perAddress ?? 64;
    this.overall = limits.overall ?? 256;
    this.timeoutMs = limits.timeoutMs ?? 10_000;
  }

  get size(): number {
    return this.all.size;
  }

  /** The server's 'connection' listener: a new TCP connection. */
  readonly track = (socket: Socket): void => {
    const address = addressKey(socket.remoteAddress);
    const p: Pending = {
      socket,
      address,
      peer: peerOf(socket),
      timer: setTimeout(() => this.drop(p, "sent no request in time"), this.timeoutMs).unref(),
    };
    this.all.add(p);
    let mine = this.byAddress.get(address);
    if (mine === undefined) this.byAddress.set(address, (mine = new Set()));
    mine.add(p);
    this.byPeer.set(p.peer, p);
    socket.once("close", () => this.forget(p));
    while (mine.size > this.perAddress) this.drop(mine.values().next().value!, `over ${this.perAddress} unauthenticated connections from ${address}`);
    while (this.all.size > this.overall) this.drop(this.all.values().next().value!, `over ${this.overall} unauthenticated connections`);
  };

  /** An HTTP request arrived on the socket (raw or TLS): it is talking, Node's timeouts take over. */
  requested(socket: Socket): void {
    const p = this.byPeer.get(peerOf(socket));
    if (p !== undefined) clearTimeout(p.timer);
  }

  /** The socket completed an authenticated upgrade: it no longer counts. */
  authenticated(socket: Socket): void {
    const p = this.byPeer.get(peerOf(socket));
    if (p !== undefined) this.forget(p);
  }

  /** Closes every unauthenticated connection (the server is closing). */
  closeAll(): void {
    for (const p of [...this.all]) this.drop(p);
  }

  private drop(p: Pending, why?: string): void {
    this.forget(p);
    if (why !== undefined) {
      const now = Date.now();
      if (now - this.lastWarn > WARN_EVERY_MS) {
        this.lastWarn = now;
        this.log.warn({ remoteAddress: p.socket.remoteAddress }, `ws server: closing an unauthenticated connection: ${why} (said once per ${WARN_EVERY_MS / 1000} s)`);
      }
    }
    p.socket.destroy();
  }

  private forget(p: Pending): void {
    if (!this.all.delete(p)) return;
    clearTimeout(p.timer);
    const mine = this.byAddress.get(p.address);
    mine?.delete(p);
    if (mine?.size === 0) this.byAddress.delete(p.address);
    if (this.byPeer.get(p.peer) === p) this.byPeer.delete(p.peer);
  }
}
