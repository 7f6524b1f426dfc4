/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The transcript on the page: draws a TranscriptState (clients/ts/transcript-state.ts) and keeps
// the drawing in step with each new state, touching only the items that changed (states share
// unchanged items, so a reference check finds them). Elements stay put across updates, so what
// the user expanded stays expanded; the view follows the end unless the user scrolled away (then
// a "Jump to latest" button brings it back, and so does sending: followEnd).
import type { AgentMessage, EventParams } from "../../../protocol/index.js";
import type { McpServerInfo } from "../../ts/mcp-servers.js";
import { addNotice, reduceTranscript, transcriptFrom, type ReplyModel, type TranscriptEvent, type TranscriptItem, type TranscriptState } from "../../ts/transcript-state.js";
import { clear, frameScheduler, h } from "./dom.js";
import { AssistantView, ToolView } from "./reply-view.js";
import { branchSummaryEl, compactionEl, compactionSkippedEl, errorEventEl, messageEl, noticeEl, orphanToolEl, RetryView, runEndEl, updateRunningCompaction, type StoredCompactions } from "./transcript-items.js";

interface Drawn {
  item: TranscriptItem;
  el: HTMLElement;
  reply?: AssistantView;
  retry?: RetryView;
}

type Params<E extends TranscriptEvent["type"]> = Omit<EventParams<E>, "sessionId" | "seq" | "runId">;

export class Transcript {
  readonly el: HTMLElement;
  private readonly list = h("div", { class: "transcript-list" });
  private readonly placeholderEl = h("div", { class: "empty" });
  /** the state to draw (drawn now, or at the next frame) */
  private state: TranscriptState = transcriptFrom([]);
  /** the state drawn last */
  private drawnState: TranscriptState | undefined;
  private readonly drawn = new Map<number, Drawn>();
  private readonly toolViews = new Map<string, ToolView>();
  /** following the end: what comes in is scrolled to; off while the user reads further up */
  private stick = true;
  /** while the user reads further up: back to the newest item (it sticks to the bottom of the view) */
  private readonly jumpBtn = h("button", { type: "button", class: "jump-latest", text: "↓ Jump to latest", hidden: true, onclick: () => this.followEnd() });
  /** the scrollTop we set ourselves: its scroll event says nothing about the user */
  private autoTop = -1;
  private readonly drawSoon = frameScheduler(() => this.draw());
  /** the compactions as stored, for markers loaded with the session (set before show) */
  private stored: StoredCompactions = new Map();
  /** the session's MCP servers: a tool card names its call's server */
  private mcpServers: readonly McpServerInfo[] = [];
  /** above the list: what the context no longer holds (history-view.ts) */
  private readonly historySlot = h("div", { class: "history-slot" });

  /** nested: drawn inside another transcript (the history block), without its own scrolling */
  constructor(nested = false) {
    this.list.prepend(this.historySlot);
    this.el = nested ? h("div", { class: "transcript nested" }, this.list) : h("div", { class: "transcript", role: "log", "aria-live": "polite" }, this.list, this.jumpBtn);
    this.el.addEventListener("scroll", () => {
      if (Math.abs(this.el.scrollTop - this.autoTop) < 2) return;
      this.stick = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 60;
      this.jumpBtn.hidden = this.stick;
    });
  }

  /** Back to the newest item, and following it again (the user sent something, or asked to). */
  followEnd(): void {
    this.stick = true;
    this.jumpBtn.hidden = true;
    this.scrollToEnd();
  }

  /** Shows `t`; `soon`: at the next frame (a streamed reply changes many times a frame). */
  show(t: TranscriptState, soon = false): void {
    this.state = t;
    if (soon) this.drawSoon();
    else this.draw();
  }

  /** The compactions as stored (getHistory), for the markers of the next state shown. */
  setStoredCompactions(stored: StoredCompactions): void {
    this.stored = stored;
  }

  /** The session's MCP servers, for the tool cards (a list from the same view is the same array). */
  setMcpServers(servers: readonly McpServerInfo[]): void {
    if (servers === this.mcpServers) return;
    this.mcpServers = servers;
    for (const view of this.toolViews.values()) view.setServers(servers);
  }

  /** Puts `el` above the transcript's items (null: nothing there). */
  setHistory(el: HTMLElement | null): void {
    clear(this.historySlot);
    if (el) this.historySlot.appendChild(el);
  }

  // ---- single events, without a session (tests, embedding): each goes through the reducer ----------

  reset(messages: AgentMessage[], placeholder?: string): void {
    this.show(transcriptFrom(messages, placeholder !== undefined ? { placeholder } : {}));
  }
  apply(ev: TranscriptEvent, model?: ReplyModel): void {
    this.show(reduceTranscript(this.state, ev, model), ev.type === "message_update");
  }
  notice(kind: "error" | "warn" | "info", text: string, tag: string = kind): void {
    this.show(addNotice(this.state, kind, text, tag));
  }
  messageStart(message: AgentMessage): void {
    this.apply({ type: "message_start", message });
  }
  delta(delta: Params<"message_update">["delta"], model: ReplyModel): void {
    this.apply({ type: "message_update", delta }, model);
  }
  messageEnd(message: AgentMessage, willRetry = false): void {
    this.apply({ type: "message_end", message, willRetry });
  }
  retryStart(e: Params<"retry_start">): void {
    this.apply({ type: "retry_start", ...e });
  }
  retryEnd(e: Params<"retry_end">): void {
    this.apply({ type: "retry_end", ...e });
  }
  runEnd(e: Params<"agent_end">): void {
    this.apply({ type: "agent_end", ...e });
  }

  // ---- drawing ---------------------------------------------------------------------------------------

  private draw(): void {
    const t = this.state;
    const prev = this.drawnState;
    if (t === prev) return;
    this.drawnState = t;
    const same = t.origin === prev?.origin;
    if (!same) this.clear();
    // tools first: the items below place their views (states are immutable: the last one drawn
    // says what each view shows)
    if (!same || t.tools !== prev.tools) {
      for (const [id, tool] of t.tools) if (!same || prev.tools.get(id) !== tool) this.toolView(id, tool.name).update(tool);
    }
    if (!same || t.items !== prev.items || t.placeholder !== prev.placeholder) this.drawItems(t);
    this.scrollToEnd();
  }

  private drawItems(t: TranscriptState): void {
    const ids = new Set(t.items.map((i) => i.id));
    for (const [id, d] of this.drawn) {
      if (ids.has(id)) continue;
      d.retry?.stop();
      d.el.remove();
      this.drawn.delete(id);
    }
    const placeholder = t.items.length === 0 && t.placeholder ? t.placeholder : undefined;
    if (placeholder !== undefined) {
      this.placeholderEl.textContent = placeholder;
      if (this.historySlot.nextSibling !== this.placeholderEl) this.historySlot.after(this.placeholderEl);
    } else this.placeholderEl.remove();
    let before: ChildNode = placeholder !== undefined ? this.placeholderEl : this.historySlot;
    for (const item of t.items) {
      let d = this.drawn.get(item.id);
      if (!d) this.drawn.set(item.id, (d = this.create(item)));
      else if (d.item !== item) this.update(d, item);
      const want = before.nextSibling;
      if (d.el !== want) this.list.insertBefore(d.el, want);
      before = d.el;
    }
  }

  private create(item: TranscriptItem): Drawn {
    switch (item.type) {
      case "assistant": {
        const reply = new AssistantView(item, (id, name) => this.toolView(id, name));
        return { item, el: reply.el, reply };
      }
      case "retry": {
        const retry = new RetryView(item);
        return { item, el: retry.el, retry };
      }
      default:
        return { item, el: this.elementOf(item) };
    }
  }

  private elementOf(item: Exclude<TranscriptItem, { type: "assistant" | "retry" }>): HTMLElement {
    switch (item.type) {
      case "message":
        return messageEl(item.message, this.stored);
      case "tool":
        return orphanToolEl(this.toolView(item.toolCallId, "tool").el);
      case "compaction":
        return compactionEl(item);
      case "branchSummary":
        return branchSummaryEl(item);
      case "notice":
        return noticeEl(item.kind, item.text, item.tag);
      case "compactionSkipped":
        return compactionSkippedEl(item);
      case "error":
        return errorEventEl(item);
      case "runEnd":
        return runEndEl(item);
    }
  }

  /** An item that changed: updated in place where the user may be looking at it, redrawn otherwise. */
  private update(d: Drawn, item: TranscriptItem): void {
    const was = d.item;
    d.item = item;
    if (item.type === "assistant" && d.reply) d.reply.update(item);
    else if (item.type === "retry" && d.retry) d.retry.update(item);
    else if (item.type === "compaction" && was.type === "compaction" && item.state === "running" && was.state === "running") updateRunningCompaction(d.el, item);
    else if (item.type !== "assistant" && item.type !== "retry") {
      // a retry block the run's failure took the place of: its countdown ends with it
      d.retry?.stop();
      delete d.retry;
      const el = this.elementOf(item);
      d.el.replaceWith(el);
      d.el = el;
    }
  }

  private toolView(id: string, name: string): ToolView {
    let view = this.toolViews.get(id);
    if (!view) {
      this.toolViews.set(id, (view = new ToolView(id, name)));
      view.setServers(this.mcpServers);
    }
    return view;
  }

  private clear(): void {
    for (const d of this.drawn.values()) d.retry?.stop();
    this.drawn.clear();
    this.toolViews.clear();
    clear(this.list);
    this.list.appendChild(this.historySlot);
    this.stick = true;
    this.jumpBtn.hidden = true;
  }

  private scrollToEnd(): void {
    if (!this.stick) return;
    this.el.scrollTop = this.el.scrollHeight;
    this.autoTop = this.el.scrollTop;
  }
}
