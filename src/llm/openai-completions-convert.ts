// Stored messages -> Chat Completions messages, for OpenAI and every compatible server.
//
// - User content is a plain string when it is text only (some servers take nothing else), an
//   array of text and `image_url` parts (data URLs) when it holds images.
// - Tool results are `role: "tool"` messages with text only, as most servers take them; their
//   images follow in one user message after the turn's results.
// - Thinking from this same provider and API goes back in the field it came in (recorded as
//   the block's signature: "reasoning_content" or "reasoning"): DeepSeek refuses a tool-calling
//   history without its reasoning_content, and Groq refuses a field it does not use, so the
//   server's own field is the only safe choice. Thinking from any other provider is dropped:
//   sent as text, the model would read it as something it told the user, and it costs tokens.
// - Tool ids from another provider are made valid for OpenAI (at most 40 characters, [A-Za-z0-9_-]).
import type OpenAI from "openai";
import type { AgentMessage, AssistantMessage, ThinkingContent } from "../messages/types.js";
import { dataUrl, joinedText, noteDroppedThinking, noteEmpty, pairTurns, resultText, sameOrigin, type AssistantTurn, type UserPart } from "./openai-convert.js";
import { safeToolId } from "./tool-ids.js";
import { toolsForProviders } from "./tool-schema.js";
import type { ToolSpec } from "./types.js";

type Message = OpenAI.Chat.ChatCompletionMessageParam;
type ContentPart = OpenAI.Chat.ChatCompletionContentPartText | OpenAI.Chat.ChatCompletionContentPartImage;

export const COMPLETIONS_API = "openai-completions";

/** the delta fields servers stream reasoning in, in the order they are looked for */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;
export type ReasoningField = (typeof REASONING_FIELDS)[number];

const TOOL_ID_MAX = 40;

export interface CompletionsConversion {
  messages: Message[];
  notes: string[];
}

function userMessage(parts: readonly UserPart[]): Message {
  if (parts.every((p) => p.type === "text")) return { role: "user", content: joinedText(parts) };
  const content: ContentPart[] = parts.map((p) => (p.type === "text" ? { type: "text", text: p.text } : { type: "image_url", image_url: { url: dataUrl(p) } }));
  return { role: "user", content };
}

function reasoningOf(m: AssistantMessage): { field: ReasoningField; text: string } | undefined {
  const blocks = m.content.filter((b): b is ThinkingContent => b.type === "thinking" && !!b.thinking);
  const field = REASONING_FIELDS.find((f) => blocks.some((b) => b.thinkingSignature === f));
  return field ? { field, text: blocks.map((b) => b.thinking).join("\n\n") } : undefined;
}

function assistantTurn(turn: AssistantTurn, provider: string, notes: string[]): Message[] {
  const m = turn.message;
  const own = sameOrigin(m, provider, COMPLETIONS_API);
  const idFor = (id: string) => (own ? id : safeToolId(id, TOOL_ID_MAX));
  const text = m.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
  if (!text && turn.calls.length === 0) {
    noteEmpty(m, notes);
    return [];
  }
  const reply: OpenAI.Chat.ChatCompletionAssistantMessageParam & Record<string, unknown> = { role: "assistant", content: text || null };
  if (turn.calls.length > 0) {
    reply.tool_calls = turn.calls.map((c) => ({ id: idFor(c.id), type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) } }));
  }
  const reasoning = own ? reasoningOf(m) : undefined;
  if (reasoning) reply[reasoning.field] = reasoning.text;
  else noteDroppedThinking(m, notes);
  const out: Message[] = [reply];
  const images: ContentPart[] = [];
  for (const c of turn.calls) {
    const result = turn.results.get(c.id);
    out.push({ role: "tool", tool_call_id: idFor(c.id), content: resultText(result) });
    for (const part of result?.content ?? []) if (part.type === "image") images.push({ type: "image_url", image_url: { url: dataUrl(part) } });
  }
  // tool messages take text only on most servers: the images follow the turn's results
  if (images.length > 0) out.push({ role: "user", content: [{ type: "text", text: "The image(s) the tool call(s) above returned:" }, ...images] });
  return out;
}

/** Two user messages in a row become one: some chat templates insist on alternating roles. */
function mergeUsers(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (m.role === "user" && last?.role === "user") {
      const parts = (c: typeof m.content): ContentPart[] => (typeof c === "string" ? [{ type: "text", text: c }] : (c as ContentPart[]));
      last.content = typeof last.content === "string" && typeof m.content === "string" ? `${last.content}\n\n${m.content}` : [...parts(last.content), ...parts(m.content)];
    } else out.push(m);
  }
  return out;
}

/** `provider` is the provider the request goes to: only its own replies give their reasoning back. */
export function toCompletionsMessages(systemPrompt: string, messages: readonly AgentMessage[], provider: string): CompletionsConversion {
  const notes: string[] = [];
  const out: Message[] = [];
  if (systemPrompt) out.push({ role: "system", content: systemPrompt });
  for (const turn of pairTurns(messages, notes)) {
    if (turn.kind === "user") out.push(userMessage(turn.content));
    else out.push(...assistantTurn(turn, provider, notes));
  }
  return { messages: mergeUsers(out), notes };
}

export function toCompletionsTools(tools: readonly ToolSpec[]): OpenAI.Chat.ChatCompletionTool[] {
  return toolsForProviders(tools).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
}
