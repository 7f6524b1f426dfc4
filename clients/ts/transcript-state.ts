// The transcript reducer: what each event does to a TranscriptState (the state itself, as data,
// is in transcript-types.ts). A renderer draws the state; this file decides what there is to draw
// (how messages and tool calls come in, repeats included, is in transcript-messages.ts).
//
// Immutable: every function returns a new state when something changed (the same object when
// nothing did) and leaves its input alone; unchanged items, tools and collections are shared, so
// a renderer can compare by reference. Imports only types from protocol/ (no zod).
import type { AgentMessage, AssistantMessage, EventLine, RunError } from "../../protocol/index.js";
import { TranscriptDraft, type NewItem } from "./transcript-draft.js";
import { addFinal, endRun, messageEnd, messageStart, messageUpdate, toolEnd, toolStart, toolUpdate } from "./transcript-messages.js";
import type { ReplyModel, TranscriptState } from "./transcript-types.js";

export { messageKey } from "./transcript-messages.js";
export type { ReplyModel, ShownMessage, ToolState, ToolStatus, TranscriptItem, TranscriptState } from "./transcript-types.js";

type TranscriptEventName =
  | "message_start"
  | "message_update"
  | "message_end"
  | "tool_execution_start"
  | "tool_execution_update"
  | "tool_execution_end"
  | "agent_end"
  | "compaction_start"
  | "compaction_update"
  | "compaction_end"
  | "compaction_skipped"
  | "branch_summary_start"
  | "branch_summary_end"
  | "retry_start"
  | "retry_end"
  | "error";
type WithoutBase<T> = T extends unknown ? Omit<T, "sessionId" | "seq" | "runId"> : never;
/** The events a transcript shows, as `{type, ...params}` (a session's own fields not needed). */
export type TranscriptEvent = WithoutBase<Extract<EventLine, { type: TranscriptEventName }>>;

/**
 * A transcript of `messages` (getMessages: the context) and nothing else. `liveSummaries`: the
 * summaries being written that a previous transcript of the session had (no fetch reports them).
 */
export function transcriptFrom(messages: readonly AgentMessage[], options: { placeholder?: string; liveSummaries?: ReadonlyMap<string, string>; idle?: boolean } = {}): TranscriptState {
  const empty: TranscriptState = {
    origin: {},
    items: [],
    tools: new Map(),
    nextId: 1,
    seen: new Set(),
    skipping: false,
    liveSummaries: options.liveSummaries ?? new Map(),
    ...(options.placeholder !== undefined ? { placeholder: options.placeholder } : {}),
  };
  const d = new TranscriptDraft(empty);
  for (const m of messages) addFinal(d, m);
  // nothing runs: a call without a result will not get one here (a tree move left it behind)
  if (options.idle) for (const tool of d.state.tools.values()) if (tool.status === "pending") d.putTool({ ...tool, status: "unanswered" });
  return d.result();
}

/** Adds a notice from the client (not from an event). */
export function addNotice(t: TranscriptState, kind: "error" | "warn" | "info", text: string, tag: string = kind): TranscriptState {
  const d = new TranscriptDraft(t);
  d.append({ type: "notice", kind, text, tag });
  return d.result();
}

/** The transcript after one event. `model` names the reply's model if it was joined mid-stream. */
export function reduceTranscript(t: TranscriptState, ev: TranscriptEvent, model: ReplyModel = { api: "", provider: "", model: "" }): TranscriptState {
  const d = new TranscriptDraft(t);
  switch (ev.type) {
    case "message_start":
      messageStart(d, ev.message);
      break;
    case "message_update":
      messageUpdate(d, ev.delta, model);
      break;
    case "message_end": {
      const streamed = d.state.streaming?.itemId;
      messageEnd(d, ev.message, ev.willRetry ?? false);
      if (ev.message.role === "assistant") replyEnded(d, ev.message, streamed, ev.willRetry ?? false);
      break;
    }
    case "tool_execution_start":
      toolStart(d, ev.toolCallId, ev.toolName, ev.args);
      break;
    case "tool_execution_update":
      toolUpdate(d, ev.toolCallId, ev.partial.content);
      break;
    case "tool_execution_end":
      toolEnd(d, ev.result);
      break;
    case "agent_end":
      if (ev.stopReason === "error") oneFailureBlock(d, ev.error);
      else stopRetry(d);
      d.set("failedReply", undefined);
      d.set("runErrorItem", undefined);
      endRun(d, ev.stopReason === "aborted");
      if (ev.stopReason !== "stop" && ev.stopReason !== "error") d.append({ type: "runEnd", stopReason: ev.stopReason });
      break;
    case "compaction_start":
      if (d.state.compactionItem !== undefined) d.remove(d.state.compactionItem);
      d.set(
        "compactionItem",
        d.append({
          type: "compaction",
          state: "running",
          reason: ev.reason,
          ...(ev.compactionId !== undefined ? { compactionId: ev.compactionId } : {}),
          prepared: ev.prepared ?? false,
          tokensBefore: ev.tokensBefore,
          live: (ev.compactionId !== undefined ? d.state.liveSummaries.get(ev.compactionId) : undefined) ?? "",
          applying: false,
          willRetry: false,
        }),
      );
      break;
    case "compaction_update": {
      if (ev.phase === "discarded") {
        d.forgetSummary(ev.compactionId);
        break;
      }
      // a new chunk rewrites the whole summary: its text starts over
      const text = (ev.phase === "chunk" ? "" : (d.state.liveSummaries.get(ev.compactionId) ?? "")) + (ev.delta ?? "");
      d.putSummary(ev.compactionId, text);
      const marker = d.item(d.state.compactionItem);
      if (marker?.type === "compaction" && marker.compactionId === ev.compactionId) {
        d.replace({ ...marker, live: text, applying: marker.applying || ev.phase === "applying" });
      }
      break;
    }
    case "compaction_end": {
      const r = ev.result;
      const fallback = ev.fallback ?? r?.fallback;
      const running = d.item(d.state.compactionItem);
      const marker: NewItem = {
        type: "compaction",
        state: r ? "done" : ev.aborted ? "aborted" : "failed",
        reason: ev.reason,
        ...(ev.compactionId !== undefined ? { compactionId: ev.compactionId } : {}),
        prepared: ev.prepared ?? false,
        tokensBefore: r?.tokensBefore ?? (running?.type === "compaction" ? running.tokensBefore : 0),
        live: "",
        applying: false,
        willRetry: ev.willRetry,
        ...(r ? { result: r } : {}),
        ...(fallback ? { fallback } : {}),
        ...(!r && !ev.aborted && ev.error !== undefined ? { error: ev.error } : {}),
      };
      d.replaceOrAppend(d.state.compactionItem, marker);
      d.set("compactionItem", undefined);
      if (ev.compactionId !== undefined) d.forgetSummary(ev.compactionId);
      break;
    }
    case "branch_summary_start":
      if (d.state.branchItem !== undefined) d.remove(d.state.branchItem);
      d.set("branchItem", d.append({ type: "branchSummary", state: "running" }));
      break;
    case "branch_summary_end":
      d.replaceOrAppend(d.state.branchItem, {
        type: "branchSummary",
        state: ev.summary ? "done" : ev.aborted ? "aborted" : "failed",
        ...(ev.summary ? { summary: ev.summary } : {}),
        ...(ev.fallback ? { fallback: ev.fallback } : {}),
        ...(!ev.summary && !ev.aborted && ev.error !== undefined ? { error: ev.error } : {}),
      });
      d.set("branchItem", undefined);
      break;
    case "retry_start":
      // the call's earlier attempts have their block: this attempt updates it
      d.set("retryItem", d.replaceOrAppend(d.state.retryItem, { type: "retry", state: "waiting", attempt: ev.attempt, maxAttempts: ev.maxAttempts, delayMs: ev.delayMs, error: ev.error }));
      break;
    case "retry_end": {
      const retry = d.item(d.state.retryItem);
      if (retry?.type === "retry") d.replace({ ...retry, state: ev.aborted ? "aborted" : "retried", endedAttempt: ev.attempt });
      if (ev.aborted) d.set("retryItem", undefined);
      break;
    }
    case "compaction_skipped":
      d.append({ type: "compactionSkipped", reason: ev.reason, code: ev.code, tokensBefore: ev.tokensBefore, message: ev.message });
      break;
    case "error":
      d.set("runErrorItem", d.append({ type: "error", code: ev.code, message: ev.message, ...(ev.data !== undefined ? { data: ev.data } : {}) }));
      break;
  }
  return d.result();
}

// ---- retries, summaries ---------------------------------------------------------------------------

/** The wait for a retry ended without a retry_end. */
function stopRetry(d: TranscriptDraft): void {
  const retry = d.item(d.state.retryItem);
  d.set("retryItem", undefined);
  if (retry?.type === "retry" && retry.state === "waiting") d.replace({ ...retry, state: "stopped" });
}

/** A failed reply with nothing in it says only what the failure block says. */
function emptyFailure(m: AssistantMessage): boolean {
  return m.stopReason === "error" && m.content.every((b) => (b.type === "text" ? !b.text.trim() : b.type === "thinking" ? !b.thinking.trim() : false));
}

/**
 * After a reply's message_end: an empty failed attempt that will be retried goes (the retry block
 * says why), the run's last one is remembered for agent_end, and a reply that came through closes
 * the call's retry block (a later call's retries get their own).
 */
function replyEnded(d: TranscriptDraft, m: AssistantMessage, streamed: number | undefined, willRetry: boolean): void {
  const last = d.state.items.at(-1);
  const id = streamed ?? (last?.type === "assistant" && last.message === m ? last.id : undefined);
  if (!emptyFailure(m)) {
    if (!willRetry) d.set("retryItem", undefined);
    return;
  }
  if (id === undefined) return;
  if (willRetry) d.remove(id);
  else d.set("failedReply", id);
}

/**
 * A run that failed shows one block: the run's error event (or agent_end's error), in the place
 * of its retry block when it had one; its empty failed reply and the retry block give way to it.
 */
function oneFailureBlock(d: TranscriptDraft, error: RunError | undefined): void {
  const { failedReply, runErrorItem, retryItem } = d.state;
  const event = d.item(runErrorItem);
  if (failedReply !== undefined) d.remove(failedReply);
  if (event !== undefined) d.remove(event.id);
  const block: NewItem = event?.type === "error" ? (({ id: _id, ...rest }) => rest)(event) : { type: "runEnd", stopReason: "error", ...(error ? { error } : {}) };
  d.replaceOrAppend(retryItem, block);
  d.set("retryItem", undefined);
}

/** The file lists pith appends to its summaries (<read-files>, <modified-files>). */
export function fileListsFromSummary(summary: string): { readFiles: string[]; modifiedFiles: string[] } {
  const section = (tag: string) => {
    const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n?</${tag}>`).exec(summary);
    return m ? m[1].split("\n").map((s) => s.trim()).filter(Boolean) : [];
  };
  return { readFiles: section("read-files"), modifiedFiles: section("modified-files") };
}
