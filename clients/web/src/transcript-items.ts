/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The transcript's items other than replies, as elements: messages shown on their own, the
// compaction and branch-summary markers, notices (the client's own, `error` events, how a run
// ended) and the retry countdown. The wording lives here; what is shown when is decided in
// clients/ts/transcript-state.ts.
import type { ResultOf } from "../../../protocol/index.js";
import { ErrorCodes } from "../../../protocol/error-codes.js";
import { fileListsFromSummary, type ShownMessage, type TranscriptItem } from "../../ts/transcript-state.js";
import { fmtInt, h } from "./dom.js";
import { contentText, images, renderText } from "./rich-text.js";

type Item<T extends TranscriptItem["type"]> = Extract<TranscriptItem, { type: T }>;

// ---- messages ----------------------------------------------------------------------------------

/** A compaction as stored (getHistory), by the timestamp of the compactionSummary message it became. */
export type StoredCompactions = ReadonlyMap<number, ResultOf<"getHistory">["compactions"][number]>;

export function messageEl(m: ShownMessage, stored?: StoredCompactions): HTMLElement {
  switch (m.role) {
    case "user":
      return h("div", { class: "msg user", "data-role": "user" }, h("div", { class: "who", text: "You" }), h("div", { class: "body" }, renderText(contentText(m.content)), ...images(m.content)));
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
      return h("div", { class: "msg custom", "data-role": "custom" }, h("div", { class: "who", text: m.customType }), h("div", { class: "body" }, renderText(contentText(m.content))));
    case "compactionSummary":
      return storedCompactionEl(m, stored?.get(m.timestamp));
    case "branchSummary":
      return summaryMarker("branch-summary", "Branch summary", "left branch summarized here", m.summary);
  }
}

/** A compaction loaded with the session: the same words as the live marker when the entry says enough. */
function storedCompactionEl(m: Extract<ShownMessage, { role: "compactionSummary" }>, c: StoredCompactions extends ReadonlyMap<number, infer V> ? V | undefined : never): HTMLElement {
  const d = (c?.details ?? {}) as { reason?: unknown; tokensAfter?: unknown; fallback?: unknown; readFiles?: unknown; modifiedFiles?: unknown };
  const reason = typeof d.reason === "string" ? d.reason : undefined;
  const after = typeof d.tokensAfter === "number" ? d.tokensAfter : undefined;
  const head = reason && after !== undefined ? `Compacted (${reason}) · ${fmtInt(m.tokensBefore)} → ${fmtInt(after)} tokens` : `Compacted · ${fmtInt(m.tokensBefore)} tokens before`;
  const lists = Array.isArray(d.readFiles) || Array.isArray(d.modifiedFiles) ? { readFiles: strings(d.readFiles), modifiedFiles: strings(d.modifiedFiles) } : fileListsFromSummary(m.summary);
  return compactionMarker({
    state: "done",
    reason,
    head,
    fallback: d.fallback === true || /^\(Extractive summary/.test(m.summary) ? "fallback summary" : undefined,
    fromHook: c?.fromHook,
    summary: m.summary,
    ...lists,
  });
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** A tool call whose reply is not shown: the view alone, in a reply's frame. */
export function orphanToolEl(toolEl: HTMLElement): HTMLElement {
  return h("div", { class: "msg assistant orphan" }, toolEl);
}

// ---- compaction, branch summaries ------------------------------------------------------------------

export function compactionEl(c: Item<"compaction">): HTMLElement {
  if (c.state === "running") {
    const head = c.prepared ? `Compacting (${c.reason}) · ${fmtInt(c.tokensBefore)} tokens · applying the summary written ahead of time…` : `Compacting (${c.reason}) · ${fmtInt(c.tokensBefore)} tokens…`;
    const el = compactionMarker({ state: "running", reason: c.reason, head });
    // the summary so far (all of it, for one written ahead of time) shows inside the marker
    el.appendChild(h("pre", { class: "scroll summary-live" }));
    updateRunningCompaction(el, c);
    return el;
  }
  const r = c.result;
  if (!r) {
    const head = c.state === "aborted" ? `Compaction (${c.reason}) aborted` : `Compaction (${c.reason}) failed: ${c.error ?? "unknown error"}`;
    return compactionMarker({ state: c.state, reason: c.reason, head });
  }
  const details = r.details ?? {};
  const files = details.readFiles || details.modifiedFiles ? { readFiles: details.readFiles ?? [], modifiedFiles: details.modifiedFiles ?? [] } : fileListsFromSummary(r.summary);
  const el = compactionMarker({
    state: "done",
    reason: c.reason,
    head: `Compacted (${c.reason}) · ${fmtInt(r.tokensBefore)} → ${fmtInt(r.tokensAfter)} tokens`,
    fallback: c.fallback ? `fallback summary: ${c.fallback.reason}` : details.fallback ? "fallback summary" : undefined,
    fromHook: r.fromHook,
    summary: r.summary,
    ...files,
  });
  if (c.willRetry) el.appendChild(h("div", { class: "muted", text: "The failed model call is retried." }));
  return el;
}

/** The running marker, in place: the summary text grows, the marker stays as the user left it. */
export function updateRunningCompaction(el: HTMLElement, c: Item<"compaction">): void {
  const live = el.querySelector(".summary-live");
  if (live && live.textContent !== c.live) {
    live.textContent = c.live;
    live.scrollTop = live.scrollHeight;
  }
  if (c.applying) el.dataset.phase = "applying";
}

export function branchSummaryEl(b: Item<"branchSummary">): HTMLElement {
  if (b.state === "done" && b.summary !== undefined) return summaryMarker("branch-summary", "Branch summary", b.fallback ? `fallback summary: ${b.fallback.reason}` : "", b.summary);
  const head = b.state === "running" ? "Summarizing the branch being left…" : b.state === "aborted" ? "Branch summary aborted" : `Branch summary failed: ${b.error ?? "unknown error"}`;
  return h("div", { class: "marker branch-summary", "data-state": b.state }, h("div", { class: "marker-head", text: head }));
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

function fileList(label: string, files: string[]): HTMLElement | null {
  if (files.length === 0) return null;
  return h("div", { class: "files" }, h("span", { class: "section-label", text: label }), h("ul", null, files.map((f) => h("li", null, h("code", { text: f })))));
}

// ---- notices ---------------------------------------------------------------------------------------

export function noticeEl(kind: "error" | "warn" | "info", text: string, tag: string = kind): HTMLElement {
  return h("div", { class: `notice ${kind}`, "data-kind": tag, text });
}

/** A skipped automatic compaction: a quiet line, not a warning (nothing went wrong, the session goes on). */
export function compactionSkippedEl(s: Item<"compactionSkipped">): HTMLElement {
  const why = s.code === "too_little_gain" ? "it would free too little" : "nothing lies before the part kept verbatim";
  return h("div", { class: "notice quiet", "data-kind": "compaction-skipped", title: s.message, text: `Automatic compaction skipped: ${why} (${fmtInt(s.tokensBefore)} tokens in context).` });
}

/** An `error` event, worded by its code. */
export function errorEventEl(e: Item<"error">): HTMLElement {
  const data = (e.data ?? {}) as { class?: string; status?: number; contextTokens?: number; contextWindow?: number };
  if (e.code === ErrorCodes.ContextFull) return noticeEl("error", `The context is full (about ${fmtInt(data.contextTokens ?? 0)} of ${fmtInt(data.contextWindow ?? 0)} tokens) and automatic compaction is off: compact the session, or turn automatic compaction on.`, "context-full");
  if (e.code === ErrorCodes.ProviderError) return noticeEl("error", `Provider error${data.class ? ` (${data.class}${data.status ? `, HTTP ${data.status}` : ""})` : ""}: ${e.message}`, "provider-error");
  return noticeEl("error", `${e.message} (${e.code})`, "error");
}

export function runEndEl(r: Item<"runEnd">): HTMLElement {
  switch (r.stopReason) {
    case "aborted":
      return noticeEl("warn", "Run aborted.", "aborted");
    case "error":
      return noticeEl("error", `Run failed: ${r.error?.message ?? "unknown error"}${r.error?.status ? ` (HTTP ${r.error.status})` : ""}`, "run-error");
    case "max_turns":
      return noticeEl("warn", "Stopped: the turn limit was reached.", "max-turns");
    case "length":
      return noticeEl("warn", "Stopped: the reply reached the output limit.", "length");
  }
}

/**
 * A provider error being waited out: counts down to the retry (the clock is the page's, not the
 * state's). The call's later attempts update the same view: one block however many there are.
 */
export class RetryView {
  readonly el: HTMLElement;
  private readonly what = h("span");
  private readonly line = h("span");
  private timer: ReturnType<typeof setInterval> | undefined;
  private shown: Item<"retry"> | undefined;

  constructor(r: Item<"retry">) {
    this.el = h("div", { class: "notice warn retry", "data-kind": "retry" }, h("strong", { text: "Provider error: " }), this.what, h("br"), this.line);
    this.update(r);
  }

  update(r: Item<"retry">): void {
    const was = this.shown;
    this.shown = r;
    this.what.textContent = `${r.error.status ? `${r.error.status} ` : ""}${r.error.message}`;
    this.el.dataset.attempt = String(r.attempt);
    if (r.state === "waiting") {
      // a new wait (the first, or the next attempt's): count down from its delay
      if (was?.state === "waiting" && was.attempt === r.attempt) return;
      this.stop();
      delete this.el.dataset.state;
      const until = Date.now() + r.delayMs;
      const tick = () => {
        const s = Math.max(0, Math.ceil((until - Date.now()) / 1000));
        this.line.textContent = `Retrying (attempt ${r.attempt} of ${r.maxAttempts}) in ${s} s…`;
      };
      tick();
      this.timer = setInterval(tick, 250);
      return;
    }
    this.stop();
    if (r.state === "stopped") return;
    this.line.textContent = r.state === "aborted" ? `Retry ${r.endedAttempt ?? r.attempt} aborted.` : `Retrying now (attempt ${r.endedAttempt ?? r.attempt} of ${r.maxAttempts}).`;
    this.el.dataset.state = r.state;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
