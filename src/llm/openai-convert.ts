// Stored messages -> the turns both OpenAI APIs are built from, at the provider boundary.
// Both APIs want every tool call answered right after the message that made it (Chat
// Completions: `tool` messages straight after the assistant message; Responses:
// `function_call_output` items), so the results are attached to their call's turn here, and
// user content that arrived between a call and its result (a steering message) moves after the
// results, as convert.ts does for the Anthropic API. What a crash left unpaired is patched the
// same way too: a result that answers no call of the turn before is dropped, a call without a
// result is answered with an error, and each such change is reported in `notes`.
// The per-API shapes are in openai-completions-convert.ts and openai-responses-convert.ts.
import type { AgentMessage, AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage } from "../messages/types.js";
import { userSideContent } from "./context-text.js";

export type UserPart = TextContent | ImageContent;

export type Turn =
  | { kind: "user"; content: UserPart[] }
  | {
      kind: "assistant";
      message: AssistantMessage;
      calls: ToolCall[];
      /** results by call id; a call missing here had none recorded */
      results: Map<string, ToolResultMessage>;
    };

export type AssistantTurn = Extract<Turn, { kind: "assistant" }>;

/** what a call with no recorded result is answered with */
const NO_RESULT = "No result was recorded for this call (the run was interrupted).";

/** The conversation as turns, tool results attached to the calls they answer. */
export function pairTurns(messages: readonly AgentMessage[], notes: string[]): Turn[] {
  const turns: Turn[] = [];
  let open: AssistantTurn | undefined;
  let deferred: UserPart[] = [];
  const pushUser = (content: UserPart[]) => {
    const last = turns[turns.length - 1];
    if (last?.kind === "user") last.content.push(...content);
    else turns.push({ kind: "user", content: [...content] });
  };
  const close = () => {
    if (!open) return;
    const missing = open.calls.filter((c) => !open!.results.has(c.id)).length;
    if (missing > 0) notes.push(`answered ${missing} tool call(s) that had no recorded result`);
    open = undefined;
    if (deferred.length > 0) pushUser(deferred);
    deferred = [];
  };
  for (const m of messages) {
    if (m.role === "assistant") {
      close();
      const turn: AssistantTurn = { kind: "assistant", message: m, calls: m.content.filter((b): b is ToolCall => b.type === "toolCall"), results: new Map() };
      turns.push(turn);
      if (turn.calls.length > 0) open = turn;
    } else if (m.role === "toolResult") {
      if (open && open.calls.some((c) => c.id === m.toolCallId) && !open.results.has(m.toolCallId)) {
        open.results.set(m.toolCallId, m);
        if (open.results.size === open.calls.length) close();
      } else notes.push(`dropped a tool result for ${m.toolCallId}, which answers no call of the turn before`);
    } else {
      const content = userSideContent(m);
      if (!content || content.length === 0) continue;
      if (open) deferred.push(...content);
      else pushUser(content);
    }
  }
  close();
  return turns;
}

/** Whether a stored reply came from this provider through this API (so what it signed can go back). */
export function sameOrigin(m: AssistantMessage, provider: string, api: string): boolean {
  return m.provider === provider && m.api === api;
}

export function dataUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** The text blocks of a message, joined (images are placed by each API its own way). */
export function joinedText(parts: readonly UserPart[], separator = "\n\n"): string {
  return parts
    .filter((p): p is TextContent => p.type === "text")
    .map((p) => p.text)
    .join(separator);
}

/** A tool result's text for APIs whose tool messages take text only. */
export function resultText(result: ToolResultMessage | undefined): string {
  if (!result) return NO_RESULT;
  const text = joinedText(result.content, "\n");
  if (text) return text;
  return result.content.some((c) => c.type === "image") ? "(the image follows)" : "(no output)";
}

export function noteEmpty(m: AssistantMessage, notes: string[]): void {
  if (m.stopReason === "aborted" || m.stopReason === "error") notes.push(`left out an empty ${m.stopReason} assistant message`);
}

export function noteDroppedThinking(m: AssistantMessage, notes: string[]): void {
  if (m.content.some((b) => b.type === "thinking" && (b.thinking || b.thinkingSignature))) notes.push(`dropped thinking from ${m.provider}/${m.api}, which this API cannot take back`);
}
