/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The model's replies and their tool calls, drawn from transcript items and tool states
// (clients/ts/transcript-state.ts). Both are updated in place rather than rebuilt: a reply grows
// a delta at a time, and a tool call the user expanded must stay expanded.
import type { AssistantContentBlock, ToolResultMessage } from "../../../protocol/index.js";
import { mcpToolOrigin, type McpServerInfo } from "../../ts/mcp-servers.js";
import type { ToolState, ToolStatus, TranscriptItem } from "../../ts/transcript-state.js";
import { diffEl } from "./diff-view.js";
import { clear, fmtInt, h } from "./dom.js";
import { contentText, images, renderText, thinkingEl } from "./rich-text.js";

type AssistantItem = Extract<TranscriptItem, { type: "assistant" }>;

// ---- tool calls --------------------------------------------------------------------------------

/** Argument keys that say the most about a call, in the order they are looked for. */
const PRIMARY_ARGS = ["command", "path", "file_path", "pattern", "glob", "url", "query"];

function argSummary(args: Readonly<Record<string, unknown>>): string {
  for (const k of PRIMARY_ARGS) {
    const v = args[k];
    if (typeof v === "string" && v !== "") return v.split("\n")[0].slice(0, 160);
  }
  const s = JSON.stringify(args);
  return s === "{}" ? "" : s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

const STATUS_TEXT: Record<ToolStatus, string> = {
  streaming: "receiving…",
  pending: "queued",
  running: "running…",
  done: "done",
  error: "error",
  unanswered: "no result on this branch",
};

/**
 * One tool call: a collapsed <details> with the arguments and the result. A call of an MCP
 * server's tool reads like a built-in one's, its server named in front of the tool's own name.
 */
export class ToolView {
  readonly el: HTMLDetailsElement;
  private readonly serverEl = h("span", { class: "tool-server", hidden: true });
  private readonly nameEl: HTMLElement;
  private readonly argEl: HTMLElement;
  private readonly statusEl: HTMLElement;
  private readonly argsBox: HTMLElement;
  private readonly resultBox: HTMLElement;
  private shown: ToolState | undefined;
  /** the session's MCP servers, which tell a call's server before its result does */
  private servers: readonly McpServerInfo[] = [];
  /** what the name and server shown were drawn from */
  private originKey: string | undefined;

  constructor(id: string, name: string) {
    this.nameEl = h("span", { class: "tool-name", text: name });
    this.argEl = h("span", { class: "tool-arg" });
    this.statusEl = h("span", { class: "tool-status", text: STATUS_TEXT.pending });
    this.argsBox = h("div", { class: "tool-args" });
    this.resultBox = h("div", { class: "tool-result" });
    this.el = h(
      "details",
      { class: "tool", "data-tool-call-id": id, "data-tool-name": name, "data-status": "pending" },
      h("summary", null, this.serverEl, this.nameEl, this.argEl, this.statusEl),
      h("div", { class: "tool-body" }, h("div", { class: "section-label", text: "Arguments" }), this.argsBox, h("div", { class: "section-label", text: "Result" }), this.resultBox),
    );
  }

  /** Redraws what changed since the state last shown. */
  update(t: ToolState): void {
    const p = this.shown;
    this.shown = t;
    if (t.name !== p?.name) this.el.dataset.toolName = t.name;
    if (t.name !== p?.name || t.result !== p?.result) this.showOrigin();
    if (t.rawArgs !== undefined) {
      if (t.rawArgs !== p?.rawArgs) {
        this.argEl.textContent = `${fmtInt(t.rawArgs.length)} chars of arguments`;
        // only while open: the JSON so far is only of interest to someone looking
        if (this.el.open) {
          clear(this.argsBox);
          this.argsBox.appendChild(h("pre", { class: "scroll", text: t.rawArgs }));
        }
      }
    } else if (t.args && (t.args !== p?.args || p?.rawArgs !== undefined)) this.setArgs(t.args);
    if (t.status !== p?.status) {
      this.el.dataset.status = t.status;
      this.statusEl.textContent = STATUS_TEXT[t.status];
    }
    if (t.result) {
      if (t.result !== p?.result) this.setResult(t.result);
    } else if (t.partial && t.partial !== p?.partial) {
      clear(this.resultBox);
      this.resultBox.appendChild(h("pre", { class: "scroll output", text: contentText(t.partial) }));
    }
  }

  /** The session's MCP servers changed: a call not yet answered may now be known as one of theirs. */
  setServers(servers: readonly McpServerInfo[]): void {
    this.servers = servers;
    this.showOrigin();
  }

  private showOrigin(): void {
    const name = this.shown?.name ?? this.el.dataset.toolName ?? "";
    const o = mcpToolOrigin(name, this.servers, this.shown?.result?.details);
    const key = o ? `${name}\u0000${o.server}\u0000${o.tool}` : name;
    if (key === this.originKey) return;
    this.originKey = key;
    this.serverEl.hidden = !o;
    this.serverEl.textContent = o ? o.server : "";
    this.serverEl.title = o ? `a tool of the MCP server "${o.server}"` : "";
    this.nameEl.textContent = o ? o.tool : name;
    // the name the model called it by, for a tool shown by its server's name
    this.nameEl.title = o ? name : "";
    if (o) this.el.dataset.mcpServer = o.server;
    else delete this.el.dataset.mcpServer;
  }

  private setArgs(args: Readonly<Record<string, unknown>>): void {
    this.argEl.textContent = argSummary(args);
    clear(this.argsBox);
    const entries = Object.entries(args);
    if (entries.length === 0) this.argsBox.appendChild(h("div", { class: "muted", text: "(none)" }));
    for (const [key, value] of entries) {
      const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
      this.argsBox.appendChild(h("div", { class: "arg" }, h("span", { class: "arg-key", text: key }), h("pre", { class: "scroll", text })));
    }
  }

  private setResult(result: ToolResultMessage): void {
    clear(this.resultBox);
    const text = contentText(result.content);
    this.resultBox.appendChild(h("pre", { class: `scroll output${result.isError ? " error" : ""}`, text: text === "" ? "(no output)" : text }));
    for (const img of images(result.content)) this.resultBox.appendChild(img);
    const details = result.details as { diff?: unknown } | undefined;
    if (details && typeof details.diff === "string" && details.diff !== "") {
      this.resultBox.appendChild(h("div", { class: "section-label", text: "Diff" }));
      this.resultBox.appendChild(diffEl(details.diff));
    }
  }
}

// ---- replies -------------------------------------------------------------------------------------

/** The tool views, shared by a transcript's replies (a call's view moves when its reply is redrawn). */
export type ToolViews = (id: string, name: string) => ToolView;

/** One reply: grows block by block while it streams, drawn whole once it ended. */
export class AssistantView {
  readonly el: HTMLElement;
  private readonly blocks = h("div", { class: "body" });
  /** what each content index shows, and the block it was drawn from */
  private drawn: { block: AssistantContentBlock; el: HTMLElement }[] = [];
  private status: AssistantItem["status"] | undefined;

  constructor(
    item: AssistantItem,
    private readonly tools: ToolViews,
  ) {
    const note = item.joined ? h("div", { class: "muted", text: "(joined while this reply was streaming)" }) : null;
    this.el = h("div", { class: "msg assistant", "data-role": "assistant" }, h("div", { class: "who", text: "Assistant" }), note, this.blocks);
    this.update(item);
  }

  update(item: AssistantItem): void {
    this.el.classList.toggle("streaming", item.status === "streaming");
    this.el.classList.toggle("retried", item.retried);
    if (item.status === "done") {
      // the whole message: drawn anew from it, like a reply that was never streamed
      if (this.status !== "done") this.fill(item);
    } else this.grow(item.message.content);
    this.status = item.status;
  }

  private fill(item: AssistantItem): void {
    const m = item.message;
    clear(this.blocks);
    this.drawn = [];
    for (const b of m.content) if (b) this.blocks.appendChild(this.blockEl(b));
    this.el.dataset.stopReason = m.stopReason;
    if (m.stopReason === "error" || m.stopReason === "aborted") {
      const text = m.stopReason === "aborted" ? "(aborted)" : `Error: ${m.errorMessage ?? "the model call failed"}`;
      this.blocks.appendChild(h("div", { class: `stop ${m.stopReason}`, text }));
    }
    if (item.retried) this.blocks.appendChild(h("div", { class: "stop retried", text: "This attempt failed and will be retried." }));
  }

  /** Redraws the blocks that changed (the reducer gives a changed block a new object). */
  private grow(content: readonly AssistantContentBlock[]): void {
    content.forEach((b, i) => {
      const d = this.drawn[i];
      if (!b || d?.block === b) return;
      let el: HTMLElement;
      if (d && d.block.type === b.type && b.type !== "toolCall") {
        el = d.el;
        if (b.type === "text") {
          clear(el);
          el.appendChild(renderText(b.text));
        } else if (b.type === "thinking") {
          const pre = el.querySelector("pre");
          if (pre) pre.textContent = b.thinking;
        }
      } else {
        el = this.blockEl(b, true);
        if (d) {
          if (d.el !== el) d.el.replaceWith(el);
        } else {
          // keep content order
          const next = this.drawn.find((x, j) => j > i && x);
          this.blocks.insertBefore(el, next ? next.el : null);
        }
      }
      this.drawn[i] = { block: b, el };
    });
  }

  private blockEl(b: AssistantContentBlock, streaming = false): HTMLElement {
    if (b.type === "toolCall") return this.tools(b.id, b.name).el;
    if (b.type === "thinking") return thinkingEl(b.redacted && !streaming ? "(redacted)" : b.thinking);
    return h("div", { class: "text" }, renderText(b.text));
  }
}
