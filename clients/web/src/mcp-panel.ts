/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The session's MCP servers, in the controls row: a small closed "MCP" badge that counts them by
// state and marks a failed one (in words, not only in colour, its reason in the tooltip), opened
// to list each server with its transport, state, reason and tools, read-only ones marked. Drawn
// from the view's list (listMcpServers, then mcp_server events); hidden for a session without any.
import type { McpServerInfo } from "../../ts/mcp-servers.js";
import { h } from "./dom.js";

const STATE_TEXT: Record<McpServerInfo["state"], string> = {
  connecting: "starting…",
  ready: "ready",
  failed: "failed",
  disabled: "disabled",
};

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

export class McpPanel {
  readonly el: HTMLDetailsElement;
  private readonly counts = h("span", { class: "mcp-counts" });
  private readonly failedMark = h("span", { class: "mcp-failed-mark", hidden: true });
  private readonly list = h("ul", { class: "mcp-list", "aria-label": "MCP servers" });
  private shown: readonly McpServerInfo[] | undefined;

  constructor() {
    this.el = h(
      "details",
      { class: "mcp", hidden: true },
      h("summary", { title: "The session's MCP servers: their tools join the model's" }, h("span", { class: "control-label", text: "MCP" }), this.counts, this.failedMark),
      this.list,
    );
  }

  render(servers: readonly McpServerInfo[] | undefined): void {
    if (servers === this.shown) return;
    this.shown = servers;
    this.el.hidden = !servers || servers.length === 0;
    if (!servers || servers.length === 0) {
      this.list.replaceChildren();
      return;
    }
    const by = (state: McpServerInfo["state"]) => servers.filter((s) => s.state === state);
    const failed = by("failed");
    const parts = [`${by("ready").length}/${servers.filter((s) => s.state !== "disabled").length} ready`];
    if (by("connecting").length > 0) parts.push(`${by("connecting").length} starting`);
    if (by("disabled").length > 0) parts.push(`${by("disabled").length} disabled`);
    this.counts.textContent = parts.join(" · ");
    this.el.dataset.failed = String(failed.length);
    this.failedMark.hidden = failed.length === 0;
    this.failedMark.textContent = failed.length > 0 ? `⚠ ${failed.length} failed` : "";
    this.failedMark.title = failed.map((s) => `${s.name}: ${s.error ?? "failed"}`).join("\n");
    this.list.replaceChildren(...servers.map((s) => this.serverEl(s)));
  }

  private serverEl(s: McpServerInfo): HTMLElement {
    const tools = s.tools.length > 0 ? h("ul", { class: "mcp-tools", "aria-label": `Tools of ${s.name}` }, s.tools.map((t) => toolEl(t))) : null;
    return h(
      "li",
      { class: "mcp-server", "data-server": s.name, "data-state": s.state },
      h(
        "div",
        { class: "mcp-server-head" },
        h("span", { class: "mcp-name", text: s.name }),
        h("span", { class: "mcp-transport muted", text: s.transport }),
        h("span", { class: "mcp-state", text: STATE_TEXT[s.state] }),
        s.state === "ready" ? h("span", { class: "mcp-tool-count muted", text: plural(s.tools.length, "tool") }) : null,
        s.source === "client" ? h("span", { class: "muted", text: "(from the client)" }) : null,
      ),
      s.state === "failed" ? h("div", { class: "mcp-error", text: s.error ?? "It failed to start." }) : null,
      tools,
    );
  }
}

function toolEl(t: McpServerInfo["tools"][number]): HTMLElement {
  return h(
    "li",
    { class: "mcp-tool", "data-tool": t.name, "data-read-only": String(t.readOnly), title: `The model calls it ${t.name}` },
    h("code", { text: t.serverName }),
    t.readOnly ? h("span", { class: "mcp-ro", text: "read-only", title: "Runs without asking in ask mode, and in readonly mode" }) : h("span", { class: "mcp-rw muted", text: "not read-only", title: "Not marked read-only: asked about in ask mode, refused in readonly mode" }),
  );
}
