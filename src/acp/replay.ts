// A stored session's history as the session/update notifications session/load sends before it
// answers: the active branch, root to leaf, shown as it happened. Everything on the branch is
// shown, including what a compaction summarized (the file keeps it, and the user wrote it); the
// compaction itself sits where it happened. Other branches are not shown: ACP has no tree.
//
// user -> user chunks (text, images); assistant -> thought chunks, message chunks, and a tool
// call per toolCall (its status taken from its result, found ahead, so the card never flickers),
// finished by the result's entry with output and diff; a shell command the user ran -> a user
// chunk with the command and its output; branch summary -> a note; bookkeeping, model and
// thinking-level changes, labels, names, custom entries -> nothing. Pi's files have calls whose
// result was never written (an abort): they show as failed. A turn that ended in an abort (an
// aborted reply, or a result an abort wrote, details {aborted: true}: a cancel, a cancelled
// permission question) is followed by a line saying it was interrupted, after its last result.
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import type { AssistantMessage, BashExecutionMessage, ToolResultMessage } from "../messages/types.js";
import type { SessionEntry } from "../session/types.js";
import { compactionEntryUpdates } from "./compaction-updates.js";
import { chunk, contentBlocks, fenced, noteChunk, type ClientFeatures } from "./content.js";
import { argsOf, toolCallStart } from "./tool-calls.js";
import { toolResultUpdate } from "./tool-results.js";

export interface ReplayContext extends Pick<ClientFeatures, "compaction"> {
  /** the session's working directory (relative paths in tool arguments start there) */
  cwd: string;
}

type ChunkKind = "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk";

/** Collects updates; text that follows text of the same kind from another message or block starts a new paragraph. */
class Timeline {
  readonly updates: SessionUpdate[] = [];
  private last: string | undefined;

  push(update: SessionUpdate): void {
    this.updates.push(update);
    this.last = undefined;
  }

  chunk(kind: ChunkKind, block: ContentBlock, messageId: string, part: number): void {
    const key = `${kind}\u0000${messageId}\u0000${part}`;
    const follows = this.last !== undefined && this.last.startsWith(`${kind}\u0000`) && this.last !== key;
    const content = block.type === "text" && follows ? { ...block, text: `\n\n${block.text}` } : block;
    this.updates.push(chunk(kind, content, messageId));
    this.last = block.type === "text" ? key : undefined;
  }
}

/** The results on the branch by call id, in order (an id used twice is answered in turn). */
function resultsByCall(entries: readonly SessionEntry[]): Map<string, ToolResultMessage[]> {
  const out = new Map<string, ToolResultMessage[]>();
  for (const e of entries) {
    if (e.type !== "message" || e.message.role !== "toolResult") continue;
    const list = out.get(e.message.toolCallId);
    if (list) list.push(e.message);
    else out.set(e.message.toolCallId, [e.message]);
  }
  return out;
}

export function historyUpdates(entries: readonly SessionEntry[], ctx: ReplayContext): SessionUpdate[] {
  const timeline = new Timeline();
  const results = resultsByCall(entries);
  /** calls shown and not yet finished by their result's entry */
  const open = new Map<string, { name: string; args: Record<string, unknown> }>();
  /** the entry where a turn ended in an abort: the line saying so waits for the turn's last result */
  let interrupted: string | undefined;
  const sayInterrupted = () => {
    if (interrupted !== undefined) timeline.push(noteChunk("The turn was interrupted.", `${interrupted}:interrupted`));
    interrupted = undefined;
  };
  for (const entry of entries) {
    switch (entry.type) {
      case "message": {
        const m = entry.message;
        if (m.role === "toolResult") {
          toolResult(m, timeline, open, ctx);
          if (m.isError && (m.details as { aborted?: unknown } | undefined)?.aborted === true) interrupted = entry.id;
          break;
        }
        sayInterrupted();
        if (m.role === "user") contentBlocks(m.content).forEach((b, i) => timeline.chunk("user_message_chunk", b, entry.id, i));
        else if (m.role === "assistant") assistant(m, entry.id, timeline, results, open, ctx);
        else if (m.role === "bashExecution") timeline.chunk("user_message_chunk", { type: "text", text: bashText(m) }, entry.id, 0);
        if (m.role === "assistant" && m.stopReason === "aborted") interrupted = entry.id;
        break;
      }
      case "compaction":
        sayInterrupted();
        for (const u of compactionEntryUpdates(entry, ctx)) timeline.push(u);
        break;
      case "branch_summary":
        sayInterrupted();
        if (entry.summary) timeline.push(noteChunk(`Summary of the branch left behind:\n\n${entry.summary}`, entry.id));
        break;
      default:
        break;
    }
  }
  sayInterrupted();
  return timeline.updates;
}

function assistant(
  m: AssistantMessage,
  messageId: string,
  timeline: Timeline,
  results: Map<string, ToolResultMessage[]>,
  open: Map<string, { name: string; args: Record<string, unknown> }>,
  ctx: ReplayContext,
): void {
  (Array.isArray(m.content) ? m.content : []).forEach((block, i) => {
    if (!block || typeof block !== "object") return;
    if (block.type === "text" && typeof block.text === "string" && block.text.length > 0) {
      timeline.chunk("agent_message_chunk", { type: "text", text: block.text }, messageId, i);
    } else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking.length > 0) {
      timeline.chunk("agent_thought_chunk", { type: "text", text: block.thinking }, messageId, i);
    } else if (block.type === "toolCall" && typeof block.id === "string") {
      const name = typeof block.name === "string" ? block.name : "";
      const args = argsOf(block.arguments);
      const result = results.get(block.id)?.shift();
      if (result) {
        open.set(block.id, { name, args });
        timeline.push(toolCallStart(block.id, name, args, ctx.cwd, result.isError ? "failed" : "completed"));
      } else {
        const call = toolCallStart(block.id, name, args, ctx.cwd, "failed");
        call.content = [{ type: "content", content: { type: "text", text: "No result was recorded for this call (it was interrupted)." } }];
        timeline.push(call);
      }
    }
  });
  if (m.stopReason === "error" && m.errorMessage) timeline.push(noteChunk(`The model call failed: ${m.errorMessage}`, `${messageId}:error`));
}

function toolResult(m: ToolResultMessage, timeline: Timeline, open: Map<string, { name: string; args: Record<string, unknown> }>, ctx: ReplayContext): void {
  const call = open.get(m.toolCallId);
  open.delete(m.toolCallId);
  const end = toolResultUpdate(m.toolCallId, call?.name ?? m.toolName, call?.args, m, ctx.cwd);
  if (call) {
    timeline.push(end);
    return;
  }
  // a result whose call is not on the branch: show it whole
  const shown = toolCallStart(m.toolCallId, m.toolName, undefined, ctx.cwd, end.status ?? "completed");
  delete shown.rawInput;
  timeline.push({ ...shown, content: end.content ?? [] });
}

/** A command the user ran in the shell, as they would read it back: `!command` and its output. */
function bashText(m: BashExecutionMessage): string {
  let text = `!${m.command}`;
  if (m.output) text += `\n${fenced(m.output)}`;
  if (m.cancelled) text += "\n(cancelled)";
  else if (typeof m.exitCode === "number" && m.exitCode !== 0) text += `\n(exit code ${m.exitCode})`;
  if (m.truncated) text += m.fullOutputPath ? `\n(output truncated; the full output is in ${m.fullOutputPath})` : "\n(output truncated)";
  return text;
}
