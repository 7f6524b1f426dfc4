/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The bar at the top: the menu button (the sidebar is a drawer on narrow screens), the session's
// title and where it runs, and the connection's state (with "retry now" while it reconnects).
import type { SessionState } from "../../ts/session-view.js";
import type { ConnStatus } from "./conn.js";
import { h } from "./dom.js";

export interface TopBarActions {
  toggleSidebar(): void;
  rename(): void;
  retryNow(): void;
}

export class TopBar {
  readonly el: HTMLElement;
  private readonly connEl = h("div", { class: "conn", "data-state": "connecting", role: "status", text: "connecting…" });
  private readonly retryBtn = h("button", { type: "button", class: "retry-now ghost", text: "retry now", hidden: true });
  private readonly titleEl = h("div", { class: "title" });
  private readonly renameBtn: HTMLElement;
  private readonly subtitleEl = h("div", { class: "subtitle muted" });

  constructor(actions: TopBarActions) {
    const menuBtn = h("button", { type: "button", class: "menu", "aria-label": "Sessions and tree", title: "Sessions and tree", text: "☰", onclick: () => actions.toggleSidebar() });
    // no session: no title and nothing to rename (the brand already says "pith")
    const renameBtn = h("button", { type: "button", class: "rename ghost", "aria-label": "Rename session", title: "Rename session", text: "✎", hidden: true, onclick: () => actions.rename() });
    this.renameBtn = renameBtn;
    const heading = h("div", { class: "heading" }, h("div", { class: "title-row" }, this.titleEl, renameBtn), this.subtitleEl);
    this.el = h("header", { class: "topbar" }, menuBtn, h("div", { class: "brand", text: "pith" }), heading, this.connEl, this.retryBtn);
    this.retryBtn.addEventListener("click", () => actions.retryNow());
  }

  get connected(): boolean {
    return this.connEl.dataset.state === "open";
  }

  showConnection(s: ConnStatus): void {
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
      case "reconnecting":
        this.connEl.textContent = `connection lost — reconnecting in ${Math.max(1, Math.round(s.inMs / 1000))} s`;
        this.connEl.title = s.daemonUp ? "The daemon answers but the connection failed" : "The daemon does not answer";
        break;
      case "refused":
        this.connEl.textContent = "the token was refused";
        break;
    }
  }

  /** The session's name, else its first message (from the session list), else "New session". */
  showTitle(st: SessionState | undefined, firstMessage: string | undefined): void {
    this.renameBtn.hidden = !st;
    if (!st) {
      this.titleEl.textContent = "";
      this.subtitleEl.textContent = "";
      this.subtitleEl.title = "";
      document.title = "pith";
      return;
    }
    const title = st.name || firstMessage || "New session";
    this.titleEl.textContent = title;
    // the directory the session's tools write in (openSession's cwd when one was given, not always its file's)
    this.subtitleEl.textContent = `${st.cwd} · ${st.model.name ?? st.model.id}`;
    this.subtitleEl.title = `works in ${st.cwd}`;
    document.title = `${title} — pith`;
  }
}
