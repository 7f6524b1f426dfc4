/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The sidebar's lists: sessions grouped by working directory, and the session tree.
import type { ResultOf } from "../../../protocol/index.js";
import { basename, clear, h, relTime } from "./dom.js";
import { plainLabel } from "./markdown.js";

export type SessionSummary = ResultOf<"listSessions">["sessions"][number];
export type Tree = ResultOf<"getTree">;
export type TreeNode = Tree["entries"][number];

/** Sessions by cwd; groups ordered by their newest session, sessions newest first. */
export function renderSessions(container: HTMLElement, sessions: SessionSummary[], currentId: string | undefined, open: (id: string) => void): void {
  clear(container);
  if (sessions.length === 0) {
    container.appendChild(h("div", { class: "empty", text: "No sessions yet. Create one to start." }));
    return;
  }
  const sorted = [...sessions].sort((a, b) => Date.parse(b.modified) - Date.parse(a.modified));
  const groups = new Map<string, SessionSummary[]>();
  for (const s of sorted) {
    const g = groups.get(s.cwd);
    if (g) g.push(s);
    else groups.set(s.cwd, [s]);
  }
  for (const [cwd, list] of groups) {
    const items = list.map((s) => {
      const title = s.name || s.firstMessage || "(no messages yet)";
      return h(
        "li",
        null,
        h(
          "button",
          {
            class: "session-item",
            type: "button",
            "data-session-id": s.id,
            "aria-current": s.id === currentId ? "true" : undefined,
            title: `${title}\n${s.file}`,
            onclick: () => open(s.id),
          },
          h("span", { class: "session-name", text: title }),
          h("span", { class: "session-meta", text: `${relTime(s.modified)} · ${s.messageCount} msg${s.messageCount === 1 ? "" : "s"}${s.parentSession ? " · fork" : ""}` }),
        ),
      );
    });
    container.appendChild(
      h("section", { class: "session-group", "data-cwd": cwd }, h("h3", { class: "group-head", title: cwd }, h("span", { text: basename(cwd) }), h("span", { class: "muted path", text: `\u200e${cwd}\u200e` })), h("ul", null, items)),
    );
  }
}

const BADGES: Record<string, [string, string]> = {
  user: ["U", "your message"],
  assistant: ["A", "assistant reply"],
  toolResult: ["T", "tool result"],
  bashExecution: ["$", "your shell command"],
  custom: ["C", "custom message"],
  branchSummary: ["⎇", "branch summary"],
  compactionSummary: ["⟲", "compaction"],
  compaction: ["⟲", "compaction"],
  branch_summary: ["⎇", "branch summary"],
  model_change: ["M", "model change"],
  thinking_level_change: ["θ", "thinking level change"],
  custom_message: ["C", "custom message"],
  label: ["#", "label"],
  session_info: ["i", "session info"],
};

export interface TreeActions {
  /** a row was clicked (the panel asks before moving there) */
  navigate(entry: TreeNode, row: HTMLElement): void;
  fork(entry: TreeNode): void;
  label(entry: TreeNode): void;
}

/**
 * The tree, depth first, indented at forks (a row that starts a branch has a coloured rule); the
 * path to the active leaf is highlighted, and each row says when it was written, so the same
 * prompt on two branches can be told apart.
 */
export function renderTree(container: HTMLElement, tree: Tree, actions: TreeActions): void {
  clear(container);
  if (tree.entries.length === 0) {
    container.appendChild(h("div", { class: "empty", text: "Nothing here yet." }));
    return;
  }
  const parent = new Map(tree.entries.map((e) => [e.id, e.parentId]));
  const children = new Map<string | null, number>();
  for (const e of tree.entries) children.set(e.parentId, (children.get(e.parentId) ?? 0) + 1);
  const onPath = new Set<string>();
  for (let id = tree.leafId; id; id = parent.get(id) ?? null) onPath.add(id);
  const rows = tree.entries.map((e) => {
    const kind = e.type === "message" ? (e.role ?? "message") : e.type;
    const [badge, what] = BADGES[kind] ?? ["·", kind];
    // a compaction's preview is its summary's markdown: shown as the text it reads as
    const preview = plainLabel(e.preview);
    const active = e.id === tree.leafId;
    return h(
      "li",
      {
        class: "tree-row",
        "data-entry-id": e.id,
        "data-type": e.type,
        "data-role": e.role,
        "data-kind": kind,
        "data-active": active ? "true" : undefined,
        "data-on-path": onPath.has(e.id) ? "true" : undefined,
        "data-branch-start": (children.get(e.parentId) ?? 0) > 1 ? "true" : undefined,
      },
      h(
        "button",
        { class: "tree-go", type: "button", title: `${what}: ${preview}\n${new Date(e.timestamp).toLocaleString()}\nClick to continue from here`, onclick: (ev: MouseEvent) => actions.navigate(e, (ev.currentTarget as HTMLElement).closest("li") as HTMLElement) },
        h("span", { class: "indent" }),
        h("span", { class: `badge kind-${kind}`, text: badge, "aria-label": what }),
        h("span", { class: "preview", text: preview || `(${what})` }),
        e.label ? h("span", { class: "label-chip", text: e.label }) : null,
        active ? h("span", { class: "leaf-chip", text: "you are here" }) : null,
        h("span", { class: "tree-time", text: new Date(e.timestamp).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }) }),
      ),
      h("button", { class: "tree-act fork", type: "button", title: "Fork a new session from here", "aria-label": "Fork from here", onclick: () => actions.fork(e) }, "fork"),
      h("button", { class: "tree-act label", type: "button", title: "Set a label", "aria-label": "Label", onclick: () => actions.label(e) }, "label"),
    );
  });
  // indentation goes through the CSSOM (no inline style attribute under the page's CSP)
  rows.forEach((row, i) => {
    const indent = row.querySelector<HTMLElement>(".indent");
    if (indent) indent.style.width = `${tree.entries[i].depth * 16}px`;
  });
  container.appendChild(h("ol", { class: "tree" }, rows));
  container.querySelector<HTMLElement>("[data-active]")?.scrollIntoView({ block: "nearest" });
}
