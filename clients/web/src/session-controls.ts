/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The session's settings and figures, in a row under the context bar: the model (every model
// listModels names, as provider/id), the thinking level, the permission mode, what the session
// used so far (getSessionStats: tokens and cost over every branch) and deleting it. A banner says
// when the model is the offline demo's.
import type { ResultOf } from "../../../protocol/index.js";
import type { SessionView } from "../../ts/session-view.js";
import { debounce, errText, type AppHost } from "./host.js";
import { fmtInt, h } from "./dom.js";

type ModelSummary = ResultOf<"listModels">["models"][number];
type Stats = ResultOf<"getSessionStats">;

const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
const PERMISSION: [string, string][] = [
  ["auto", "run every tool"],
  ["ask", "ask before every tool that is not read-only (write, edit, bash, an MCP tool not marked read-only)"],
  ["readonly", "refuse every tool that is not read-only"],
];

export interface ControlsActions {
  /** the session was deleted */
  deleted(id: string): void;
}

export class SessionControls {
  readonly el: HTMLElement;
  readonly banner = h("div", { class: "offline-banner", role: "note", hidden: true });
  private readonly model = h("select", { class: "model-picker", "aria-label": "Model" });
  private readonly thinking = h("select", { class: "thinking-level", "aria-label": "Thinking level" }, THINKING.map((t) => h("option", { value: t, text: t })));
  private readonly permission = h("select", { class: "permission-mode", "aria-label": "Permission mode" }, PERMISSION.map(([v, what]) => h("option", { value: v, text: v, title: what })));
  private readonly stats = h("span", { class: "stats muted", title: "Tokens and cost over every branch of the session" });
  private readonly deleteBtn = h("button", { type: "button", class: "delete-session danger ghost", text: "Delete", title: "Delete this session's file" });
  private models: ModelSummary[] = [];
  private shownFor: SessionView["info"] | undefined;
  readonly refreshStatsSoon = debounce(() => void this.refreshStats(), 250);

  /** beside: shown in the row after the permission mode (the MCP servers' badge) */
  constructor(
    private readonly host: AppHost,
    private readonly actions: ControlsActions,
    beside: readonly HTMLElement[] = [],
  ) {
    this.el = h(
      "div",
      { class: "controls" },
      h("label", { class: "control" }, h("span", { class: "control-label", text: "Model" }), this.model),
      h("label", { class: "control" }, h("span", { class: "control-label", text: "Thinking" }), this.thinking),
      h("label", { class: "control" }, h("span", { class: "control-label", text: "Tools" }), this.permission),
      ...beside,
      this.stats,
      this.deleteBtn,
    );
    this.model.addEventListener("change", () => void this.set("setModel", this.model.value));
    this.thinking.addEventListener("change", () => void this.set("setThinkingLevel", this.thinking.value));
    this.permission.addEventListener("change", () => void this.set("setPermissionMode", this.permission.value));
    this.deleteBtn.addEventListener("click", () => void this.deleteSession());
  }

  async loadModels(): Promise<void> {
    const client = this.host.client();
    if (!client) return;
    try {
      this.models = (await client.call("listModels", {})).models;
      this.shownFor = undefined;
    } catch (err) {
      console.warn("pith: listModels failed", err);
    }
  }

  async refreshStats(): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    try {
      const st = await s.client.call("getSessionStats", { sessionId: s.id });
      if (s.id === this.host.session()?.id) this.showStats(st);
    } catch {
      // the next run's end brings it
    }
  }

  private showStats(st: Stats): void {
    this.stats.dataset.tokens = String(st.tokens.total);
    this.stats.dataset.cost = String(st.cost);
    this.stats.textContent = `${fmtInt(st.tokens.total)} tokens · $${st.cost.toFixed(st.cost > 0 && st.cost < 0.01 ? 4 : 2)}`;
    this.stats.title = `Over every branch: ${fmtInt(st.tokens.input)} in, ${fmtInt(st.tokens.output)} out, ${fmtInt(st.tokens.cacheRead)} cache read, ${fmtInt(st.tokens.cacheWrite)} cache write; ${st.totalMessages} messages, ${st.toolCalls} tool calls`;
  }

  render(view: SessionView | undefined, enabled: boolean, busy: boolean): void {
    this.el.hidden = !view;
    for (const c of [this.model, this.thinking, this.deleteBtn]) c.disabled = !enabled || busy;
    this.permission.disabled = !enabled;
    if (!view) {
      this.banner.hidden = true;
      this.stats.textContent = "";
      this.shownFor = undefined;
      return;
    }
    const info = view.info;
    if (info === this.shownFor) return;
    this.shownFor = info;
    const current = `${info.model.provider ?? ""}/${info.model.id}`;
    const names = this.models.map((m) => `${m.provider}/${m.id}`);
    const options = names.includes(current) || !info.model.provider ? names : [current, ...names];
    // usable models first (listModels' order), each with its window; the ones that need a key after
    // them, marked and not pickable, so choosing one cannot fail after the pick
    const option = (name: string) => {
      const m = this.models.find((x) => `${x.provider}/${x.id}` === name);
      const keyless = m?.hasKey === false && name !== current;
      const text = m ? `${name} · ${fmtInt(m.contextWindow)} tokens${keyless ? " · needs a key" : ""}` : name;
      return h("option", { value: name, text, title: m ? `${m.name ?? m.id} · ${fmtInt(m.contextWindow)} tokens${keyless ? " · no API key: set the provider's key and restart pith" : ""}` : undefined, ...(keyless ? { disabled: "" } : {}) });
    };
    const needKey = options.filter((name) => this.models.find((x) => `${x.provider}/${x.id}` === name)?.hasKey === false && name !== current);
    const ready = options.filter((name) => !needKey.includes(name));
    this.model.replaceChildren(
      ...ready.map(option),
      ...(needKey.length > 0 ? [h("optgroup", { label: "Needs an API key" }, needKey.map(option))] : []),
    );
    this.model.value = current;
    this.thinking.value = info.thinkingLevel ?? "off";
    this.permission.value = info.permissionMode ?? "auto";
    const offline = info.model.provider === "scripted";
    this.banner.hidden = !offline;
    this.banner.textContent = offline
      ? "Offline demo: replies come from pith's scripted model, not a real one. To use a real model, set ANTHROPIC_API_KEY (or configure a provider) and restart pith serve, then pick it here."
      : "";
  }

  private async set(method: "setModel" | "setThinkingLevel" | "setPermissionMode", value: string): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    try {
      if (method === "setModel") await s.client.call("setModel", { sessionId: s.id, model: value });
      else if (method === "setThinkingLevel") await s.client.call("setThinkingLevel", { sessionId: s.id, level: value as (typeof THINKING)[number] });
      else await s.client.call("setPermissionMode", { sessionId: s.id, mode: value as "auto" | "ask" | "readonly" });
    } catch (err) {
      this.host.notice("error", `Could not change it: ${errText(err)}`);
    }
    this.shownFor = undefined;
    await this.host.refreshState();
  }

  private async deleteSession(): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    if (!window.confirm("Delete this session? Its file is removed for good; this cannot be undone.")) return;
    try {
      await s.client.call("deleteSession", { sessionId: s.id });
      this.actions.deleted(s.id);
    } catch (err) {
      this.host.notice("error", `Could not delete the session: ${errText(err)}`);
    }
  }
}
