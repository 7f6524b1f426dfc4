// Stored messages -> Messages API input, at the provider boundary. Summaries, bash runs and
// extension messages become user text; tool results go back to the user turn that answers
// their calls; thinking goes back with its signature. What the API cannot take is dropped or
// patched, and each such change is reported in `notes`, never made silently.
//
// Sessions move between providers (issue 23): a history may hold replies from OpenAI or a
// compatible server. Their thinking blocks carry no Anthropic signature (a Responses block's
// signature is an encrypted OpenAI reasoning item, a Chat Completions block's the name of the
// field it came in), so only blocks from the Anthropic Messages API itself go back; their tool
// ids ("call_...|fc_...", or anything a server made up) are rewritten to the API's rule the same
// way on the call and on its result.
import type Anthropic from "@anthropic-ai/sdk";
import type { AgentMessage, AssistantMessage, ImageContent, TextContent } from "../messages/types.js";
import { userSideContent } from "./context-text.js";
import { safeToolId } from "./tool-ids.js";

type Block = Anthropic.ContentBlockParam;

export interface ConvertResult {
  messages: Anthropic.MessageParam[];
  /** what had to be dropped or patched, for the log */
  notes: string[];
}

/** The api of messages this API made (and can take thinking signatures back from). */
const ANTHROPIC_API = "anthropic-messages";

/** Tool ids from other providers may hold characters the API refuses, or be too long. */
function apiToolId(id: string): string {
  return safeToolId(id, 64);
}

function userBlocks(content: (TextContent | ImageContent)[]): Block[] {
  const out: Block[] = [];
  for (const b of content) {
    if (b.type === "text" && b.text) out.push({ type: "text", text: b.text });
    else if (b.type === "image") out.push({ type: "image", source: { type: "base64", media_type: b.mimeType as Anthropic.Base64ImageSource["media_type"], data: b.data } });
  }
  return out;
}

function assistantBlocks(m: AssistantMessage, target: string, notes: string[]): Block[] {
  const out: Block[] = [];
  // a signature is only valid for the API (and the provider's keys) that made it
  const signed = m.api === ANTHROPIC_API && m.provider === target;
  for (const b of m.content) {
    if (b.type === "text") {
      if (b.text) out.push({ type: "text", text: b.text });
    } else if (b.type === "thinking") {
      if (signed && b.redacted && b.thinkingSignature) out.push({ type: "redacted_thinking", data: b.thinkingSignature });
      else if (signed && b.thinkingSignature) out.push({ type: "thinking", thinking: b.thinking, signature: b.thinkingSignature });
      else if (b.thinking || b.thinkingSignature) notes.push(`dropped a thinking block without an Anthropic signature (from ${m.provider}/${m.api})`);
    } else if (b.type === "toolCall") {
      out.push({ type: "tool_use", id: apiToolId(b.id), name: b.name, input: (b.arguments ?? {}) as Record<string, unknown> });
    }
  }
  return out;
}

/** Merges consecutive same-role messages; in a user turn, tool results come first (the API requires it). */
function push(out: Anthropic.MessageParam[], role: "user" | "assistant", blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = out[out.length - 1];
  if (last && last.role === role) {
    const merged = [...(last.content as Block[]), ...blocks];
    last.content = role === "user" ? [...merged.filter((b) => b.type === "tool_result"), ...merged.filter((b) => b.type !== "tool_result")] : merged;
  } else out.push({ role, content: blocks });
}

/** `target` is the provider the request goes to: thinking signatures from any other are dropped. */
export function toApiMessages(messages: readonly AgentMessage[], target = "anthropic"): ConvertResult {
  const notes: string[] = [];
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "assistant": {
        const blocks = assistantBlocks(m, target, notes);
        if (blocks.length === 0) {
          if (m.stopReason === "aborted" || m.stopReason === "error") notes.push(`left out an empty ${m.stopReason} assistant message`);
          break;
        }
        push(out, "assistant", blocks);
        break;
      }
      case "toolResult": {
        const content = userBlocks(m.content) as (Anthropic.TextBlockParam | Anthropic.ImageBlockParam)[];
        push(out, "user", [{ type: "tool_result", tool_use_id: apiToolId(m.toolCallId), content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }], is_error: m.isError || undefined }]);
        break;
      }
      default: {
        const content = userSideContent(m);
        if (content) push(out, "user", userBlocks(content));
      }
    }
  }
  pairToolCalls(out, notes);
  return { messages: out, notes };
}

/**
 * Every tool_use must be answered by a tool_result in the next user turn, and every
 * tool_result must answer a tool_use of the turn before. A history cut short by a crash can
 * break this; patch it (and say so) rather than have the API refuse the whole request.
 */
function pairToolCalls(out: Anthropic.MessageParam[], notes: string[]): void {
  for (let i = 0; i < out.length; i++) {
    const msg = out[i];
    if (msg.role !== "user") continue;
    const prev = i > 0 && out[i - 1].role === "assistant" ? (out[i - 1].content as Block[]) : [];
    const calls = new Set(prev.filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use").map((b) => b.id));
    const blocks = msg.content as Block[];
    const kept = blocks.filter((b) => {
      if (b.type !== "tool_result") return true;
      if (calls.has(b.tool_use_id)) {
        calls.delete(b.tool_use_id);
        return true;
      }
      notes.push(`dropped a tool result for ${b.tool_use_id}, which answers no call of the turn before`);
      return false;
    });
    const missing = [...calls].map((id): Block => ({ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "No result was recorded for this call (the run was interrupted)." }], is_error: true }));
    if (missing.length > 0) notes.push(`answered ${missing.length} tool call(s) that had no recorded result`);
    msg.content = [...missing, ...kept];
    if ((msg.content as Block[]).length === 0) msg.content = [{ type: "text", text: "(empty)" }];
  }
  // an assistant turn with calls at the very end, or followed by another assistant turn
  for (let i = 0; i < out.length; i++) {
    const msg = out[i];
    if (msg.role !== "assistant") continue;
    const ids = (msg.content as Block[]).filter((b): b is Anthropic.ToolUseBlockParam => b.type === "tool_use").map((b) => b.id);
    if (ids.length === 0 || out[i + 1]?.role === "user") continue;
    notes.push(`answered ${ids.length} tool call(s) that had no recorded result`);
    out.splice(i + 1, 0, { role: "user", content: ids.map((id): Block => ({ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "No result was recorded for this call (the run was interrupted)." }], is_error: true })) });
  }
}

/**
 * Prompt caching: a breakpoint on the last block of the latest user turn (the conversation so
 * far is read from cache next time) and on the one before it (so the previous turn's cache
 * entry is hit while this one is written). The system prompt and tools get theirs in the request.
 */
export function addCacheBreakpoints(messages: Anthropic.MessageParam[]): void {
  let marked = 0;
  for (let i = messages.length - 1; i >= 0 && marked < 2; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    const blocks = m.content as Block[];
    const last = blocks[blocks.length - 1] as Block & { cache_control?: Anthropic.CacheControlEphemeral };
    if (!last || last.type === "thinking" || last.type === "redacted_thinking") continue;
    last.cache_control = { type: "ephemeral" };
    marked++;
  }
}
