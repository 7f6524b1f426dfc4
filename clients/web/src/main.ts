/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// pith's web UI: sessions, the transcript of one session streaming in, the context meter and
// compaction controls, the session tree. Talks to the daemon only through clients/ts.
import type { EventName, EventParams, ResultOf } from "../../../protocol/index.js";
import { PithRpcError, tokenFromHash, type PithClient } from "../../ts/browser.js";
import { Connection, forgetToken, saveToken, takeToken, type ConnStatus } from "./conn.js";
import { fmtInt, h } from "./dom.js";
import { renderSessions, renderTree, type SessionSummary, type TreeNode } from "./sidebar.js";
import { compactionThreshold } from "./stream.js";
import { Transcript } from "./transcript.js";

type SessionState = ResultOf<"getState">;
type SessionOpened = ResultOf<"openSession">;
type AnyEvent = { [E in EventName]: [E, EventParams<E>] }[EventName];

const SESSION_NOT_FOUND = -32010;
const DEFAULT_RESERVE = 16384;

function errText(err: unknown): string {
  if (err instanceof PithRpcError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

function sessionFromHash(): string | undefined {
  const m = /(?:^#|&)session=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : undefined;
}

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (t) clearTimeout(t);
    t = setTimeout(() => {
      t = undefined;
      fn();
    }, ms);
  };
}

class App {
  private conn: Connection | undefined;
  private client: PithClient | undefined;
  private readonly transcript = new Transcript();

  // the open session
  private sessionId: string | undefined;
  private state: SessionState | undefined;
  /** events up to this seq are part of what was fetched */
  private baseSeq = 0;
  private reloading = false;
  private queue: AnyEvent[] = [];
  private running = false;
  private compacting = false;
  private summarizing = false;
  private bashing = false;
  private turn = 0;
  private reserve = DEFAULT_RESERVE;
  private sessions: SessionSummary[] = [];

  // elements
  private readonly root: HTMLElement;
  private readonly connEl = h("div", { class: "conn", "data-state": "connecting", role: "status", text: "connecting…" });
  private readonly retryBtn = h("button", { type: "button", class: "retry-now ghost", text: "retry now", hidden: true });
  private readonly titleEl = h("div", { class: "title", text: "pith" });
  private readonly subtitleEl = h("div", { class: "subtitle muted" });
  private readonly sessionList = h("div", { class: "session-list" });
  private readonly treeList = h("div", { class: "tree-list" });
  private readonly summarizeBox = h("input", { type: "checkbox", class: "summarize-branch" });
  private readonly newForm: HTMLFormElement;
  private readonly cwdInput = h("input", { type: "text", name: "cwd", placeholder: "working directory (default: the daemon's)", autocomplete: "off", spellcheck: "false" });
  private readonly nameInput = h("input", { type: "text", name: "name", placeholder: "name (optional)", autocomplete: "off" });
  private readonly meterFill = h("div", { class: "meter-fill" });
  private readonly meterMark = h("div", { class: "meter-threshold" });
  private readonly meterText = h("span", { class: "meter-text" });
  /** a quiet note while a summary is written ahead of time (compaction_update reason "prepare") */
  private readonly meterPrep = h("span", { class: "meter-prep", hidden: true });
  private readonly meter: HTMLElement;
  private readonly autoBox = h("input", { type: "checkbox", class: "auto-compaction" });
  private readonly compactBtn = h("button", { type: "button", class: "compact-open", text: "Compact…" });
  private readonly compactForm: HTMLFormElement;
  private readonly compactInstr = h("textarea", { class: "compact-instructions", rows: 2, placeholder: "Instructions for the summary (optional), e.g. keep the API details" });
  private readonly input = h("textarea", {
    class: "prompt-input",
    rows: 3,
    placeholder: "Message — Enter sends, Shift+Enter for a new line, !cmd runs a shell command",
    "aria-label": "Message",
  });
  private readonly statusEl = h("span", { class: "run-status", "data-state": "idle" });
  private readonly pendingEl = h("span", { class: "pending muted" });
  private readonly sendBtn = h("button", { type: "button", class: "send primary", text: "Send" });
  private readonly steerBtn = h("button", { type: "button", class: "steer", text: "Steer", title: "Hand this to the running agent after the current tool call (Enter)" });
  private readonly followBtn = h("button", { type: "button", class: "follow-up", text: "Follow-up", title: "Queue this for when the agent would stop (Alt+Enter)" });
  private readonly abortBtn = h("button", { type: "button", class: "abort danger", text: "Abort", title: "Stop what is running (Esc)" });
  private readonly tokenScreen: HTMLElement;
  private readonly tokenMsg = h("p", { class: "token-message", role: "alert" });
  private readonly tokenInput = h("input", { type: "password", name: "token", autocomplete: "off", placeholder: "token", "aria-label": "Token" });

  private readonly refreshTreeSoon = debounce(() => void this.refreshTree(), 200);
  private readonly refreshSessionsSoon = debounce(() => void this.refreshSessions(), 300);
  private readonly refreshStateSoon = debounce(() => void this.refreshState(), 150);

  constructor(mount: HTMLElement) {
    this.meter = h(
      "div",
      { class: "meter", "data-tokens": "0", "data-window": "0" },
      h("div", { class: "meter-bar", role: "meter", "aria-label": "Context used" }, this.meterFill, this.meterMark),
      this.meterText,
      this.meterPrep,
    );
    this.newForm = h(
      "form",
      { class: "new-session-form", hidden: true },
      this.cwdInput,
      this.nameInput,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary", text: "Create" }), h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => this.toggleNewForm(false) })),
    );
    this.newForm.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.createSession();
    });
    this.compactForm = h(
      "form",
      { class: "compact-form", hidden: true },
      this.compactInstr,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary compact-now", text: "Compact now" }), h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => this.toggleCompactForm(false) })),
    );
    this.compactForm.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.compactNow();
    });
    const tokenForm = h(
      "form",
      { class: "token-form" },
      h("h1", { text: "Connect to pith" }),
      this.tokenMsg,
      h("p", { class: "muted", text: "Paste the daemon's token (pith serve prints a link with it; it is also in $PITH_HOME/token). It is kept for this tab only." }),
      this.tokenInput,
      h("button", { type: "submit", class: "primary", text: "Connect" }),
    );
    tokenForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const token = this.tokenInput.value.trim();
      if (!/^[A-Za-z0-9_-]+$/.test(token)) {
        this.tokenMsg.textContent = "A token uses only letters, digits, _ and -.";
        return;
      }
      this.tokenInput.value = "";
      saveToken(token);
      this.connect(token);
    });
    this.tokenScreen = h("div", { class: "token-screen", hidden: true }, tokenForm);

    const menuBtn = h("button", { type: "button", class: "menu", "aria-label": "Sessions and tree", title: "Sessions and tree", text: "☰" });
    menuBtn.addEventListener("click", () => this.toggleSidebar());
    const tabs = h(
      "div",
      { class: "tabs", role: "tablist" },
      h("button", { type: "button", role: "tab", class: "tab", "data-tab": "sessions", "aria-selected": "true", text: "Sessions", onclick: () => this.showTab("sessions") }),
      h("button", { type: "button", role: "tab", class: "tab", "data-tab": "tree", "aria-selected": "false", text: "Tree", onclick: () => this.showTab("tree") }),
    );
    const sidebar = h(
      "aside",
      { class: "sidebar" },
      tabs,
      h(
        "section",
        { class: "panel sessions-panel", "data-panel": "sessions" },
        h("div", { class: "panel-actions" }, h("button", { type: "button", class: "new-session primary", text: "New session", onclick: () => this.toggleNewForm() }), h("button", { type: "button", class: "refresh", title: "Refresh", "aria-label": "Refresh sessions", text: "↻", onclick: () => void this.refreshSessions() })),
        this.newForm,
        this.sessionList,
      ),
      h(
        "section",
        { class: "panel tree-panel", "data-panel": "tree", hidden: true },
        h("label", { class: "check" }, this.summarizeBox, " Summarize the branch I leave"),
        h("p", { class: "muted hint", text: "Click an entry to continue from there. Hover an entry to fork a new session from it or label it." }),
        this.treeList,
      ),
    );
    const renameBtn = h("button", { type: "button", class: "rename ghost", "aria-label": "Rename session", title: "Rename session", text: "✎", onclick: () => void this.rename() });
    const sessionBar = h(
      "div",
      { class: "sessionbar" },
      this.meter,
      h("label", { class: "check auto", title: "Compact automatically when the context passes the threshold" }, this.autoBox, " Auto-compact"),
      this.compactBtn,
    );
    const composer = h(
      "div",
      { class: "composer" },
      h("div", { class: "composer-status" }, this.statusEl, this.pendingEl),
      this.input,
      h("div", { class: "composer-buttons" }, this.abortBtn, this.followBtn, this.steerBtn, this.sendBtn),
    );
    const backdrop = h("div", { class: "backdrop", onclick: () => this.toggleSidebar(false) });
    this.root = h(
      "div",
      { class: "app", "data-sidebar": "closed", "data-busy": "false" },
      h("header", { class: "topbar" }, menuBtn, h("div", { class: "brand", text: "pith" }), h("div", { class: "heading" }, h("div", { class: "title-row" }, this.titleEl, renameBtn), this.subtitleEl), this.connEl, this.retryBtn),
      sidebar,
      backdrop,
      h("main", { class: "main" }, sessionBar, this.compactForm, this.transcript.el, composer),
      this.tokenScreen,
    );
    mount.appendChild(this.root);

    this.retryBtn.addEventListener("click", () => this.conn?.retryNow());
    this.compactBtn.addEventListener("click", () => this.toggleCompactForm());
    this.autoBox.addEventListener("change", () => void this.setAutoCompaction(this.autoBox.checked));
    this.sendBtn.addEventListener("click", () => void this.submit());
    this.steerBtn.addEventListener("click", () => void this.submit("steer"));
    this.followBtn.addEventListener("click", () => void this.submit("followUp"));
    this.abortBtn.addEventListener("click", () => void this.abort());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.submit(this.running && e.altKey ? "followUp" : undefined);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      if (this.busy) {
        e.preventDefault();
        void this.abort();
      } else if (!this.compactForm.hidden) this.toggleCompactForm(false);
      else if (this.root.dataset.sidebar === "open") this.toggleSidebar(false);
    });
    this.transcript.reset([], "Open a session from the list, or create a new one.");
    this.updateControls();
  }

  // ---- connection ------------------------------------------------------------------------------

  start(): void {
    const token = takeToken(tokenFromHash);
    if (!token) this.askToken("");
    else this.connect(token);
  }

  private askToken(message: string, hint = ""): void {
    this.tokenMsg.textContent = message;
    if (hint) this.tokenMsg.appendChild(h("span", { class: "hint", text: ` ${hint}` }));
    this.tokenMsg.hidden = message === "";
    this.tokenScreen.hidden = false;
    this.root.dataset.auth = "needed";
    this.tokenInput.focus();
  }

  private connect(token: string): void {
    this.conn?.stop();
    this.client = undefined;
    this.tokenScreen.hidden = true;
    this.root.dataset.auth = "ok";
    this.conn = new Connection(location.origin, token, {
      status: (s) => this.connStatus(s),
      opened: (client, first) => this.opened(client, first),
      problem: (err) => console.warn("pith:", err),
    });
    this.conn.start();
  }

  private connStatus(s: ConnStatus): void {
    this.connEl.dataset.state = s.kind;
    this.retryBtn.hidden = s.kind !== "reconnecting";
    this.connEl.title = "";
    switch (s.kind) {
      case "connecting":
        this.connEl.textContent = "connecting…";
        break;
      case "open":
        this.connEl.textContent = "connected";
        break;
      case "reconnecting": {
        this.connEl.textContent = `connection lost — reconnecting in ${Math.max(1, Math.round(s.inMs / 1000))} s`;
        this.connEl.title = s.daemonUp ? "The daemon answers but the connection failed" : "The daemon does not answer";
        break;
      }
      case "refused":
        this.connEl.textContent = "the token was refused";
        forgetToken();
        this.client = undefined;
        this.askToken("The token was refused.", s.hint);
        break;
    }
    this.updateControls();
  }

  private async opened(client: PithClient, first: boolean): Promise<void> {
    if (first) {
      this.client = client;
      client.onAny((...args) => this.onEvent(args as AnyEvent));
    }
    void this.loadSettings();
    void this.refreshSessions();
    if (this.sessionId) await this.resume();
    else if (first) {
      const id = sessionFromHash();
      if (id) await this.open(id);
    }
    this.updateControls();
  }

  private async loadSettings(): Promise<void> {
    try {
      const { settings } = await this.client!.call("getSettings", {});
      this.reserve = settings.compaction?.reserveTokens ?? DEFAULT_RESERVE;
      this.renderMeter();
    } catch {
      // keep the default
    }
  }

  /** After a reconnect: resume the session's events where they stopped, or refetch. */
  private async resume(): Promise<void> {
    const id = this.sessionId!;
    const client = this.client!;
    try {
      const r = await client.resubscribe(id, this.baseSeq);
      if (r.gap || r.reset) {
        this.baseSeq = r.lastSeq;
        await this.reload();
      } else {
        await this.refreshState();
        this.refreshTreeSoon();
      }
    } catch (err) {
      if (err instanceof PithRpcError && err.code === SESSION_NOT_FOUND) await this.open(id); // the daemon restarted: open it again
      else this.transcript.notice("error", `Could not resume the session: ${errText(err)}`);
    }
  }

  // ---- sessions --------------------------------------------------------------------------------

  private async refreshSessions(): Promise<void> {
    if (!this.client) return;
    try {
      this.sessions = (await this.client.listSessions()).sessions;
      renderSessions(this.sessionList, this.sessions, this.sessionId, (id) => void this.open(id));
      this.renderTitle();
    } catch (err) {
      console.warn("pith: listSessions failed", err);
    }
  }

  private async open(id: string): Promise<void> {
    if (!this.client) return;
    this.toggleSidebar(false);
    await this.adopt(() => this.client!.openSession({ sessionId: id }));
  }

  private async createSession(): Promise<void> {
    if (!this.client) return;
    const cwd = this.cwdInput.value.trim();
    const name = this.nameInput.value.trim();
    const ok = await this.adopt(() => this.client!.createSession({ ...(cwd ? { cwd } : {}), ...(name ? { name } : {}) }));
    if (ok) {
      this.cwdInput.value = "";
      this.nameInput.value = "";
      this.toggleNewForm(false);
      this.toggleSidebar(false);
      this.input.focus();
    }
  }

  private async fork(entry: TreeNode): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const from = this.sessionId;
    await this.adopt(() => this.client!.forkSession(from, entry.id));
  }

  /** Makes the session that `opening` opens (and subscribes to) the one shown. */
  private async adopt(opening: () => Promise<SessionOpened>): Promise<boolean> {
    const client = this.client!;
    const prev = this.sessionId;
    this.reloading = true;
    this.queue = [];
    let opened: SessionOpened;
    try {
      opened = await opening();
    } catch (err) {
      this.flushQueue();
      this.transcript.notice("error", `Could not open the session: ${errText(err)}`);
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
    this.refreshSessionsSoon();
    return true;
  }

  /** Refetches state, messages and tree and shows them; events that came meanwhile follow. */
  private async reload(known?: SessionState): Promise<void> {
    const id = this.sessionId;
    const client = this.client;
    if (!id || !client) return;
    this.reloading = true;
    try {
      const [state, { messages }] = await Promise.all([known ? Promise.resolve(known) : client.getState(id), client.getMessages(id)]);
      if (id !== this.sessionId) return;
      this.transcript.reset(messages, messages.length === 0 ? "No messages yet. Say what to do below." : undefined);
      this.applyState(state);
      this.turn = 0;
      if (state.isRunning) this.transcript.notice("info", "A run is in progress; its reply continues below.", "joined");
      void this.refreshTree();
    } catch (err) {
      this.transcript.notice("error", `Could not load the session: ${errText(err)}`);
    } finally {
      this.flushQueue();
    }
  }

  /** Ends a reload: the events that came meanwhile and are not part of what was fetched. */
  private flushQueue(): void {
    this.reloading = false;
    const queued = this.queue;
    this.queue = [];
    for (const ev of queued) if (ev[1].sessionId === this.sessionId && ev[1].seq > this.baseSeq) this.dispatch(ev);
  }

  private async refreshState(): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const id = this.sessionId;
    try {
      const st = await this.client.getState(id);
      if (id === this.sessionId) this.applyState(st);
    } catch {
      // a later event or reconnect brings it
    }
  }

  private applyState(st: SessionState): void {
    this.state = st;
    this.running = st.isRunning;
    this.compacting = st.isCompacting;
    this.autoBox.checked = st.autoCompactionEnabled;
    this.setMeter(st.contextTokens, st.contextWindow, st.threshold);
    this.setPreparing(st.preparedCompaction ? (st.preparedCompaction.status === "ready" ? "ready" : "summarizing") : null);
    const p = st.pending;
    this.pendingEl.textContent = p.steer + p.followUp > 0 ? `queued: ${p.steer} steer, ${p.followUp} follow-up` : "";
    this.renderTitle();
    this.updateControls();
  }

  private renderTitle(): void {
    const st = this.state;
    if (!st) {
      this.titleEl.textContent = "pith";
      this.subtitleEl.textContent = "";
      document.title = "pith";
      return;
    }
    const summary = this.sessions.find((s) => s.id === st.sessionId);
    const title = st.name || summary?.firstMessage || "New session";
    this.titleEl.textContent = title;
    this.subtitleEl.textContent = `${st.cwd} · ${st.model.name ?? st.model.id}`;
    document.title = `${title} — pith`;
    for (const el of this.sessionList.querySelectorAll<HTMLElement>(".session-item")) {
      if (el.dataset.sessionId === st.sessionId) el.setAttribute("aria-current", "true");
      else el.removeAttribute("aria-current");
    }
  }

  private async rename(): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const name = window.prompt("Session name (empty clears it)", this.state?.name ?? "");
    if (name === null) return;
    try {
      await this.client.call("setSessionName", { sessionId: this.sessionId, name });
      await this.refreshState();
      this.refreshSessionsSoon();
    } catch (err) {
      this.transcript.notice("error", `Rename failed: ${errText(err)}`);
    }
  }

  // ---- tree ------------------------------------------------------------------------------------

  private async refreshTree(): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const id = this.sessionId;
    try {
      const tree = await this.client.getTree(id);
      if (id !== this.sessionId) return;
      renderTree(this.treeList, tree, {
        navigate: (e) => void this.navigate(e),
        fork: (e) => void this.fork(e),
        label: (e) => void this.label(e),
      });
    } catch (err) {
      console.warn("pith: getTree failed", err);
    }
  }

  private async navigate(entry: TreeNode): Promise<void> {
    if (!this.client || !this.sessionId) return;
    if (this.busy) {
      this.transcript.notice("warn", "Wait for the run to finish (or abort it) before moving in the tree.", "busy");
      return;
    }
    const id = this.sessionId;
    const summarize = this.summarizeBox.checked;
    if (summarize) this.summarizing = true;
    this.updateControls();
    try {
      const r = await this.client.navigateTree(id, entry.id, { summarize });
      if (r.editorText !== undefined) {
        this.input.value = r.editorText;
        this.input.focus();
      }
    } catch (err) {
      this.transcript.notice("error", `Could not move there: ${errText(err)}`);
    } finally {
      this.summarizing = false;
    }
    if (id === this.sessionId) await this.reload();
    this.toggleSidebar(false);
  }

  private async label(entry: TreeNode): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const label = window.prompt("Label for this entry (empty clears it)", entry.label ?? "");
    if (label === null) return;
    try {
      await this.client.call("setLabel", { sessionId: this.sessionId, entryId: entry.id, ...(label.trim() ? { label: label.trim() } : {}) });
      void this.refreshTree();
    } catch (err) {
      this.transcript.notice("error", `Could not set the label: ${errText(err)}`);
    }
  }

  // ---- events ----------------------------------------------------------------------------------

  private onEvent(ev: AnyEvent): void {
    if (ev[1].sessionId !== this.sessionId) return;
    if (this.reloading) {
      this.queue.push(ev);
      return;
    }
    this.dispatch(ev);
  }

  private dispatch(ev: AnyEvent): void {
    const t = this.transcript;
    switch (ev[0]) {
      case "agent_start":
        this.running = true;
        this.turn = 0;
        break;
      case "turn_start":
        this.turn = ev[1].turn;
        break;
      case "message_start":
        t.messageStart(ev[1].message);
        if (ev[1].message.role === "user" && this.running) this.refreshStateSoon(); // a queued prompt was delivered
        break;
      case "message_update": {
        const m = this.state?.model;
        t.delta(ev[1].delta, { api: "", provider: m?.provider ?? "", model: m?.id ?? "" });
        break;
      }
      case "message_end":
        t.messageEnd(ev[1].message, ev[1].willRetry);
        if (ev[1].entryId) this.refreshTreeSoon();
        break;
      case "tool_execution_start":
        t.toolStart(ev[1].toolCallId, ev[1].toolName, ev[1].args);
        break;
      case "tool_execution_update":
        t.toolUpdate(ev[1].toolCallId, ev[1].partial.content);
        break;
      case "tool_execution_end":
        t.toolEnd(ev[1].toolCallId, ev[1].toolName, ev[1].result);
        break;
      case "turn_end":
        break;
      case "agent_end":
        this.running = false;
        this.turn = 0;
        t.runEnd(ev[1]);
        this.refreshStateSoon();
        this.refreshTreeSoon();
        this.refreshSessionsSoon();
        break;
      case "compaction_start":
        this.compacting = true;
        this.setPreparing(null);
        t.compactionStart(ev[1]);
        break;
      case "compaction_update": {
        const u = ev[1];
        if (u.reason === "prepare") this.setPreparing(u.phase === "ready" ? "ready" : u.phase === "discarded" ? null : "summarizing");
        t.compactionUpdate(u);
        break;
      }
      case "compaction_end":
        this.compacting = false;
        t.compactionEnd(ev[1]);
        this.refreshTreeSoon();
        break;
      case "branch_summary_start":
        this.summarizing = true;
        t.branchSummaryStart();
        break;
      case "branch_summary_end":
        this.summarizing = false;
        t.branchSummaryEnd(ev[1]);
        break;
      case "retry_start":
        t.retryStart(ev[1]);
        break;
      case "retry_end":
        t.retryEnd(ev[1]);
        break;
      case "usage_update":
        this.setMeter(ev[1].contextTokens, ev[1].contextWindow, ev[1].threshold);
        break;
      case "error": {
        const e = ev[1];
        const data = (e.data ?? {}) as { class?: string; status?: number; code?: string; tokensBefore?: number };
        if (e.code === -32017) t.notice("warn", `Automatic compaction skipped: it would free too little (${fmtInt(data.tokensBefore ?? 0)} tokens in context).`, "compaction-skipped");
        else if (e.code === -32014) t.notice("error", `Provider error${data.class ? ` (${data.class}${data.status ? `, HTTP ${data.status}` : ""})` : ""}: ${e.message}`, "provider-error");
        else t.notice("error", `${e.message} (${e.code})`, "error");
        break;
      }
    }
    this.updateControls();
  }

  // ---- context meter, compaction ------------------------------------------------------------------

  private tokens = 0;
  private window = 0;
  /** the server's threshold (older servers do not send one: computed from the settings then) */
  private threshold: number | undefined;

  private setMeter(tokens: number, window: number, threshold?: number): void {
    this.tokens = tokens;
    this.window = window;
    this.threshold = threshold;
    this.renderMeter();
  }

  private setPreparing(phase: "summarizing" | "ready" | null): void {
    this.meterPrep.hidden = phase === null;
    this.meter.dataset.preparing = phase ?? "none";
    this.meterPrep.textContent = phase === "ready" ? "summary ready" : phase === "summarizing" ? "preparing summary…" : "";
    this.meterPrep.title = phase ? "The next compaction's summary is written ahead of time, so compacting will not make you wait." : "";
  }

  private renderMeter(): void {
    const { tokens, window } = this;
    const threshold = this.threshold ?? compactionThreshold(window, this.reserve);
    const pct = window > 0 ? Math.min(100, (tokens / window) * 100) : 0;
    this.meterFill.style.width = `${pct}%`;
    this.meterMark.style.left = `${window > 0 ? (threshold / window) * 100 : 0}%`;
    this.meter.dataset.tokens = String(Math.round(tokens));
    this.meter.dataset.window = String(window);
    this.meter.dataset.threshold = String(threshold);
    this.meter.dataset.over = String(tokens > threshold);
    this.meter.dataset.auto = String(this.autoBox.checked);
    this.meterText.textContent = window > 0 ? `${fmtInt(tokens)} / ${fmtInt(window)} tokens · ${Math.round(pct)}%` : "";
    this.meter.title = window > 0 ? `Context: ${fmtInt(tokens)} of ${fmtInt(window)} tokens. Automatic compaction above ${fmtInt(threshold)} (window − ${fmtInt(window - threshold)} reserved).` : "";
    const bar = this.meter.firstElementChild;
    bar?.setAttribute("aria-valuenow", String(Math.round(tokens)));
    bar?.setAttribute("aria-valuemax", String(window));
  }

  private async setAutoCompaction(enabled: boolean): Promise<void> {
    if (!this.client || !this.sessionId) return;
    try {
      const r = await this.client.call("setAutoCompactionEnabled", { sessionId: this.sessionId, enabled });
      this.autoBox.checked = r.enabled;
      if (this.state) this.state = { ...this.state, autoCompactionEnabled: r.enabled };
    } catch (err) {
      this.autoBox.checked = !enabled;
      this.transcript.notice("error", `Could not change automatic compaction: ${errText(err)}`);
    }
    this.renderMeter();
  }

  private toggleCompactForm(show = this.compactForm.hidden): void {
    this.compactForm.hidden = !show;
    if (show) this.compactInstr.focus();
  }

  private async compactNow(): Promise<void> {
    if (!this.client || !this.sessionId) return;
    const instructions = this.compactInstr.value.trim();
    this.toggleCompactForm(false);
    this.compacting = true;
    this.updateControls();
    try {
      await this.client.compact(this.sessionId, instructions || undefined);
      this.compactInstr.value = "";
    } catch (err) {
      const nothing = err instanceof PithRpcError && err.code === -32012;
      this.transcript.notice(nothing ? "info" : "error", nothing ? "Nothing to compact yet." : `Compaction failed: ${errText(err)}`, nothing ? "nothing-to-compact" : "error");
    } finally {
      this.compacting = false;
      this.updateControls();
      void this.refreshState();
    }
  }

  // ---- prompting -------------------------------------------------------------------------------------

  private get busy(): boolean {
    return this.running || this.compacting || this.summarizing || this.bashing;
  }

  private async submit(delivery?: "steer" | "followUp"): Promise<void> {
    const client = this.client;
    const id = this.sessionId;
    const text = this.input.value.trim();
    if (!client || !id || text === "") return;
    if (!this.running && text.startsWith("!") && text.length > 1) return this.runBash(text.slice(1).trim());
    const mode = this.running ? (delivery ?? "steer") : undefined;
    this.input.value = "";
    try {
      await client.prompt(id, text, mode ? { delivery: mode } : {});
      if (mode) this.refreshStateSoon();
    } catch (err) {
      if (this.input.value === "") this.input.value = text;
      this.transcript.notice("error", `Not sent: ${errText(err)}`, "send-error");
    }
  }

  private async runBash(command: string): Promise<void> {
    if (!this.client || !this.sessionId) return;
    this.input.value = "";
    this.bashing = true;
    this.updateControls();
    try {
      await this.client.bash(this.sessionId, command);
    } catch (err) {
      this.input.value = `!${command}`;
      this.transcript.notice("error", `Command failed: ${errText(err)}`);
    } finally {
      this.bashing = false;
      this.updateControls();
      void this.refreshState();
    }
  }

  private async abort(): Promise<void> {
    if (!this.client || !this.sessionId) return;
    try {
      await this.client.abort(this.sessionId);
    } catch (err) {
      this.transcript.notice("error", `Abort failed: ${errText(err)}`);
    }
  }

  // ---- layout ------------------------------------------------------------------------------------

  private updateControls(): void {
    const connected = this.connEl.dataset.state === "open";
    const has = connected && this.sessionId !== undefined;
    const otherBusy = this.compacting || this.summarizing || this.bashing;
    this.root.dataset.busy = String(this.busy);
    this.root.dataset.running = String(this.running);
    this.sendBtn.hidden = this.running;
    this.steerBtn.hidden = !this.running;
    this.followBtn.hidden = !this.running;
    this.abortBtn.hidden = !this.busy;
    this.sendBtn.disabled = !has || otherBusy;
    this.steerBtn.disabled = !has;
    this.followBtn.disabled = !has;
    this.abortBtn.disabled = !has;
    this.input.disabled = !has;
    this.compactBtn.disabled = !has || this.busy;
    this.autoBox.disabled = !has;
    const state = this.compacting ? "compacting" : this.summarizing ? "summarizing" : this.bashing ? "bash" : this.running ? "running" : "idle";
    this.statusEl.dataset.state = state;
    this.statusEl.textContent =
      state === "compacting"
        ? "Compacting the context…"
        : state === "summarizing"
          ? "Summarizing the branch…"
          : state === "bash"
            ? "Running your command…"
            : state === "running"
              ? `Working${this.turn > 0 ? ` (turn ${this.turn})` : ""}… Esc aborts`
              : "";
  }

  private toggleSidebar(open = this.root.dataset.sidebar !== "open"): void {
    this.root.dataset.sidebar = open ? "open" : "closed";
  }

  private toggleNewForm(show = this.newForm.hidden): void {
    this.newForm.hidden = !show;
    if (show) this.cwdInput.focus();
  }

  private showTab(tab: "sessions" | "tree"): void {
    for (const b of this.root.querySelectorAll<HTMLElement>(".tab")) b.setAttribute("aria-selected", String(b.dataset.tab === tab));
    for (const p of this.root.querySelectorAll<HTMLElement>(".panel")) p.hidden = p.dataset.panel !== tab;
    if (tab === "tree") void this.refreshTree();
  }
}

new App(document.getElementById("app") ?? document.body).start();
