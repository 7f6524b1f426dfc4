/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The transcript: the session's messages as they stream in, tool calls with their results,
// compaction and branch-summary markers, errors, retries and run outcomes, in order.
import type {
  AgentMessage,
  AssistantMessage,
  CompactionResult,
  EventParams,
  ToolCall,
  ToolResultMessage,
  UserContentBlock,
} from "../../../protocol/index.js";
import { clear, fmtInt, frameScheduler, h } from "./dom.js";
import { StreamingMessage, fileListsFromSummary } from "./stream.js";

// ---- text --------------------------------------------------------------------------------------

/** Plain text with ``` fences as code blocks and `inline code`; nothing is parsed as HTML. */
export function renderText(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  const lines = text.split("\n");
  let buf: string[] = [];
  let inCode = false;
  const flush = () => {
    if (buf.length === 0) return;
    const body = buf.join("\n");
    buf = [];
    if (inCode) frag.appendChild(h("pre", { class: "code" }, h("code", { text: body })));
    else if (body.trim() !== "") frag.appendChild(h("div", { class: "para" }, ...inline(body)));
  };
  for (const line of lines) {
    if (/^\s*```/.test(line)) {
      flush();
      inCode = !inCode;
      continue;
    }
    buf.push(line);
  }
  flush();
  return frag;
}

function inline(text: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  const re = /`([^`\n]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(h("code", { text: m[1] }));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function contentText(content: string | UserContentBlock[]): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

function images(content: string | UserContentBlock[]): HTMLElement[] {
  if (typeof content === "string") return [];
  return content.flatMap((b) => (b.type === "image" ? [h("img", { class: "attached", src: `data:${b.mimeType};base64,${b.data}`, alt: "image" })] : []));
}

function keyOf(m: AgentMessage): string {
  return `${m.role}:${m.timestamp}`;
}

// ---- tool calls --------------------------------------------------------------------------------

const PRIMARY_ARGS = ["command", "path", "file_path", "pattern", "glob", "url", "query"];

function argSummary(args: Record<string, unknown>): string {
  for (const k of PRIMARY_ARGS) {
    const v = args[k];
    if (typeof v === "string" && v !== "") return v.split("\n")[0].slice(0, 160);
  }
  const s = JSON.stringify(args);
  return s === "{}" ? "" : s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

type ToolStatus = "streaming" | "pending" | "running" | "done" | "error";
const STATUS_TEXT: Record<ToolStatus, string> = {
  streaming: "receiving…",
  pending: "queued",
  running: "running…",
  done: "done",
  error: "error",
};

/** One tool call: a collapsed <details> with the arguments and the result. */
class ToolView {
  readonly el: HTMLDetailsElement;
  private readonly nameEl: HTMLElement;
  private readonly argEl: HTMLElement;
  private readonly statusEl: HTMLElement;
  private readonly argsBox: HTMLElement;
  private readonly resultBox: HTMLElement;
  status: ToolStatus = "pending";
  private hasResult = false;

  constructor(id: string, name: string) {
    this.nameEl = h("span", { class: "tool-name", text: name });
    this.argEl = h("span", { class: "tool-arg" });
    this.statusEl = h("span", { class: "tool-status" });
    this.argsBox = h("div", { class: "tool-args" });
    this.resultBox = h("div", { class: "tool-result" });
    this.el = h(
      "details",
      { class: "tool", "data-tool-call-id": id, "data-tool-name": name },
      h("summary", null, this.nameEl, this.argEl, this.statusEl),
      h("div", { class: "tool-body" }, h("div", { class: "section-label", text: "Arguments" }), this.argsBox, h("div", { class: "section-label", text: "Result" }), this.resultBox),
    );
    this.setStatus("pending");
  }

  setStatus(status: ToolStatus): void {
    // a result is final: later "running" (a replayed start) does not undo it
    if (this.hasResult && (status === "running" || status === "pending" || status === "streaming")) return;
    this.status = status;
    this.el.dataset.status = status;
    this.statusEl.textContent = STATUS_TEXT[status];
  }

  setCall(call: ToolCall, rawArgs?: string): void {
    this.nameEl.textContent = call.name;
    this.el.dataset.toolName = call.name;
    if (rawArgs !== undefined) {
      this.argEl.textContent = `${fmtInt(rawArgs.length)} chars of arguments`;
      if (this.el.open) {
        clear(this.argsBox);
        this.argsBox.appendChild(h("pre", { class: "scroll", text: rawArgs }));
      }
      this.setStatus("streaming");
      return;
    }
    this.setArgs(call.arguments);
    if (this.status === "streaming") this.setStatus("pending");
  }

  setArgs(args: Record<string, unknown>): void {
    this.argEl.textContent = argSummary(args);
    clear(this.argsBox);
    const entries = Object.entries(args);
    if (entries.length === 0) this.argsBox.appendChild(h("div", { class: "muted", text: "(none)" }));
    for (const [key, value] of entries) {
      const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
      this.argsBox.appendChild(h("div", { class: "arg" }, h("span", { class: "arg-key", text: key }), h("pre", { class: "scroll", text })));
    }
  }

  setPartial(content: UserContentBlock[]): void {
    if (this.hasResult) return;
    this.setStatus("running");
    clear(this.resultBox);
    this.resultBox.appendChild(h("pre", { class: "scroll output", text: contentText(content) }));
  }

  setResult(result: ToolResultMessage): void {
    this.hasResult = false;
    this.setStatus(result.isError ? "error" : "done");
    this.hasResult = true;
    clear(this.resultBox);
    const text = contentText(result.content);
    this.resultBox.appendChild(h("pre", { class: `scroll output${result.isError ? " error" : ""}`, text: text === "" ? "(no output)" : text }));
    for (const img of images(result.content)) this.resultBox.appendChild(img);
    const details = result.details as { diff?: unknown } | undefined;
    if (details && typeof details.diff === "string" && details.diff !== "") {
      const pre = h("pre", { class: "scroll diff" });
      for (const line of details.diff.split("\n")) {
        const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
        pre.appendChild(h("span", { class: cls, text: `${line}\n` }));
      }
      this.resultBox.appendChild(h("div", { class: "section-label", text: "Diff" }));
      this.resultBox.appendChild(pre);
    }
  }
}

// ---- the transcript ------------------------------------------------------------------------------

interface Streaming {
  sm: StreamingMessage;
  el: HTMLElement;
  blocks: HTMLElement;
  blockEls: Map<number, HTMLElement>;
}

type CompactionEnd = EventParams<"compaction_end">;
type CompactionUpdate = EventParams<"compaction_update">;

export class Transcript {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly tools = new Map<string, ToolView>();
  /** role:timestamp of messages shown whole: a replayed or refetched copy is not shown twice */
  private readonly seen = new Set<string>();
  private streaming: Streaming | undefined;
  /** a non-assistant message shown at message_start, replaced at message_end */
  private started: { key: string; el: HTMLElement } | undefined;
  /** ignoring the deltas and end of a message already shown */
  private skipping = false;
  private compactionEl: HTMLElement | undefined;
  /** the summary being written, per compactionId (written ahead of time before its marker exists) */
  private readonly liveSummaries = new Map<string, string>();
  private liveId: string | undefined;
  private branchEl: HTMLElement | undefined;
  private retry: { el: HTMLElement; timer: ReturnType<typeof setInterval> } | undefined;
  private stick = true;
  /** the scrollTop we set ourselves: its scroll event says nothing about the user */
  private autoTop = -1;
  private readonly scheduleFlush = frameScheduler(() => this.flush());

  constructor() {
    this.list = h("div", { class: "transcript-list" });
    this.el = h("div", { class: "transcript", role: "log", "aria-live": "polite" }, this.list);
    this.el.addEventListener("scroll", () => {
      if (Math.abs(this.el.scrollTop - this.autoTop) < 2) return;
      this.stick = this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 60;
    });
  }

  // ---- whole transcript --------------------------------------------------------------------------

  /** Shows `messages` (getMessages: the context) and nothing else. */
  reset(messages: AgentMessage[], placeholder?: string): void {
    clear(this.list);
    this.tools.clear();
    this.seen.clear();
    this.streaming = undefined;
    this.started = undefined;
    this.skipping = false;
    this.compactionEl = undefined;
    this.branchEl = undefined;
    this.stopRetryTimer();
    if (placeholder) this.list.appendChild(h("div", { class: "empty", text: placeholder }));
    for (const m of messages) this.addFinal(m);
    this.stick = true;
    this.scrollToEnd();
  }

  private append(el: HTMLElement): void {
    this.list.querySelector(":scope > .empty")?.remove();
    this.list.appendChild(el);
    this.scrollToEnd();
  }

  private scrollToEnd(): void {
    if (!this.stick) return;
    this.el.scrollTop = this.el.scrollHeight;
    this.autoTop = this.el.scrollTop;
  }

  // ---- messages ----------------------------------------------------------------------------------

  private addFinal(m: AgentMessage): void {
    this.seen.add(keyOf(m));
    if (m.role === "toolResult") {
      const view = this.tools.get(m.toolCallId);
      if (view) view.setResult(m);
      else this.append(this.orphanTool(m.toolCallId, m.toolName, m));
      return;
    }
    const el = this.renderMessage(m);
    if (el) this.append(el);
  }

  private orphanTool(id: string, name: string, result?: ToolResultMessage): HTMLElement {
    const view = new ToolView(id, name);
    this.tools.set(id, view);
    if (result) view.setResult(result);
    return h("div", { class: "msg assistant orphan" }, view.el);
  }

  private renderMessage(m: AgentMessage): HTMLElement | undefined {
    switch (m.role) {
      case "user":
        return h("div", { class: "msg user", "data-role": "user" }, h("div", { class: "who", text: "You" }), h("div", { class: "body" }, renderText(contentText(m.content)), ...images(m.content)));
      case "assistant":
        return this.renderAssistant(m);
      case "bashExecution": {
        const status = m.cancelled ? "cancelled" : m.exitCode === null || m.exitCode === undefined ? "no exit code" : `exit ${m.exitCode}`;
        return h(
          "div",
          { class: "msg bash", "data-role": "bashExecution" },
          h("div", { class: "who", text: "You ran" }),
          h("div", { class: "body" }, h("code", { class: "cmd", text: `$ ${m.command}` }), h("pre", { class: "scroll output", text: m.output }), h("div", { class: "muted", text: `${status}${m.truncated ? " · output truncated" : ""}` })),
        );
      }
      case "custom":
        if (!m.display) return undefined;
        return h("div", { class: "msg custom", "data-role": "custom" }, h("div", { class: "who", text: m.customType }), h("div", { class: "body" }, renderText(contentText(m.content))));
      case "compactionSummary": {
        const files = fileListsFromSummary(m.summary);
        return compactionMarker({
          state: "done",
          head: `Compacted · ${fmtInt(m.tokensBefore)} tokens before`,
          fallback: /^\(Extractive summary/.test(m.summary) ? "the extractive summary was used" : undefined,
          summary: m.summary,
          ...files,
        });
      }
      case "branchSummary":
        return summaryMarker("branch-summary", "Branch summary", "left branch summarized here", m.summary);
      default:
        return undefined;
    }
  }

  private renderAssistant(m: AssistantMessage): HTMLElement {
    const blocks = h("div", { class: "body" });
    const el = h("div", { class: "msg assistant", "data-role": "assistant" }, h("div", { class: "who", text: "Assistant" }), blocks);
    this.fillAssistant(el, blocks, m);
    return el;
  }

  private fillAssistant(el: HTMLElement, blocks: HTMLElement, m: AssistantMessage): void {
    clear(blocks);
    for (const b of m.content) {
      if (b.type === "text") blocks.appendChild(h("div", { class: "text" }, renderText(b.text)));
      else if (b.type === "thinking") blocks.appendChild(thinkingEl(b.redacted ? "(redacted)" : b.thinking));
      else if (b.type === "toolCall") {
        const view = this.toolView(b.id, b.name);
        view.setCall(b);
        blocks.appendChild(view.el);
      }
    }
    el.dataset.stopReason = m.stopReason;
    if (m.stopReason === "error" || m.stopReason === "aborted") {
      const text = m.stopReason === "aborted" ? "(aborted)" : `Error: ${m.errorMessage ?? "the model call failed"}`;
      blocks.appendChild(h("div", { class: `stop ${m.stopReason}`, text }));
    }
  }

  private toolView(id: string, name: string): ToolView {
    let view = this.tools.get(id);
    if (!view) this.tools.set(id, (view = new ToolView(id, name)));
    return view;
  }

  messageStart(m: AgentMessage): void {
    const key = keyOf(m);
    this.skipping = this.seen.has(key);
    if (this.skipping) return;
    if (m.role === "assistant") {
      this.streaming = this.newStreaming(m);
      return;
    }
    const el = this.renderMessage(m);
    if (!el) return;
    this.started = { key, el };
    this.append(el);
  }

  private newStreaming(m: AssistantMessage, note?: string): Streaming {
    const blocks = h("div", { class: "body" });
    const el = h("div", { class: "msg assistant streaming", "data-role": "assistant" }, h("div", { class: "who", text: "Assistant" }), note ? h("div", { class: "muted", text: note }) : null, blocks);
    this.append(el);
    const s: Streaming = { sm: new StreamingMessage(m), el, blocks, blockEls: new Map() };
    return s;
  }

  delta(delta: EventParams<"message_update">["delta"], model: { api: string; provider: string; model: string }): void {
    if (this.skipping) return;
    if (!this.streaming) {
      // joined in the middle of a reply (after a refetch): show what comes from here on
      const empty: AssistantMessage = { role: "assistant", content: [], ...model, usage: zeroUsage(), stopReason: "stop", timestamp: Date.now() };
      this.streaming = this.newStreaming(empty, "(joined while this reply was streaming)");
    }
    this.streaming.sm.apply(delta);
    this.scheduleFlush();
  }

  /** Renders the blocks that changed since the last frame. */
  private flush(): void {
    const s = this.streaming;
    if (!s) return;
    const content = s.sm.message.content;
    for (const i of s.sm.takeDirty()) {
      const b = content[i];
      if (!b) continue;
      let el = s.blockEls.get(i);
      if (b.type === "toolCall") {
        const view = this.toolView(b.id, b.name);
        view.setCall(b, s.sm.rawArgs.get(i));
        el = view.el;
      } else if (b.type === "text") {
        if (!el) el = h("div", { class: "text" });
        clear(el);
        el.appendChild(renderText(b.text));
      } else if (b.type === "thinking") {
        if (!el) el = thinkingEl("");
        const pre = el.querySelector("pre");
        if (pre) pre.textContent = b.thinking;
      }
      if (el && !s.blockEls.has(i)) {
        s.blockEls.set(i, el);
        // keep content order
        const next = [...s.blockEls.entries()].filter(([j]) => j > i).sort((a, c) => a[0] - c[0])[0];
        s.blocks.insertBefore(el, next ? next[1] : null);
      }
    }
    this.scrollToEnd();
  }

  messageEnd(m: AgentMessage, willRetry = false): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    const key = keyOf(m);
    if (m.role === "assistant") {
      const s = this.streaming ?? this.newStreaming(m);
      this.streaming = undefined;
      s.el.classList.remove("streaming");
      this.fillAssistant(s.el, s.blocks, m);
      if (willRetry) {
        s.el.classList.add("retried");
        s.blocks.appendChild(h("div", { class: "stop retried", text: "This attempt failed and will be retried." }));
      } else this.seen.add(key);
      this.scrollToEnd();
      return;
    }
    if (this.started && this.started.key === key) {
      const el = this.renderMessage(m);
      if (el) this.started.el.replaceWith(el);
      this.started = undefined;
      this.seen.add(key);
      return;
    }
    this.started = undefined;
    if (!this.seen.has(key)) this.addFinal(m);
  }

  // ---- tools ---------------------------------------------------------------------------------------

  toolStart(id: string, name: string, args: Record<string, unknown>): void {
    let view = this.tools.get(id);
    if (!view) {
      this.append(this.orphanTool(id, name));
      view = this.tools.get(id)!;
      view.setArgs(args);
    }
    view.setStatus("running");
  }

  toolUpdate(id: string, content: UserContentBlock[]): void {
    this.tools.get(id)?.setPartial(content);
    this.scrollToEnd();
  }

  toolEnd(id: string, name: string, result: ToolResultMessage): void {
    this.seen.add(keyOf(result));
    const view = this.tools.get(id);
    if (view) view.setResult(result);
    else this.append(this.orphanTool(id, name, result));
    this.scrollToEnd();
  }

  // ---- compaction, branch summaries ------------------------------------------------------------------

  compactionStart(e: EventParams<"compaction_start">): void {
    this.compactionEl?.remove();
    const head = e.prepared ? `Compacting (${e.reason}) · ${fmtInt(e.tokensBefore)} tokens · applying the summary written ahead of time…` : `Compacting (${e.reason}) · ${fmtInt(e.tokensBefore)} tokens…`;
    this.compactionEl = compactionMarker({ state: "running", reason: e.reason, head });
    this.liveId = e.compactionId;
    // the summary so far (all of it, for one written ahead of time) shows inside the marker
    this.compactionEl.appendChild(h("pre", { class: "scroll summary-live", text: (e.compactionId && this.liveSummaries.get(e.compactionId)) ?? "" }));
    this.append(this.compactionEl);
  }

  /** A piece of the summary being written: a new chunk starts the text over, a delta extends it. */
  compactionUpdate(u: CompactionUpdate): void {
    if (u.phase === "discarded") {
      this.liveSummaries.delete(u.compactionId);
      return;
    }
    let text = this.liveSummaries.get(u.compactionId) ?? "";
    if (u.phase === "chunk") text = "";
    if (u.delta) text += u.delta;
    this.liveSummaries.set(u.compactionId, text);
    if (u.compactionId !== this.liveId || !this.compactionEl) return;
    const live = this.compactionEl.querySelector(".summary-live");
    if (live) {
      live.textContent = text;
      live.scrollTop = live.scrollHeight;
    }
    if (u.phase === "applying") this.compactionEl.dataset.phase = "applying";
  }

  compactionEnd(e: CompactionEnd): void {
    const r: CompactionResult | undefined = e.result;
    const fallback = e.fallback ?? r?.fallback;
    let el: HTMLElement;
    if (r) {
      const details = r.details ?? {};
      const files = details.readFiles || details.modifiedFiles ? { readFiles: details.readFiles ?? [], modifiedFiles: details.modifiedFiles ?? [] } : fileListsFromSummary(r.summary);
      el = compactionMarker({
        state: "done",
        reason: e.reason,
        head: `Compacted (${e.reason}) · ${fmtInt(r.tokensBefore)} → ${fmtInt(r.tokensAfter)} tokens`,
        fallback: fallback ? `fallback summary: ${fallback.reason}` : details.fallback ? "fallback summary" : undefined,
        fromHook: r.fromHook,
        summary: r.summary,
        ...files,
      });
      if (e.willRetry) el.appendChild(h("div", { class: "muted", text: "The failed model call is retried." }));
    } else {
      el = compactionMarker({ state: e.aborted ? "aborted" : "failed", reason: e.reason, head: e.aborted ? `Compaction (${e.reason}) aborted` : `Compaction (${e.reason}) failed: ${e.error ?? "unknown error"}` });
    }
    if (this.compactionEl) this.compactionEl.replaceWith(el);
    else this.append(el);
    this.compactionEl = undefined;
    if (e.compactionId) this.liveSummaries.delete(e.compactionId);
    this.liveId = undefined;
    this.scrollToEnd();
  }

  branchSummaryStart(): void {
    this.branchEl?.remove();
    this.branchEl = h("div", { class: "marker branch-summary", "data-state": "running" }, h("div", { class: "marker-head", text: "Summarizing the branch being left…" }));
    this.append(this.branchEl);
  }

  branchSummaryEnd(e: EventParams<"branch_summary_end">): void {
    const el = e.summary
      ? summaryMarker("branch-summary", "Branch summary", e.fallback ? `fallback summary: ${e.fallback.reason}` : "", e.summary)
      : h("div", { class: "marker branch-summary", "data-state": e.aborted ? "aborted" : "failed" }, h("div", { class: "marker-head", text: e.aborted ? "Branch summary aborted" : `Branch summary failed: ${e.error ?? "unknown error"}` }));
    if (this.branchEl) this.branchEl.replaceWith(el);
    else this.append(el);
    this.branchEl = undefined;
  }

  // ---- retries, errors, run outcomes ---------------------------------------------------------------

  retryStart(e: EventParams<"retry_start">): void {
    this.stopRetryTimer();
    const until = Date.now() + e.delayMs;
    const what = `${e.error.status ? `${e.error.status} ` : ""}${e.error.message}`;
    const line = h("span");
    const el = h("div", { class: "notice warn retry", "data-kind": "retry" }, h("strong", { text: "Provider error: " }), what, h("br"), line);
    const tick = () => {
      const s = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      line.textContent = `Retrying (attempt ${e.attempt} of ${e.maxAttempts}) in ${s} s…`;
    };
    tick();
    this.retry = { el, timer: setInterval(tick, 250) };
    this.append(el);
  }

  retryEnd(e: EventParams<"retry_end">): void {
    const r = this.retry;
    this.stopRetryTimer();
    if (!r) return;
    const line = r.el.querySelector("span");
    if (line) line.textContent = e.aborted ? `Retry ${e.attempt} aborted.` : `Retrying now (attempt ${e.attempt}).`;
    r.el.dataset.state = e.aborted ? "aborted" : "retried";
  }

  private stopRetryTimer(): void {
    if (this.retry) clearInterval(this.retry.timer);
    this.retry = undefined;
  }

  notice(kind: "error" | "warn" | "info", text: string, tag: string = kind): HTMLElement {
    const el = h("div", { class: `notice ${kind}`, "data-kind": tag, text });
    this.append(el);
    return el;
  }

  runEnd(e: EventParams<"agent_end">): void {
    this.stopRetryTimer();
    if (this.streaming) {
      this.streaming.el.classList.remove("streaming");
      this.streaming = undefined;
    }
    for (const view of this.tools.values()) if (view.status === "running" || view.status === "streaming") view.setStatus(e.stopReason === "aborted" ? "error" : "pending");
    switch (e.stopReason) {
      case "aborted":
        this.notice("warn", "Run aborted.", "aborted");
        break;
      case "error":
        this.notice("error", `Run failed: ${e.error?.message ?? "unknown error"}${e.error?.status ? ` (HTTP ${e.error.status})` : ""}`, "run-error");
        break;
      case "max_turns":
        this.notice("warn", "Stopped: the turn limit was reached.", "max-turns");
        break;
      case "length":
        this.notice("warn", "Stopped: the reply reached the output limit.", "length");
        break;
    }
  }
}

function thinkingEl(text: string): HTMLElement {
  return h("details", { class: "thinking" }, h("summary", { text: "Thinking" }), h("pre", { class: "scroll", text }));
}

function zeroUsage(): AssistantMessage["usage"] {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

function fileList(label: string, files: string[]): HTMLElement | null {
  if (files.length === 0) return null;
  return h("div", { class: "files" }, h("span", { class: "section-label", text: label }), h("ul", null, files.map((f) => h("li", null, h("code", { text: f })))));
}

interface MarkerOptions {
  state: "running" | "done" | "aborted" | "failed";
  head: string;
  reason?: string;
  fallback?: string;
  fromHook?: boolean;
  summary?: string;
  readFiles?: string[];
  modifiedFiles?: string[];
}

function compactionMarker(o: MarkerOptions): HTMLElement {
  const tags = h("span", { class: "tags" });
  if (o.fallback) tags.appendChild(h("span", { class: "tag warn", title: o.fallback, text: "fallback summary" }));
  if (o.fromHook) tags.appendChild(h("span", { class: "tag", text: "summary from a hook" }));
  const el = h(
    "div",
    { class: "marker compaction", "data-state": o.state, "data-reason": o.reason, "data-fallback": o.fallback ? "true" : "false" },
    h("div", { class: "marker-head" }, h("span", { class: "marker-icon", "aria-hidden": "true", text: "⟲" }), h("span", { class: "marker-title", text: o.head }), tags),
  );
  if (o.fallback) el.appendChild(h("div", { class: "muted", text: o.fallback.charAt(0).toUpperCase() + o.fallback.slice(1) }));
  if (o.summary !== undefined) {
    el.appendChild(
      h(
        "details",
        { class: "marker-body" },
        h("summary", { text: "Summary" }),
        h("pre", { class: "scroll summary-text", text: o.summary }),
        fileList("Read files", o.readFiles ?? []),
        fileList("Modified files", o.modifiedFiles ?? []),
      ),
    );
  }
  return el;
}

function summaryMarker(cls: string, title: string, note: string, summary: string): HTMLElement {
  const files = fileListsFromSummary(summary);
  return h(
    "div",
    { class: `marker ${cls}`, "data-state": "done" },
    h("div", { class: "marker-head" }, h("span", { class: "marker-icon", "aria-hidden": "true", text: "⎇" }), h("span", { class: "marker-title", text: title }), note ? h("span", { class: "muted", text: ` · ${note}` }) : null),
    h("details", { class: "marker-body" }, h("summary", { text: "Summary" }), h("pre", { class: "scroll summary-text", text: summary }), fileList("Read files", files.readFiles), fileList("Modified files", files.modifiedFiles)),
  );
}
