// A tool's output as an ACP client shows it: completed or failed, the output as content (command
// and file output fenced, so a client's markdown does not turn a `#` line into a heading), and for
// a write / edit that went through, the change as diffs. Used live (tool_execution_update / _end)
// and when replaying a session's stored tool results.
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";
import { contentBlock, fenced, type UpdateOf } from "./content.js";
import { absolutePath, argsOf, proposedDiffs } from "./tool-calls.js";

/** A tool result as pith stores it (ToolResultMessage) or a partial output (content only). */
export interface ToolOutputLike {
  content: unknown;
  details?: unknown;
}

export interface ToolResultLike extends ToolOutputLike {
  isError: boolean;
}

/** Tools whose text output is file or command output (fenced); others say things in prose. */
const OUTPUT_TOOLS = new Set(["read", "bash", "grep", "find", "ls"]);

/**
 * A tool's text as the editor gets it: within 56 KiB once JSON-encoded. The tools cut their output
 * at 50 KB of text for the model, but escaping can make that ~70 KB on the wire (a line of minified
 * JSON is mostly quotes), and several SDKs read lines of at most 64 KiB. The model got the whole
 * text; the editor is told what it was not shown.
 */
const WIRE_TEXT_BYTES = 56 * 1024;
function fitForWire(text: string): string {
  // six bytes a character is the most escaping can make of one
  if (text.length * 6 <= WIRE_TEXT_BYTES || Buffer.byteLength(JSON.stringify(text)) <= WIRE_TEXT_BYTES) return text;
  const room = WIRE_TEXT_BYTES - 256;
  let [lo, hi] = [0, text.length];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (Buffer.byteLength(JSON.stringify(text.slice(0, mid))) <= room) lo = mid;
    else hi = mid - 1;
  }
  // never half a surrogate pair
  if (lo > 0 && /[\uD800-\uDBFF]/.test(text[lo - 1]!)) lo--;
  return `${text.slice(0, lo)}\n[… ${text.length - lo} more characters, not shown here: the model got them]`;
}

/** Output blocks as tool call content; text of output tools fenced (bash even on failure: it carries the output). */
function outputContent(name: string, content: unknown, isError: boolean): ToolCallContent[] {
  const fence = OUTPUT_TOOLS.has(name) && (!isError || name === "bash");
  const out: ToolCallContent[] = [];
  for (const raw of Array.isArray(content) ? content : []) {
    const block = contentBlock(raw);
    if (!block) continue;
    if (block.type === "text") {
      if (block.text.length === 0) continue;
      const text = fitForWire(block.text);
      out.push({ type: "content", content: { type: "text", text: fence ? fenced(text) : text } });
    } else out.push({ type: "content", content: block });
  }
  return out;
}

/**
 * Everything a finished call shows: the diffs of a write / edit that succeeded (from its
 * arguments; `before`: the file's content before a write, when the caller has it), then the output.
 */
function resultContent(name: string, args: unknown, result: ToolResultLike, cwd: string, before?: string | null): ToolCallContent[] {
  const diffs = !result.isError && args !== undefined ? proposedDiffs(name, args, cwd, before) : [];
  return [...diffs, ...outputContent(name, result.content, result.isError)];
}

/** An edit's location with the line it changed (from its result's details), when both are known. */
function editedLocation(name: string, args: unknown, result: ToolResultLike, cwd: string): ToolCallLocation[] | undefined {
  if (name !== "edit" || result.isError || args === undefined) return undefined;
  const path = argsOf(args).path;
  const line = (result.details as { firstChangedLine?: unknown } | null | undefined)?.firstChangedLine;
  if (typeof path !== "string" || path.length === 0) return undefined;
  if (typeof line !== "number" || !Number.isInteger(line) || line < 1) return undefined;
  return [{ path: absolutePath(path, cwd), line }];
}

/**
 * The update that finishes a call: status, and content replacing what was shown while it ran (the
 * proposed diff of a failed edit goes away). `args` undefined: not known (the call was announced
 * before this process saw it); the output is still shown.
 */
export function toolResultUpdate(toolCallId: string, name: string, args: unknown, result: ToolResultLike, cwd: string, before?: string | null): UpdateOf<"tool_call_update"> {
  const update: UpdateOf<"tool_call_update"> = {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: result.isError ? "failed" : "completed",
    content: resultContent(name, args, result, cwd, before),
  };
  const locations = editedLocation(name, args, result, cwd);
  if (locations) update.locations = locations;
  return update;
}

/** Output so far of a running call (bash streams it): replaces the call's content. */
export function toolProgressUpdate(toolCallId: string, name: string, partial: ToolOutputLike): UpdateOf<"tool_call_update"> {
  const terminalId = terminalIdOf(partial.details);
  if (terminalId !== undefined) return { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: terminalContent(terminalId, partial.content) };
  return { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: outputContent(name, partial.content, false) };
}

/** The editor's terminal a command runs in (bash's details.terminalId), when it runs in one. */
export function terminalIdOf(details: unknown): string | undefined {
  const id = (details as { terminalId?: unknown } | null | undefined)?.terminalId;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

/**
 * The terminal itself (the client shows its output live), then any note in prose (why the command
 * failed): the output is the terminal's to show, so it is not repeated as text.
 */
function terminalContent(terminalId: string, content: unknown): ToolCallContent[] {
  const notes: ToolCallContent[] = [];
  for (const raw of Array.isArray(content) ? content : []) {
    const block = contentBlock(raw);
    if (block?.type === "text" && block.text.length > 0) notes.push({ type: "content", content: block });
  }
  return [{ type: "terminal", terminalId }, ...notes];
}
