// Where the daemon's WebSocket endpoint is, and how a browser carries the token.

/**
 * The WebSocket endpoint for what `pith serve` prints (`http://127.0.0.1:7777`) or any ws URL:
 * http(s) becomes ws(s), and a bare origin gets `/rpc`.
 */
export function rpcUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol === "http:") u.protocol = "ws:";
  else if (u.protocol === "https:") u.protocol = "wss:";
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/rpc";
  u.hash = "";
  return u.toString();
}

/** The subprotocol that carries the token (browsers cannot set an Authorization header). */
export function bearerSubprotocol(token: string): string {
  return `pith.bearer.${token}`;
}
