// Stored messages -> the body of Ollama's native POST /api/chat. Ollama takes one string of
// content per message, images as base64 beside it, tool calls with their arguments as an object,
// and tool results as `role: "tool"` messages named after the tool.
import type { AgentMessage, AssistantMessage, ImageContent, TextContent } from "../messages/types.js";
import { userSideContent } from "./context-text.js";
import { ollamaParameters } from "./ollama-tool-schema.js";
import { toolsForProviders } from "./tool-schema.js";
import type { ModelInfo, StreamRequest, ThinkingLevel } from "./types.js";

interface OllamaToolCall {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

interface OllamaMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

export interface OllamaChatRequest {
  model: string;
  messages: OllamaMessage[];
  tools?: { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  stream: true;
  think?: boolean | "low" | "medium" | "high";
  /** num_ctx: the window the server allocates; num_predict: the most tokens it may generate */
  options: { num_ctx: number; num_predict: number };
  /** false: a prompt over num_ctx is an error, never silently cut from the front (Ollama's default) */
  truncate: false;
  /** false: generation that fills the window stops with done_reason "length" instead of dropping old context */
  shift: false;
}

const NO_RESULT = "No result was recorded for this call (the run was interrupted).";

function split(content: string | (TextContent | ImageContent)[]): { text: string; images: string[] } {
  if (typeof content === "string") return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const b of content) {
    if (b.type === "text") texts.push(b.text);
    else if (b.type === "image") images.push(b.data);
  }
  return { text: texts.join("\n"), images };
}

function withImages(m: OllamaMessage, images: string[]): OllamaMessage {
  return images.length > 0 ? { ...m, images } : m;
}

function assistantMessage(m: AssistantMessage): OllamaMessage | undefined {
  const text: string[] = [];
  const thinking: string[] = [];
  const calls: OllamaToolCall[] = [];
  for (const b of m.content) {
    if (b.type === "text") text.push(b.text);
    // a redacted block carries only the vendor's encrypted data: nothing a local model can read
    else if (b.type === "thinking" && !b.redacted && b.thinking) thinking.push(b.thinking);
    else if (b.type === "toolCall") calls.push({ id: b.id, function: { name: b.name, arguments: b.arguments ?? {} } });
  }
  const out: OllamaMessage = { role: "assistant", content: text.join("") };
  if (thinking.length > 0) out.thinking = thinking.join("\n");
  if (calls.length > 0) out.tool_calls = calls;
  if (!out.content && !out.thinking && !out.tool_calls) return undefined;
  return out;
}

interface OllamaConvertResult {
  messages: OllamaMessage[];
  /** what had to be patched, for the log */
  notes: string[];
}

/** The system prompt and the context as Ollama messages. */
function toOllamaMessages(systemPrompt: string, messages: readonly AgentMessage[]): OllamaConvertResult {
  const notes: string[] = [];
  const out: OllamaMessage[] = systemPrompt ? [{ role: "system", content: systemPrompt }] : [];
  for (const m of messages) {
    switch (m.role) {
      case "user":
      case "custom":
      case "bashExecution":
      case "compactionSummary":
      case "branchSummary": {
        // what the other providers send as user content, in Ollama's shape
        const content = userSideContent(m);
        const { text, images } = split(content ?? []);
        if (text || images.length > 0) out.push(withImages({ role: "user", content: text }, images));
        break;
      }
      case "assistant": {
        const a = assistantMessage(m);
        if (a) out.push(a);
        else if (m.stopReason === "aborted" || m.stopReason === "error") notes.push(`left out an empty ${m.stopReason} assistant message`);
        break;
      }
      case "toolResult": {
        const { text, images } = split(m.content);
        out.push(withImages({ role: "tool", content: text || "(no output)", tool_name: m.toolName, tool_call_id: m.toolCallId }, images));
        break;
      }
    }
  }
  return { messages: answerOpenCalls(out, notes), notes };
}

/**
 * A call the history never answered (the run was cut short) gets a stand-in result right after
 * its turn, so the model does not read its own unanswered request as still pending.
 */
function answerOpenCalls(messages: OllamaMessage[], notes: string[]): OllamaMessage[] {
  const out: OllamaMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    out.push(m);
    if (m.role !== "assistant" || !m.tool_calls) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j].role === "tool"; j++) answered.add(messages[j].tool_call_id ?? "");
    for (; i + 1 < j; i++) out.push(messages[i + 1]);
    const open = m.tool_calls.filter((c) => !answered.has(c.id ?? ""));
    if (open.length > 0) notes.push(`answered ${open.length} tool call(s) that had no recorded result`);
    for (const c of open) out.push({ role: "tool", content: NO_RESULT, tool_name: c.function.name, tool_call_id: c.id });
  }
  return out;
}

const LEVEL: Record<Exclude<ThinkingLevel, "off">, "low" | "medium" | "high"> = { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "high" };

/**
 * Ollama thinks by default with a thinking model when `think` is absent, so "off" is sent as
 * false. gpt-oss takes a level (low/medium/high; it ignores true and false and cannot stop
 * thinking); every other model gets true, because Ollama before 0.20 refuses a level for them
 * (400 "think value ... is not supported for this model"). A model that cannot think gets no
 * `think` at all: Ollama refuses true for it.
 */
function thinkParam(model: ModelInfo, level: ThinkingLevel | undefined): OllamaChatRequest["think"] {
  if (level === undefined) return undefined;
  if (level === "off") return false;
  if (model.thinking === "none") return undefined;
  return /gpt-oss/i.test(model.id) ? LEVEL[level] : true;
}

/** Characters per token for a rough count of the prompt (under-counts JSON, which only leaves num_predict a little large). */
const CHARS_PER_TOKEN = 4;

export function buildOllamaRequest(request: StreamRequest): { body: OllamaChatRequest; notes: string[] } {
  const { messages, notes } = toOllamaMessages(request.systemPrompt, request.messages);
  const window = request.model.contextWindow;
  const tools = toolsForProviders(request.tools).map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: ollamaParameters(t.inputSchema) } }));
  let chars = 0;
  for (const m of messages) chars += m.content.length + (m.thinking?.length ?? 0) + (m.tool_calls ? JSON.stringify(m.tool_calls).length : 0);
  if (tools.length > 0) chars += JSON.stringify(tools).length;
  const room = window - Math.ceil(chars / CHARS_PER_TOKEN);
  const think = thinkParam(request.model, request.thinkingLevel);
  const body: OllamaChatRequest = {
    model: request.model.id,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    stream: true,
    ...(think !== undefined ? { think } : {}),
    options: { num_ctx: window, num_predict: Math.max(1, Math.min(request.maxTokens, room)) },
    truncate: false,
    shift: false,
  };
  return { body, notes };
}
