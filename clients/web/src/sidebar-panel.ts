/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The sidebar: two tabs. Sessions: the list (by working directory) and a form for a new one (its
// folder picked by the user: folder-picker.ts).
// Tree: the session's entries; click one to continue from there (optionally summarizing the
// branch left), or fork a new session from it, or label it. sidebar.ts draws the lists.
import { debounce, errText, type AppHost } from "./host.js";
import { h } from "./dom.js";
import { FolderPicker } from "./folder-picker.js";
import { renderSessions, renderTree, type SessionSummary, type TreeNode } from "./sidebar.js";

export class SidebarPanel {
  readonly el: HTMLElement;
  sessions: SessionSummary[] = [];
  private readonly sessionList = h("div", { class: "session-list" });
  private readonly treeList = h("div", { class: "tree-list" });
  private readonly summarizeBox = h("input", { type: "checkbox", class: "summarize-branch" });
  private readonly newForm: HTMLFormElement;
  private readonly folder = new FolderPicker();
  private readonly nameInput = h("input", { type: "text", name: "name", placeholder: "name (optional)", autocomplete: "off" });
  readonly refreshTreeSoon = debounce(() => void this.refreshTree(), 200);
  readonly refreshSessionsSoon = debounce(() => void this.refreshSessions(), 300);

  constructor(private readonly host: AppHost) {
    this.newForm = h(
      "form",
      { class: "new-session-form", hidden: true },
      this.folder.el,
      this.nameInput,
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary", text: "Create" }), h("button", { type: "button", class: "cancel", text: "Cancel", onclick: () => this.toggleNewForm(false) })),
    );
    this.newForm.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.createSession();
    });
    const tabs = h(
      "div",
      { class: "tabs", role: "tablist" },
      h("button", { type: "button", role: "tab", class: "tab", "data-tab": "sessions", "aria-selected": "true", text: "Sessions", onclick: () => this.showTab("sessions") }),
      h("button", { type: "button", role: "tab", class: "tab", "data-tab": "tree", "aria-selected": "false", text: "Tree", onclick: () => this.showTab("tree") }),
    );
    this.el = h(
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
  }

  /** Marks the session shown in the list. */
  markCurrent(sessionId: string | undefined): void {
    for (const el of this.sessionList.querySelectorAll<HTMLElement>(".session-item")) {
      if (el.dataset.sessionId === sessionId) el.setAttribute("aria-current", "true");
      else el.removeAttribute("aria-current");
    }
  }

  // ---- sessions --------------------------------------------------------------------------------

  async refreshSessions(): Promise<void> {
    const client = this.host.client();
    if (!client) return;
    try {
      this.sessions = (await client.listSessions()).sessions;
      renderSessions(this.sessionList, this.sessions, this.host.session()?.id, (id) => void this.open(id));
      this.host.sessionsChanged();
    } catch (err) {
      console.warn("pith: listSessions failed", err);
    }
  }

  async open(id: string): Promise<void> {
    const client = this.host.client();
    if (!client) return;
    this.host.showSidebar(false);
    await this.host.adopt(() => client.openSession({ sessionId: id }));
  }

  private async createSession(): Promise<void> {
    const client = this.host.client();
    if (!client) return;
    const cwd = this.folder.picked();
    if (!cwd) return;
    const name = this.nameInput.value.trim();
    const ok = await this.host.adopt(() => client.createSession({ cwd, ...(name ? { name } : {}) }));
    if (ok) {
      this.folder.remember(cwd);
      this.folder.input.value = "";
      this.nameInput.value = "";
      this.toggleNewForm(false);
      this.host.showSidebar(false);
      this.host.focusComposer();
    }
  }

  private toggleNewForm(show = this.newForm.hidden): void {
    this.newForm.hidden = !show;
    if (!show) return;
    // the folders the listed sessions work in, newest first
    this.folder.offer([...this.sessions].sort((a, b) => Date.parse(b.modified) - Date.parse(a.modified)).map((s) => s.cwd));
    this.folder.input.focus();
  }

  private showTab(tab: "sessions" | "tree"): void {
    for (const b of this.el.querySelectorAll<HTMLElement>(".tab")) b.setAttribute("aria-selected", String(b.dataset.tab === tab));
    for (const p of this.el.querySelectorAll<HTMLElement>(".panel")) p.hidden = p.dataset.panel !== tab;
    if (tab === "tree") void this.refreshTree();
  }

  // ---- tree --------------------------------------------------------------------------------------

  async refreshTree(): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    try {
      const tree = await s.client.getTree(s.id);
      if (s.id !== this.host.session()?.id) return;
      renderTree(this.treeList, tree, {
        navigate: (e, row) => this.askMove(e, row),
        fork: (e) => void this.fork(e),
        label: (e) => void this.label(e),
      });
    } catch (err) {
      console.warn("pith: getTree failed", err);
    }
  }

  /** Moving the leaf changes what the chat shows: asked in the row first (a stray tap does nothing). */
  private askMove(entry: TreeNode, row: HTMLElement): void {
    for (const el of this.treeList.querySelectorAll(".tree-confirm")) el.remove();
    for (const el of this.treeList.querySelectorAll<HTMLElement>("[data-confirming]")) delete el.dataset.confirming;
    const close = () => {
      bar.remove();
      delete row.dataset.confirming;
    };
    const summarize = this.summarizeBox.checked ? " The branch you leave is summarized first." : "";
    const bar = h(
      "div",
      { class: "tree-confirm", role: "group", "aria-label": "Move here?" },
      h("span", { text: `Continue from here? The chat switches to this point; nothing is deleted.${summarize}` }),
      h("button", { type: "button", class: "tree-move primary", text: "Move here", onclick: () => (close(), void this.navigate(entry)) }),
      h("button", { type: "button", class: "tree-cancel", text: "Cancel", onclick: close }),
    );
    row.dataset.confirming = "true";
    row.appendChild(bar);
    bar.querySelector<HTMLElement>(".tree-move")?.focus();
  }

  private async navigate(entry: TreeNode): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    if (this.host.activity().busy) {
      this.host.notice("warn", "Wait for the run to finish (or abort it) before moving in the tree.", "busy");
      return;
    }
    const summarize = this.summarizeBox.checked;
    if (summarize) this.host.ownWork("summarizing", true);
    try {
      const r = await s.client.navigateTree(s.id, entry.id, { summarize });
      if (r.editorText !== undefined) this.host.setDraft(r.editorText);
    } catch (err) {
      this.host.notice("error", `Could not move there: ${errText(err)}`);
    } finally {
      this.host.ownWork("summarizing", false);
    }
    if (s.id === this.host.session()?.id) await this.host.reload();
    this.host.showSidebar(false);
  }

  private async fork(entry: TreeNode): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    await this.host.adopt(() => s.client.forkSession(s.id, entry.id));
  }

  private async label(entry: TreeNode): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    const label = window.prompt("Label for this entry (empty clears it)", entry.label ?? "");
    if (label === null) return;
    try {
      await s.client.call("setLabel", { sessionId: s.id, entryId: entry.id, ...(label.trim() ? { label: label.trim() } : {}) });
      void this.refreshTree();
    } catch (err) {
      this.host.notice("error", `Could not set the label: ${errText(err)}`);
    }
  }
}
