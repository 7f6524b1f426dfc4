/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// pith's web UI: sessions, the transcript of one session streaming in, the context meter and
// compaction controls, the session tree. Talks to the daemon only through clients/ts.
//
// This file is the shell: the connection, which session is shown, and its events. What an event
// changes is clients/ts/session-view.ts's business (the page keeps a SessionView and redraws from
// it); the parts (composer, context bar, sidebar, transcript) draw it and make their requests.
import type { EventLine } from "../../../protocol/index.js";
import { ErrorCodes } from "../../../protocol/error-codes.js";
import { PithRpcError, tokenFromHash, type PithClient } from "../../ts/browser.js";
import { reduceSessionView, sessionViewFrom, withNotice, withState, type SessionState, type SessionView } from "../../ts/session-view.js";
import { addNotice, transcriptFrom } from "../../ts/transcript-state.js";
import { Composer } from "./composer.js";
import { Connection, forgetToken, saveToken, takeToken, type ConnStatus } from "./conn.js";
import { ContextBar } from "./context-bar.js";
import { h } from "./dom.js";
import { debounce, errText, type Activity, type AppHost, type OwnWork, type SessionOpened, type SessionRef } from "./host.js";
import { SidebarPanel } from "./sidebar-panel.js";
import { TokenScreen } from "./token-screen.js";
import { TopBar } from "./topbar.js";
import { Transcript } from "./transcript.js";

const DEFAULT_RESERVE = 16384;

function sessionFromHash(): string | undefined {
  const m = /(?:^#|&)session=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : undefined;
}

class App implements AppHost {
  private conn: Connection | undefined;
  private pith: PithClient | undefined;
  private sessionId: string | undefined;
  /** the session shown, as of the events applied so far */
  private shown: SessionView | undefined;
  /** the transcript while no session is shown */
  private lobby = transcriptFrom([], { placeholder: "Open a session from the list, or create a new one." });
  /** events up to this seq are part of what was fetched */
  private baseSeq = 0;
  /** while state and messages are fetched: events wait, then those the fetch missed apply */
  private reloading = false;
  private queue: EventLine[] = [];
  private readonly own: Record<OwnWork, boolean> = { compacting: false, summarizing: false, bashing: false };
  private reserve = DEFAULT_RESERVE;
  /** the session info the title was drawn from */
  private titled: SessionState | undefined | null = null;

  private readonly root: HTMLElement;
  private readonly topbar = new TopBar({
    toggleSidebar: () => this.showSidebar(this.root.dataset.sidebar !== "open"),
    rename: () => void this.rename(),
    retryNow: () => this.conn?.retryNow(),
  });
  private readonly transcript = new Transcript();
  private readonly composer = new Composer(this);
  private readonly bar = new ContextBar(this);
  private readonly sidebar = new SidebarPanel(this);
  private readonly tokenScreen = new TokenScreen((token) => {
    saveToken(token);
    this.connect(token);
  });
  private readonly refreshStateLater = debounce(() => void this.refreshState(), 150);

  constructor(mount: HTMLElement) {
    this.root = h(
      "div",
      { class: "app", "data-sidebar": "closed", "data-busy": "false" },
      this.topbar.el,
      this.sidebar.el,
      h("div", { class: "backdrop", onclick: () => this.showSidebar(false) }),
      h("main", { class: "main" }, this.bar.el, this.bar.form, this.transcript.el, this.composer.el),
      this.tokenScreen.el,
    );
    mount.appendChild(this.root);
    document.addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      if (this.activity().busy) {
        e.preventDefault();
        void this.composer.abort();
      } else if (this.bar.formOpen) this.bar.toggleForm(false);
      else if (this.root.dataset.sidebar === "open") this.showSidebar(false);
    });
    this.render();
  }

  // ---- AppHost -----------------------------------------------------------------------------------

  client(): PithClient | undefined {
    return this.pith;
  }
  session(): SessionRef | undefined {
    return this.pith && this.sessionId ? { client: this.pith, id: this.sessionId } : undefined;
  }
  activity(): Activity {
    const v = this.shown;
    const a = { running: v?.running ?? false, turn: v?.turn ?? 0, compacting: !!v?.compacting || this.own.compacting, summarizing: !!v?.summarizing || this.own.summarizing, bashing: this.own.bashing };
    return { ...a, busy: a.running || a.compacting || a.summarizing || a.bashing };
  }
  ownWork(what: OwnWork, on: boolean): void {
    this.own[what] = on;
    this.render();
  }
  updateView(change: (view: SessionView) => SessionView): void {
    if (this.shown) this.shown = change(this.shown);
    this.render();
  }
  notice(kind: "error" | "warn" | "info", text: string, tag: string = kind): void {
    if (this.shown) this.shown = withNotice(this.shown, kind, text, tag);
    else this.lobby = addNotice(this.lobby, kind, text, tag);
    this.render();
  }
  refreshStateSoon(): void {
    this.refreshStateLater();
  }
  showSidebar(open: boolean): void {
    this.root.dataset.sidebar = open ? "open" : "closed";
  }
  setDraft(text: string): void {
    this.composer.setDraft(text);
  }
  focusComposer(): void {
    this.composer.focus();
  }
  sessionsChanged(): void {
    this.titled = null;
    this.render();
  }

  // ---- connection ------------------------------------------------------------------------------

  start(): void {
    const token = takeToken(tokenFromHash);
    if (!token) this.askToken("");
    else this.connect(token);
  }

  private askToken(message: string, hint = ""): void {
    this.tokenScreen.ask(message, hint);
    this.root.dataset.auth = "needed";
  }

  private connect(token: string): void {
    this.conn?.stop();
    this.pith = undefined;
    this.tokenScreen.hide();
    this.root.dataset.auth = "ok";
    this.conn = new Connection(location.origin, token, {
      status: (s) => this.connStatus(s),
      opened: (client, first) => this.opened(client, first),
      problem: (err) => console.warn("pith:", err),
    });
    this.conn.start();
  }

  private connStatus(s: ConnStatus): void {
    this.topbar.showConnection(s);
    if (s.kind === "refused") {
      forgetToken();
      this.pith = undefined;
      this.askToken("The token was refused.", s.hint);
    }
    this.render();
  }

  private async opened(client: PithClient, first: boolean): Promise<void> {
    if (first) {
      this.pith = client;
      client.onAny((name, params) => this.onEvent({ type: name, ...params } as EventLine));
    }
    void this.loadSettings();
    void this.sidebar.refreshSessions();
    if (this.sessionId) await this.resume();
    else if (first) {
      const id = sessionFromHash();
      if (id) await this.sidebar.open(id);
    }
    this.render();
  }

  private async loadSettings(): Promise<void> {
    try {
      const { settings } = await this.pith!.call("getSettings", {});
      this.reserve = settings.compaction?.reserveTokens ?? DEFAULT_RESERVE;
      this.render();
    } catch {
      // keep the default
    }
  }

  /** After a reconnect: resume the session's events where they stopped, or refetch. */
  private async resume(): Promise<void> {
    const id = this.sessionId!;
    const client = this.pith!;
    try {
      const r = await client.resubscribe(id, this.baseSeq);
      if (r.gap || r.reset) {
        this.baseSeq = r.lastSeq;
        await this.reload();
      } else {
        await this.refreshState();
        this.sidebar.refreshTreeSoon();
      }
    } catch (err) {
      // the daemon restarted: open it again
      if (err instanceof PithRpcError && err.code === ErrorCodes.SessionNotFound) await this.sidebar.open(id);
      else this.notice("error", `Could not resume the session: ${errText(err)}`);
    }
  }

  // ---- the session shown ---------------------------------------------------------------------------

  async adopt(opening: () => Promise<SessionOpened>): Promise<boolean> {
    const client = this.pith!;
    const prev = this.sessionId;
    this.reloading = true;
    this.queue = [];
    let opened: SessionOpened;
    try {
      opened = await opening();
    } catch (err) {
      this.flushQueue();
      this.notice("error", `Could not open the session: ${errText(err)}`);
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
    this.sidebar.refreshSessionsSoon();
    return true;
  }

  /** Refetches state and messages (and the tree) and shows them; events that came meanwhile follow. */
  async reload(known?: SessionState): Promise<void> {
    const id = this.sessionId;
    const client = this.pith;
    if (!id || !client) return;
    this.reloading = true;
    try {
      const [state, { messages }] = await Promise.all([known ? Promise.resolve(known) : client.getState(id), client.getMessages(id)]);
      if (id !== this.sessionId) return;
      const placeholder = messages.length === 0 ? "No messages yet. Say what to do below." : undefined;
      let view = sessionViewFrom(state, messages, { lastSeq: this.baseSeq, placeholder, previous: this.shown });
      if (state.isRunning) view = withNotice(view, "info", "A run is in progress; its reply continues below.", "joined");
      this.shown = view;
      this.render();
      void this.sidebar.refreshTree();
    } catch (err) {
      this.notice("error", `Could not load the session: ${errText(err)}`);
    } finally {
      this.flushQueue();
    }
  }

  /** Ends a reload: the events that came meanwhile (the view skips those the fetch covered). */
  private flushQueue(): void {
    this.reloading = false;
    const queued = this.queue;
    this.queue = [];
    for (const ev of queued) if (ev.sessionId === this.sessionId) this.dispatch(ev);
  }

  async refreshState(): Promise<void> {
    const s = this.session();
    if (!s) return;
    try {
      const st = await s.client.getState(s.id);
      if (this.shown && s.id === this.sessionId) {
        this.shown = withState(this.shown, st);
        this.render();
      }
    } catch {
      // a later event or reconnect brings it
    }
  }

  private async rename(): Promise<void> {
    const s = this.session();
    if (!s) return;
    const name = window.prompt("Session name (empty clears it)", this.shown?.info.name ?? "");
    if (name === null) return;
    try {
      await s.client.call("setSessionName", { sessionId: s.id, name });
      await this.refreshState();
      this.sidebar.refreshSessionsSoon();
    } catch (err) {
      this.notice("error", `Rename failed: ${errText(err)}`);
    }
  }

  // ---- events ----------------------------------------------------------------------------------

  private onEvent(ev: EventLine): void {
    if (ev.sessionId !== this.sessionId) return;
    if (this.reloading) {
      this.queue.push(ev);
      return;
    }
    this.dispatch(ev);
  }

  private dispatch(ev: EventLine): void {
    if (!this.shown) return;
    this.shown = reduceSessionView(this.shown, ev);
    // what the events do not carry is fetched
    switch (ev.type) {
      case "message_start":
        if (ev.message.role === "user" && this.shown.running) this.refreshStateSoon(); // a queued prompt was delivered
        break;
      case "message_end":
        if (ev.entryId) this.sidebar.refreshTreeSoon();
        break;
      case "agent_end":
        this.refreshStateSoon();
        this.sidebar.refreshTreeSoon();
        this.sidebar.refreshSessionsSoon();
        break;
      case "compaction_end":
        this.sidebar.refreshTreeSoon();
        break;
    }
    this.render(ev.type === "message_update");
  }

  // ---- drawing -------------------------------------------------------------------------------------

  /** Redraws from the view; `soon`: the transcript at the next frame (a reply streams in many deltas). */
  private render(soon = false): void {
    const v = this.shown;
    this.transcript.show(v?.transcript ?? this.lobby, soon);
    const has = this.topbar.connected && this.sessionId !== undefined;
    const a = this.activity();
    this.root.dataset.busy = String(a.busy);
    this.root.dataset.running = String(a.running);
    this.composer.render(a, has, v?.pending);
    this.bar.render(v, this.reserve, has, a.busy);
    if (v?.info !== this.titled) {
      this.titled = v?.info;
      this.topbar.showTitle(v?.info, this.sidebar.sessions.find((s) => s.id === v?.sessionId)?.firstMessage);
      if (v) this.sidebar.markCurrent(v.sessionId);
    }
  }
}

new App(document.getElementById("app") ?? document.body).start();
