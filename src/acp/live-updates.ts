// One pith session event as the ACP session/update notifications it becomes, while a prompt runs
// (or a compaction does). The model's text and thinking stream as message / thought chunks; a
// tool call is announced when it starts to run (its arguments are complete then: the streamed
// arguments are not shown), streams its output, and finishes with its result and diff. The
// user's own prompt is not echoed: the client sent it. Runs, turns and their ends are the prompt's
// response, which the agent server sends; they produce nothing here.
//
// The mapping keeps a little memory per session (LiveState): a call's arguments between its
// start and end (the end event does not repeat them), the message being streamed (to number it
// and to send what its deltas missed), the compaction under way.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { ErrorCodes } from "../../protocol/error-codes.js";
import type { EventLine } from "../../protocol/events.js";
import { compactionEventUpdates, type CompactionMemory } from "./compaction-updates.js";
import { noticeOrNote, textChunk, type ClientFeatures } from "./content.js";
import type { McpToolRef } from "./mcp-tool-calls.js";
import { argsOf, toolCallStart, toolStatusUpdate } from "./tool-calls.js";
import { terminalIdOf, toolProgressUpdate, toolResultUpdate } from "./tool-results.js";

type Args = Record<string, unknown>;

interface StreamedMessage {
  id: string;
  /** the message's start was seen, so its deltas are all of it: what they missed can be sent at its end */
  whole: boolean;
  /** characters sent per content index */
  sent: Map<number, number>;
  /** the last content index sent, per kind: a new block of the same kind starts a new paragraph */
  lastText?: number;
  lastThinking?: number;
}

interface LiveState extends CompactionMemory {
  /** calls started and not yet ended: their names and arguments */
  tools: Map<string, { name: string; args: Args }>;
  message?: StreamedMessage;
}

export interface LiveContext extends ClientFeatures {
  /** the session's working directory (relative paths in tool arguments start there) */
  cwd: string;
  /**
   * True when the host will ask the user before running this call: its tool_call stays pending,
   * and the agent server sends toolStatusUpdate(id, "in_progress") once it is allowed.
   */
  awaitsPermission?: (toolName: string, args: Args) => boolean;
  /** the MCP tool a name stands for, as the session's servers list it (else read from the name) */
  mcpTool?: (toolName: string) => McpToolRef | undefined;
  /** this session's memory between events (one per session, kept for its life) */
  state: LiveState;
}

export function createLiveContext(options: { cwd: string; awaitsPermission?: LiveContext["awaitsPermission"]; mcpTool?: LiveContext["mcpTool"] } & Partial<ClientFeatures>): LiveContext {
  return {
    cwd: options.cwd,
    compaction: options.compaction ?? false,
    notices: options.notices ?? false,
    awaitsPermission: options.awaitsPermission,
    mcpTool: options.mcpTool,
    state: { tools: new Map() },
  };
}

type Ev<T extends EventLine["type"]> = Extract<EventLine, { type: T }>;

export function updatesForEvent(event: EventLine, ctx: LiveContext): SessionUpdate[] {
  switch (event.type) {
    case "message_start":
      if (event.message.role === "assistant") ctx.state.message = { id: `${event.runId ?? "message"}:${event.seq}`, whole: true, sent: new Map() };
      return [];
    case "message_update":
      return messageDelta(event, ctx.state);
    case "message_end":
      return event.message.role === "assistant" ? finishMessage(event, ctx.state) : [];
    case "tool_execution_start":
      return toolStart(event, ctx);
    case "tool_execution_update":
      return [toolProgressUpdate(event.toolCallId, event.toolName, event.partial)];
    case "tool_execution_end":
      return toolEnd(event, ctx);
    case "usage_update":
      return [{ sessionUpdate: "usage_update", used: Math.max(0, Math.round(event.contextTokens)), size: event.contextWindow }];
    case "compaction_start":
    case "compaction_update":
    case "compaction_end":
      return compactionEventUpdates(event, ctx, ctx.state);
    case "retry_start":
      return [noticeOrNote(ctx, "warning", `Retrying the model call in ${seconds(event.delayMs)} (attempt ${event.attempt} of ${event.maxAttempts})`, event.error.message, `retry:${event.seq}`)];
    case "compaction_skipped":
      // nothing went wrong and nothing changed in the conversation: worth a notice, not a note in it
      return ctx.notices ? [{ sessionUpdate: "notice", severity: "info", title: "Automatic compaction skipped", description: event.message }] : [];
    case "error":
      // a failed run is the prompt's error answer; a prompt the endpoint cut (automatic compaction
      // off) leaves the run going, so the user hears it here
      if (event.code !== ErrorCodes.ContextFull || !(event.data as { truncated?: boolean } | undefined)?.truncated) return [];
      return [noticeOrNote(ctx, "warning", "The context is full", event.message, `error:${event.seq}`)];
    case "prompts_dropped":
    case "queue_update":
      // an ACP prompt is never queued (a running session refuses it): these were another client's
      return [];
    default:
      return [];
  }
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) || s >= 10 ? Math.round(s) : s.toFixed(1)} s`;
}

/** A text / thinking delta as a chunk of the message it belongs to. */
function messageDelta(event: Ev<"message_update">, state: LiveState): SessionUpdate[] {
  const { delta } = event;
  if ((delta.type !== "text" && delta.type !== "thinking") || !delta.text) return [];
  // joined mid-message: number it from here; its earlier part was never seen
  const message = (state.message ??= { id: `${event.runId}:${event.seq}`, whole: false, sent: new Map() });
  return [piece(message, delta.type, delta.contentIndex, delta.text)];
}

function piece(message: StreamedMessage, kind: "text" | "thinking", index: number, text: string): SessionUpdate {
  const last = kind === "text" ? message.lastText : message.lastThinking;
  const first = !message.sent.has(index);
  if (kind === "text") message.lastText = index;
  else message.lastThinking = index;
  message.sent.set(index, (message.sent.get(index) ?? 0) + text.length);
  const body = first && last !== undefined && last !== index ? `\n\n${text}` : text;
  return textChunk(kind === "text" ? "agent_message_chunk" : "agent_thought_chunk", body, message.id);
}

/** The end of the model's reply: whatever its deltas did not carry (a provider that did not stream a block). */
function finishMessage(event: Ev<"message_end">, state: LiveState): SessionUpdate[] {
  const message = state.message;
  state.message = undefined;
  if (!message?.whole || event.message.role !== "assistant") return [];
  const out: SessionUpdate[] = [];
  event.message.content.forEach((block, index) => {
    const text = block.type === "text" ? block.text : block.type === "thinking" ? block.thinking : undefined;
    if (typeof text !== "string") return;
    const sent = message.sent.get(index) ?? 0;
    if (text.length > sent) out.push(piece(message, block.type as "text" | "thinking", index, text.slice(sent)));
  });
  return out;
}

function toolStart(event: Ev<"tool_execution_start">, ctx: LiveContext): SessionUpdate[] {
  const args = argsOf(event.args);
  ctx.state.tools.set(event.toolCallId, { name: event.toolName, args });
  const out: SessionUpdate[] = [toolCallStart(event.toolCallId, event.toolName, args, ctx.cwd, "pending", ctx.mcpTool?.(event.toolName))];
  if (!ctx.awaitsPermission?.(event.toolName, args)) out.push(toolStatusUpdate(event.toolCallId, "in_progress"));
  return out;
}

function toolEnd(event: Ev<"tool_execution_end">, ctx: LiveContext): SessionUpdate[] {
  const started = ctx.state.tools.get(event.toolCallId);
  ctx.state.tools.delete(event.toolCallId);
  const result = { content: event.result.content, details: event.result.details, isError: event.isError };
  const end = toolResultUpdate(event.toolCallId, event.toolName, started?.args, result, ctx.cwd);
  // a command in the editor's terminal: the terminal (and the reason it failed) is already shown,
  // and it is released by now, so the end only sets the status
  if (started && terminalIdOf(result.details) !== undefined) return [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status: end.status }];
  if (started) return [end];
  // its start was before this client was listening: announce it, finished
  const announced = toolCallStart(event.toolCallId, event.toolName, undefined, ctx.cwd, end.status ?? "completed", ctx.mcpTool?.(event.toolName));
  delete announced.rawInput;
  return [{ ...announced, content: end.content ?? [] }];
}
