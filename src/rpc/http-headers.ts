// The headers every HTTP answer of `pith serve` carries (the web UI's files, its 404s and 405s,
// the refusals of an upgrade to /rpc), so a browser treats the UI as what it is: a page that runs
// its own script and talks to its own WebSocket, and nothing else.
//
// - Content-Security-Policy: scripts, styles and images only from the UI's own origin (images
//   also as data: URLs: the empty favicon), connections only to it ('self' covers ws:// and
//   wss:// of the same host and port), nothing else loaded at all; no <base>, no form posts, and
//   no page may frame the UI (frame-ancestors 'none': a click-jacking page cannot put its Allow
//   button under the user's pointer). clients/web/index.html carries the same policy in a meta
//   tag (which cannot say frame-ancestors), for a copy of the UI served by something else.
// - X-Frame-Options: DENY, for browsers older than frame-ancestors.
// - X-Content-Type-Options: nosniff: a file is only ever what its Content-Type says.
// - Referrer-Policy: no-referrer: a link followed from the UI does not tell where it came from.
// - Cross-Origin-Opener-Policy: same-origin: a page that opened the UI keeps no handle on it.
// - Cross-Origin-Resource-Policy: same-origin: another site cannot embed the UI's files.

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};
