// How a node link (node-link.ts) protects the cluster token and the relayed session's traffic.
// A wss:// node URL is verified: the other node's certificate must chain to the system's CAs, or
// to the CA file the user gave (--tls-ca, PITH_TLS_CA) for a cluster with its own CA; it is never
// accepted unverified. A plain ws:// URL carries the token and every relayed event in clear, so
// it is refused before any connection unless the address is this machine's loopback (nothing
// leaves the host) or the user said the network between the nodes is trusted (--trusted-network:
// a private link, a VPN, a WireGuard mesh).
import { isIP } from "node:net";

export interface LinkSecurity {
  /** PEM of the CA(s) a wss:// node's certificate must chain to (else the system's) */
  ca?: string;
  /** plain ws:// to another machine is allowed */
  trustedNetwork?: boolean;
}

/** A link this node will not open; said to the relayed client (-32018) and logged. */
export class LinkRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkRefused";
  }
}

/** 127.0.0.0/8, ::1, localhost: an address that never leaves this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || /^::ffff:127\./.test(host);
  return false;
}

/** Why a link to `url` must not be opened with the cluster token, or undefined when it may. */
export function linkRefusal(url: URL, security: LinkSecurity): string | undefined {
  if (url.protocol === "wss:" || security.trustedNetwork || isLoopbackHost(url.hostname)) return undefined;
  return `refusing to send the cluster token over plain ws:// to ${url.host}: give that node a wss:// URL (pith serve --tls-cert/--tls-key, and --tls-ca here for a private CA), or start this node with --trusted-network if the network between the nodes is private`;
}
