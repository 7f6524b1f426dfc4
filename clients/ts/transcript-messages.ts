// How messages and tool calls enter a transcript (transcript-types.ts has the state,
// transcript-state.ts the rest of the reducer). A message is keyed by role and timestamp: events
// can repeat what a fetch showed (getMessages, then the events that overlapped it) and a message
// already shown whole is not shown twice. A reply is shown as it streams; a non-reply message is
// shown at its start and replaced at its end. A tool call's status only moves forward once it has
// a result.
import type { AgentMessage, AssistantMessage, MessageDelta, ToolCall, ToolResultMessage, UserContentBlock } from "../../protocol/index.js";
import { applyDelta } from "./reply-stream.js";
import type { TranscriptDraft } from "./transcript-draft.js";
import type { ReplyModel, ShownMessage, ToolState, ToolStatus, TranscriptItem } from "./transcript-types.js";

type AssistantItem = Extract<TranscriptItem, { type: "assistant" }>;

export function messageKey(m: AgentMessage): string {
  return `${m.role}:${m.timestamp}`;
}

function isShown(m: AgentMessage): m is ShownMessage {
  switch (m.role) {
    case "user":
    case "bashExecution":
    case "compactionSummary":
    case "branchSummary":
      return true;
    case "custom":
      return m.display;
    default:
      return false;
  }
}

// ---- messages ------------------------------------------------------------------------------------

/** A message known whole (fetched, or ended without having been shown started). */
export function addFinal(d: TranscriptDraft, m: AgentMessage): void {
  d.see(messageKey(m));
  if (m.role === "toolResult") setResult(d, m);
  else if (m.role === "assistant") {
    const id = d.append({ type: "assistant", message: m, status: "done", retried: false, joined: false });
    syncCalls(d, d.item(id) as AssistantItem);
  } else if (isShown(m)) d.append({ type: "message", message: m });
}

export function messageStart(d: TranscriptDraft, m: AgentMessage): void {
  const key = messageKey(m);
  d.set("skipping", d.state.seen.has(key));
  if (d.state.skipping) return;
  if (m.role === "assistant") {
    const itemId = d.append({ type: "assistant", message: m, status: "streaming", retried: false, joined: false });
    d.set("streaming", { itemId, rawArgs: new Map() });
  } else if (isShown(m)) d.set("started", { key, itemId: d.append({ type: "message", message: m }) });
}

export function messageUpdate(d: TranscriptDraft, delta: MessageDelta, model: ReplyModel): void {
  if (d.state.skipping) return;
  let streaming = d.state.streaming;
  let item = d.item(streaming?.itemId);
  if (!streaming || item?.type !== "assistant") {
    const empty: AssistantMessage = { role: "assistant", content: [], ...model, usage: zeroUsage(), stopReason: "stop", timestamp: 0 };
    const itemId = d.append({ type: "assistant", message: empty, status: "streaming", retried: false, joined: true });
    streaming = { itemId, rawArgs: new Map() };
    item = d.item(itemId) as AssistantItem;
  }
  const reply = applyDelta({ message: item.message, rawArgs: streaming.rawArgs }, delta);
  d.set("streaming", { itemId: streaming.itemId, rawArgs: reply.rawArgs });
  d.replace({ ...item, message: reply.message });
  const block = reply.message.content[delta.contentIndex];
  if (block?.type === "toolCall") syncCall(d, block, reply.rawArgs.get(delta.contentIndex));
}

export function messageEnd(d: TranscriptDraft, m: AgentMessage, willRetry: boolean): void {
  if (d.state.skipping) {
    d.set("skipping", false);
    return;
  }
  const key = messageKey(m);
  if (m.role === "assistant") {
    const streamed = d.item(d.state.streaming?.itemId);
    const next = { type: "assistant", message: m, status: "done", retried: willRetry, joined: false } as const;
    const item = streamed?.type === "assistant" ? d.replace({ ...streamed, ...next, joined: streamed.joined }) : d.item(d.append(next));
    d.set("streaming", undefined);
    syncCalls(d, item as AssistantItem);
    // a failed attempt is not stored: the retried reply may come with the same key
    if (!willRetry) d.see(key);
    return;
  }
  const started = d.state.started;
  d.set("started", undefined);
  if (started && started.key === key) {
    const item = d.item(started.itemId);
    if (item?.type === "message" && isShown(m)) d.replace({ ...item, message: m });
    d.see(key);
    return;
  }
  if (!d.state.seen.has(key)) addFinal(d, m);
}

// ---- tool calls -----------------------------------------------------------------------------------

export function toolStart(d: TranscriptDraft, id: string, name: string, args: Record<string, unknown>): void {
  if (!d.tool(id)) addOrphan(d, { id, name, status: "pending", args });
  setStatus(d, id, "running");
}

export function toolUpdate(d: TranscriptDraft, id: string, content: readonly UserContentBlock[]): void {
  const tool = d.tool(id);
  if (tool && !tool.result) d.putTool({ ...tool, status: "running", partial: content });
}

export function toolEnd(d: TranscriptDraft, result: ToolResultMessage): void {
  d.see(messageKey(result));
  setResult(d, result);
}

/** The run is over: a reply still streaming was cut off, tool calls still going will not finish. */
export function endRun(d: TranscriptDraft, aborted: boolean): void {
  const streamed = d.item(d.state.streaming?.itemId);
  if (streamed?.type === "assistant" && streamed.status === "streaming") d.replace({ ...streamed, status: "interrupted" });
  d.set("streaming", undefined);
  for (const tool of d.state.tools.values()) {
    if (tool.status === "running" || tool.status === "streaming") setStatus(d, tool.id, aborted ? "error" : "pending");
  }
}

function addOrphan(d: TranscriptDraft, tool: ToolState): void {
  d.putTool(tool);
  d.append({ type: "tool", toolCallId: tool.id });
}

/** A tool call block of a reply: its name and arguments (or the JSON so far) go to the call's state. */
function syncCall(d: TranscriptDraft, call: ToolCall, rawArgs: string | undefined): void {
  const prev = d.tool(call.id) ?? { id: call.id, name: call.name, status: "pending" };
  if (rawArgs !== undefined) d.putTool({ ...prev, name: call.name, rawArgs, status: prev.result ? prev.status : "streaming" });
  else {
    const { rawArgs: _done, ...rest } = prev;
    d.putTool({ ...rest, name: call.name, args: call.arguments, status: prev.status === "streaming" ? "pending" : prev.status });
  }
}

function syncCalls(d: TranscriptDraft, item: AssistantItem): void {
  for (const b of item.message.content) if (b?.type === "toolCall") syncCall(d, b, undefined);
}

/** A result is final: later "running" (a replayed start) does not undo it. */
function setStatus(d: TranscriptDraft, id: string, status: ToolStatus): void {
  const tool = d.tool(id);
  if (!tool || tool.status === status) return;
  if (tool.result && (status === "running" || status === "pending" || status === "streaming")) return;
  d.putTool({ ...tool, status });
}

function setResult(d: TranscriptDraft, result: ToolResultMessage): void {
  const tool = d.tool(result.toolCallId);
  const status = result.isError ? "error" : "done";
  if (tool) d.putTool({ ...tool, status, result });
  else addOrphan(d, { id: result.toolCallId, name: result.toolName, status, result });
}

function zeroUsage(): AssistantMessage["usage"] {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
