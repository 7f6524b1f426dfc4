/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The connection to the daemon: connect with the token, reconnect with backoff after a drop
// (PithClient.reconnect re-sends initialize), and tell a refused token from a daemon that is
// down. Browsers hide the upgrade's 401: a WebSocket that fails while the daemon answers HTTP
// (GET /rpc → 426) was refused.
import { PithClient, connectBrowserWebSocket, type BrowserWebSocketTransport } from "../../ts/browser.js";

export type ConnStatus =
  | { kind: "connecting" }
  | { kind: "open" }
  | { kind: "reconnecting"; attempt: number; inMs: number; daemonUp: boolean }
  | { kind: "refused"; hint: string };

export interface ConnectionHooks {
  status(s: ConnStatus): void;
  /** after every successful (re)connect and initialize; first: a new client */
  opened(client: PithClient, first: boolean): Promise<void>;
  /** a listener threw or the server sent something odd */
  problem(err: unknown): void;
  /** a new client, before its initialize: register the server-request handlers here */
  prepare?(client: PithClient): void;
}

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const MAX_BACKOFF_MS = 10_000;

const CLIENT_INFO = { name: "pith-web", version: "0.1.0" };

export class Connection {
  client: PithClient | undefined;
  private attempt = 0;
  /** consecutive failures while the daemon answered HTTP */
  private refusals = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private connecting = false;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly hooks: ConnectionHooks,
  ) {}

  start(): void {
    this.hooks.status({ kind: "connecting" });
    void this.tryConnect();
  }

  /** Stops reconnecting and closes the connection. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.client?.close();
  }

  /** Reconnect now (the user clicked "retry"). */
  retryNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    void this.tryConnect();
  }

  private async tryConnect(): Promise<void> {
    if (this.stopped || this.connecting) return;
    this.connecting = true;
    let transport: BrowserWebSocketTransport;
    try {
      transport = await connectBrowserWebSocket(this.url, this.token);
    } catch {
      this.connecting = false;
      await this.failed();
      return;
    }
    if (this.stopped) {
      transport.close();
      this.connecting = false;
      return;
    }
    let first = false;
    try {
      if (!this.client) {
        first = true;
        const client = new PithClient(transport, { onError: (err) => this.hooks.problem(err) });
        this.client = client;
        client.onClose(() => this.dropped());
        this.hooks.prepare?.(client);
        await client.initialize(CLIENT_INFO);
      } else {
        await this.client.reconnect(transport);
      }
    } catch {
      // the connection dropped during initialize (its close was ignored while connecting)
      this.connecting = false;
      transport.close();
      this.schedule(false);
      return;
    }
    this.connecting = false;
    this.attempt = 0;
    this.refusals = 0;
    this.hooks.status({ kind: "open" });
    try {
      await this.hooks.opened(this.client, first);
    } catch (err) {
      this.hooks.problem(err);
    }
  }

  private dropped(): void {
    if (this.stopped || this.connecting) return;
    this.schedule(true);
  }

  private async failed(): Promise<void> {
    const up = await daemonAnswers(this.url);
    if (up) {
      this.refusals++;
      // twice in a row while the daemon answers: not a restart race, the upgrade was refused
      if (this.refusals >= 2) {
        this.stopped = true;
        this.hooks.status({ kind: "refused", hint: originHint() });
        return;
      }
    } else this.refusals = 0;
    this.schedule(up);
  }

  private schedule(daemonUp: boolean): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const base = daemonUp && this.refusals > 0 ? 200 : (BACKOFF_MS[this.attempt] ?? MAX_BACKOFF_MS);
    const inMs = Math.round(base * (0.8 + Math.random() * 0.4));
    this.attempt++;
    this.hooks.status({ kind: "reconnecting", attempt: this.attempt, inMs, daemonUp });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tryConnect();
    }, inMs);
  }
}

/** Whether the daemon answers HTTP at all (plain GET /rpc gets 426). */
async function daemonAnswers(url: string): Promise<boolean> {
  try {
    const target = new URL("/rpc", url);
    const ctl = new AbortController();
    const t = setTimeout(() => ctl.abort(), 3000);
    const res = await fetch(target, { cache: "no-store", signal: ctl.signal });
    clearTimeout(t);
    return res.status === 426;
  } catch {
    return false;
  }
}

function originHint(): string {
  const host = location.hostname;
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]" || host === "::1"
    ? ""
    : `If the token is right, this page's origin (${location.origin}) may not be allowed: start the daemon with --allow-origin ${location.origin}.`;
}

// ---- the token -----------------------------------------------------------------------------------

const TOKEN_KEY = "pith.token";

/** The token from #token=… (then removed from the address bar) or from sessionStorage. */
export function takeToken(tokenFromHash: (hash: string) => string | undefined): string | undefined {
  const fromHash = tokenFromHash(location.hash);
  if (fromHash) {
    saveToken(fromHash);
    const rest = location.hash
      .replace(/^#/, "")
      .split("&")
      .filter((p) => p !== "" && !p.startsWith("token="))
      .join("&");
    history.replaceState(null, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
    return fromHash;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveToken(token: string): void {
  try {
    sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage disabled: the token lives for this page only
  }
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // nothing stored
  }
}
