/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The session shown and its events: open (adopt), fetch (reload), resume after a reconnect, and
// each event into the SessionView (clients/ts/session-view.ts decides what it changes). While a
// fetch is in flight, events wait; those the fetch did not cover apply after it. The shell
// (main.ts) draws the view; this file keeps it current.
import type { EventLine } from "../../../protocol/index.js";
import { ErrorCodes } from "../../../protocol/error-codes.js";
import { PithRpcError, type PithClient } from "../../ts/browser.js";
import { reduceSessionView, sessionViewFrom, withNotice, withState, type SessionState, type SessionView } from "../../ts/session-view.js";
import type { McpServerInfo } from "../../ts/mcp-servers.js";
import { historyBlock } from "./history-view.js";
import { errText, type SessionOpened } from "./host.js";
import type { Transcript } from "./transcript.js";
import type { StoredCompactions } from "./transcript-items.js";

export interface FeedHooks {
  client(): PithClient | undefined;
  render(soon?: boolean): void;
  notice(kind: "error" | "warn" | "info", text: string, tag?: string): void;
  /** an event was applied (the parts refetch what events do not carry) */
  applied(ev: EventLine, view: SessionView): void;
  /** a session was fetched and shown */
  loaded(view: SessionView): void;
  reopen(id: string): Promise<void>;
  refreshTree(): void;
  refreshSessions(): void;
}

export class SessionFeed {
  sessionId: string | undefined;
  /** the session shown, as of the events applied so far */
  shown: SessionView | undefined;
  /** events up to this seq are part of what was fetched */
  private baseSeq = 0;
  /** while state and messages are fetched: events wait, then those the fetch missed apply */
  private reloading = false;
  private queue: EventLine[] = [];

  constructor(
    private readonly hooks: FeedHooks,
    private readonly transcript: Transcript,
  ) {}

  /** Nothing shown (the session was deleted). */
  forget(): void {
    const prev = this.sessionId;
    this.sessionId = undefined;
    this.shown = undefined;
    this.transcript.setHistory(null);
    if (prev) this.hooks.client()?.unsubscribe(prev).catch(() => undefined);
    history.replaceState(null, "", location.pathname + location.search);
  }

  async adopt(opening: () => Promise<SessionOpened>): Promise<boolean> {
    const client = this.hooks.client()!;
    const prev = this.sessionId;
    this.reloading = true;
    this.queue = [];
    let opened: SessionOpened;
    try {
      opened = await opening();
    } catch (err) {
      this.flushQueue();
      this.hooks.notice("error", `Could not open the session: ${errText(err)}`);
      return false;
    }
    this.sessionId = opened.sessionId;
    history.replaceState(null, "", `#session=${encodeURIComponent(opened.sessionId)}`);
    if (prev && prev !== opened.sessionId) client.unsubscribe(prev).catch(() => undefined);
    try {
      // lastSeq: what the state fetched below already covers
      this.baseSeq = (await client.subscribe(opened.sessionId)).lastSeq;
    } catch {
      this.baseSeq = 0;
    }
    await this.reload(opened.state);
    this.hooks.refreshSessions();
    return true;
  }

  /** Refetches state and messages (and the tree) and shows them; events that came meanwhile follow. */
  async reload(known?: SessionState): Promise<void> {
    const id = this.sessionId;
    const client = this.hooks.client();
    if (!id || !client) return;
    this.reloading = true;
    try {
      const [state, { messages }, stored, mcpServers] = await Promise.all([known ? Promise.resolve(known) : client.getState(id), client.getMessages(id), storedCompactions(client, id), mcpServersOf(client, id)]);
      if (id !== this.sessionId) return;
      const placeholder = messages.length === 0 ? "No messages yet. Say what to do below." : undefined;
      let view = sessionViewFrom(state, messages, { lastSeq: this.baseSeq, placeholder, previous: this.shown, mcpServers });
      if (state.isRunning) view = withNotice(view, "info", "A run is in progress; its reply continues below.", "joined");
      this.shown = view;
      // the context starts at a summary: what it summarized sits above it, closed
      this.transcript.setStoredCompactions(stored);
      this.transcript.setHistory(messages[0]?.role === "compactionSummary" ? historyBlock({ client, id }, stored) : null);
      this.hooks.render();
      this.hooks.loaded(view);
      this.hooks.refreshTree();
    } catch (err) {
      this.hooks.notice("error", `Could not load the session: ${errText(err)}`);
    } finally {
      this.flushQueue();
    }
  }

  /** After a reconnect: resume the session's events where they stopped, or refetch. */
  async resume(): Promise<void> {
    const id = this.sessionId!;
    const client = this.hooks.client()!;
    try {
      const r = await client.resubscribe(id, this.baseSeq);
      if (r.gap || r.reset) {
        this.baseSeq = r.lastSeq;
        await this.reload();
      } else {
        await this.refreshState();
        this.hooks.refreshTree();
      }
    } catch (err) {
      // the daemon restarted: open it again
      if (err instanceof PithRpcError && err.code === ErrorCodes.SessionNotFound) await this.hooks.reopen(id);
      else this.hooks.notice("error", `Could not resume the session: ${errText(err)}`);
    }
  }

  async refreshState(): Promise<void> {
    const id = this.sessionId;
    const client = this.hooks.client();
    if (!id || !client) return;
    try {
      const st = await client.getState(id);
      if (this.shown && id === this.sessionId) {
        this.shown = withState(this.shown, st);
        this.hooks.render();
      }
    } catch {
      // a later event or reconnect brings it
    }
  }

  onEvent(ev: EventLine): void {
    if (ev.sessionId !== this.sessionId) return;
    if (this.reloading) {
      this.queue.push(ev);
      return;
    }
    this.dispatch(ev);
  }

  /** Ends a reload: the events that came meanwhile (the view skips those the fetch covered). */
  private flushQueue(): void {
    this.reloading = false;
    const queued = this.queue;
    this.queue = [];
    for (const ev of queued) if (ev.sessionId === this.sessionId) this.dispatch(ev);
  }

  private dispatch(ev: EventLine): void {
    if (!this.shown) return;
    this.shown = reduceSessionView(this.shown, ev);
    this.hooks.applied(ev, this.shown);
    this.hooks.render(ev.type === "message_update");
  }
}

/** The compactions on the branch as stored, by timestamp (an older daemon without getHistory: none). */
async function storedCompactions(client: PithClient, id: string): Promise<StoredCompactions> {
  try {
    const { compactions } = await client.call("getHistory", { sessionId: id, messages: false });
    return new Map(compactions.map((c) => [c.timestamp, c]));
  } catch {
    return new Map();
  }
}

/** The session's MCP servers (an older daemon without listMcpServers: undefined, the view keeps what it had). */
async function mcpServersOf(client: PithClient, id: string): Promise<McpServerInfo[] | undefined> {
  try {
    return (await client.call("listMcpServers", { sessionId: id })).servers;
  } catch {
    return undefined;
  }
}
