/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// pith's web UI: sessions, the transcript of one session streaming in, the context meter and
// compaction controls, the session tree. Talks to the daemon only through clients/ts.
//
// This file is the shell: the connection, which session is shown, and its events. What an event
// changes is clients/ts/session-view.ts's business (the page keeps a SessionView and redraws from
// it); the parts (composer, context bar, sidebar, transcript) draw it and make their requests.
import type { EventLine } from "../../../protocol/index.js";
import { tokenFromHash, type PithClient } from "../../ts/browser.js";
import { withNotice, type SessionState, type SessionView } from "../../ts/session-view.js";
import { addNotice, transcriptFrom } from "../../ts/transcript-state.js";
import type { McpServerInfo } from "../../ts/mcp-servers.js";
import { Composer } from "./composer.js";
import { Connection, forgetToken, saveToken, takeToken, type ConnStatus } from "./conn.js";
import { ContextBar } from "./context-bar.js";
import { h } from "./dom.js";
import { debounce, errText, type Activity, type AppHost, type OwnWork, type SessionOpened, type SessionRef } from "./host.js";
import { McpPanel } from "./mcp-panel.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { SessionControls } from "./session-controls.js";
import { SessionFeed } from "./session-feed.js";
import { SidebarPanel } from "./sidebar-panel.js";
import { TokenScreen } from "./token-screen.js";
import { TopBar } from "./topbar.js";
import { Transcript } from "./transcript.js";

const DEFAULT_RESERVE = 16384;
const NO_SERVERS: readonly McpServerInfo[] = [];

function sessionFromHash(): string | undefined {
  const m = /(?:^#|&)session=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : undefined;
}

class App implements AppHost {
  private conn: Connection | undefined;
  private pith: PithClient | undefined;
  /** the transcript while no session is shown */
  private lobby = transcriptFrom([], { placeholder: "Open a session from the list, or create a new one." });
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
  private readonly permission = new PermissionPrompt((id) => this.sessionLabel(id));
  private readonly mcp = new McpPanel();
  private readonly controls = new SessionControls(this, { deleted: (id) => this.deleted(id) }, [this.mcp.el]);
  private readonly bar = new ContextBar(this);
  private readonly sidebar = new SidebarPanel(this);
  private readonly tokenScreen = new TokenScreen((token) => {
    saveToken(token);
    this.connect(token);
  });
  private readonly refreshStateLater = debounce(() => void this.refreshState(), 150);
  private readonly feed = new SessionFeed(
    {
      client: () => this.pith,
      render: (soon) => this.render(soon),
      notice: (kind, text, tag) => this.notice(kind, text, tag),
      applied: (ev) => this.applied(ev),
      loaded: () => void this.controls.refreshStats(),
      reopen: (id) => this.sidebar.open(id),
      refreshTree: () => void this.sidebar.refreshTree(),
      refreshSessions: () => this.sidebar.refreshSessionsSoon(),
    },
    this.transcript,
  );

  private get shown(): SessionView | undefined {
    return this.feed.shown;
  }

  constructor(mount: HTMLElement) {
    this.root = h(
      "div",
      { class: "app", "data-sidebar": "closed", "data-busy": "false" },
      this.topbar.el,
      this.sidebar.el,
      h("div", { class: "backdrop", onclick: () => this.showSidebar(false) }),
      h("main", { class: "main" }, this.bar.el, this.controls.el, this.controls.banner, this.bar.form, this.transcript.el, this.permission.el, this.composer.el),
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
    const id = this.feed.sessionId;
    return this.pith && id ? { client: this.pith, id } : undefined;
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
    if (this.feed.shown) this.feed.shown = change(this.feed.shown);
    this.render();
  }
  notice(kind: "error" | "warn" | "info", text: string, tag: string = kind): void {
    if (this.feed.shown) this.feed.shown = withNotice(this.feed.shown, kind, text, tag);
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
  followLatest(): void {
    this.transcript.followEnd();
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
      // before initialize: the capabilities say the page answers permission requests
      prepare: (client) => void client.handle("requestPermission", (ask) => this.permission.ask(ask)),
      problem: (err) => console.warn("pith:", err),
    });
    this.conn.start();
  }

  private connStatus(s: ConnStatus): void {
    this.topbar.showConnection(s);
    // what streams is unknown while the connection is down: app.css stops its indicators
    this.root.dataset.conn = s.kind;
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
      client.onAny((name, params) => {
        // whichever session it was: a question that ended elsewhere leaves the box
        if (name === "request_resolved") this.permission.withdraw((params as { requestId: string }).requestId);
        this.feed.onEvent({ type: name, ...params } as EventLine);
      });
    }
    void this.loadSettings();
    void this.sidebar.refreshSessions();
    await this.controls.loadModels();
    if (this.feed.sessionId) await this.feed.resume();
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

  // ---- the session shown (session-feed.ts) ------------------------------------------------------

  adopt(opening: () => Promise<SessionOpened>): Promise<boolean> {
    return this.feed.adopt(opening);
  }
  reload(): Promise<void> {
    return this.feed.reload();
  }
  refreshState(): Promise<void> {
    return this.feed.refreshState();
  }

  private deleted(id: string): void {
    if (this.feed.sessionId === id) this.feed.forget();
    this.titled = null;
    this.notice("info", "The session was deleted.", "deleted");
    void this.sidebar.refreshSessions();
  }

  /** What the events do not carry is fetched. */
  private applied(ev: EventLine): void {
    switch (ev.type) {
      case "message_start":
        if (ev.message.role === "user" && this.shown?.running) this.refreshStateSoon(); // a queued prompt was delivered
        break;
      case "message_end":
        if (ev.entryId) this.sidebar.refreshTreeSoon();
        break;
      case "agent_end":
        this.refreshStateSoon();
        this.sidebar.refreshTreeSoon();
        this.sidebar.refreshSessionsSoon();
        this.controls.refreshStatsSoon();
        break;
      case "compaction_end":
        this.sidebar.refreshTreeSoon();
        this.controls.refreshStatsSoon();
        break;
      case "prompts_dropped": {
        // the queued prompts the abort dropped, by their text, so the user can send them again
        const texts = ev.prompts.map((p) => `“${p.text.length > 80 ? `${p.text.slice(0, 80)}…` : p.text}”`).join(", ");
        this.notice("info", `The abort dropped ${ev.prompts.length === 1 ? "a queued prompt" : `${ev.prompts.length} queued prompts`}: ${texts}`, "prompts-dropped");
        this.refreshStateSoon();
        break;
      }
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

  /** A session as the page names it: its name, else its first message, else its id. */
  private sessionLabel(sessionId: string): string {
    const shown = this.shown?.sessionId === sessionId ? this.shown.info.name : undefined;
    const listed = this.sidebar.sessions.find((s) => s.id === sessionId);
    return shown || listed?.name || listed?.firstMessage.slice(0, 60) || sessionId;
  }

  // ---- drawing -------------------------------------------------------------------------------------

  /** Redraws from the view; `soon`: the transcript at the next frame (a reply streams in many deltas). */
  private render(soon = false): void {
    const v = this.shown;
    // first: the tool cards drawn next name their MCP server
    this.transcript.setMcpServers(v?.mcpServers ?? NO_SERVERS);
    this.transcript.show(v?.transcript ?? this.lobby, soon);
    const has = this.topbar.connected && this.feed.sessionId !== undefined;
    const a = this.activity();
    this.root.dataset.busy = String(a.busy);
    this.root.dataset.running = String(a.running);
    this.composer.render(a, has, v?.pending, v?.queue);
    this.bar.render(v, this.reserve, has, a.busy);
    this.controls.render(v, has, a.busy);
    this.mcp.render(v?.mcpServers);
    this.permission.relabel();
    if (v?.info !== this.titled) {
      this.titled = v?.info;
      this.topbar.showTitle(v?.info, this.sidebar.sessions.find((s) => s.id === v?.sessionId)?.firstMessage);
      if (v) this.sidebar.markCurrent(v.sessionId);
    }
  }
}

new App(document.getElementById("app") ?? document.body).start();
