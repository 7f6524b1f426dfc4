// Token estimates without a tokenizer. chars/4 badly undercounts code and JSON (tool output is
// mostly that) and ignores the per-block framing the API adds. This estimator counts character
// classes and blocks; its weights were fitted on the real usage deltas of a long Pi session
// (half the turns) and checked on the other half: `npm run bench` prints its error beside
// chars/4's. Authoritative counts come from the provider's usage; estimates fill the gaps.
import { modelView } from "../messages/cut-reply.js";
import type { AgentMessage, AssistantMessage, Usage } from "../messages/types.js";

const ALNUM_PER_TOKEN = 3.5;
const PUNCT_TOKENS = 0.45;
const NEWLINE_TOKENS = 1;
const NON_ASCII_TOKENS = 1.5;
const MESSAGE_TOKENS = 5;
const TOOL_CALL_TOKENS = 40; // tool_use framing plus its id
const TOOL_RESULT_TOKENS = 20; // tool_result framing plus the id it answers
const IMAGE_TOKENS = 1500; // ~ a 1092x1092 image at (w*h)/750

/** Estimated tokens of a piece of text. */
export function estimateTextTokens(text: string): number {
  let alnum = 0;
  let punct = 0;
  let newlines = 0;
  let nonAscii = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) {
      // a surrogate pair is one character
      if (c >= 0xd800 && c <= 0xdbff) i++;
      nonAscii++;
    } else if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) alnum++;
    else if (c === 10) newlines++;
    else if (c > 32 && c < 127) punct++;
  }
  return alnum / ALNUM_PER_TOKEN + punct * PUNCT_TOKENS + newlines * NEWLINE_TOKENS + nonAscii * NON_ASCII_TOKENS;
}

type Block = { type: string; text?: string; thinking?: string; name?: string; arguments?: unknown };

function blocksTokens(content: string | readonly Block[] | undefined): number {
  if (typeof content === "string") return estimateTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const b of content) {
    if (!b || typeof b !== "object") continue;
    if (b.type === "text" && typeof b.text === "string") tokens += estimateTextTokens(b.text);
    else if (b.type === "thinking" && typeof b.thinking === "string") tokens += estimateTextTokens(b.thinking);
    else if (b.type === "toolCall") tokens += TOOL_CALL_TOKENS + estimateTextTokens(`${b.name ?? ""}${JSON.stringify(b.arguments ?? {})}`);
    else if (b.type === "image") tokens += IMAGE_TOKENS;
  }
  return tokens;
}

// messages are not changed once stored, and contexts are estimated again every turn
const cache = new WeakMap<object, number>();

/** Estimated tokens a message occupies in the model's context. */
export function estimateMessageTokens(message: AgentMessage): number {
  let tokens = cache.get(message);
  if (tokens === undefined) {
    tokens = computeMessageTokens(message);
    cache.set(message, tokens);
  }
  return tokens;
}

// a reply cut at the cap counts as what the model is sent of it (messages/cut-reply.ts)
function computeMessageTokens(stored: AgentMessage): number {
  const message = modelView(stored);
  let tokens = MESSAGE_TOKENS;
  switch (message.role) {
    case "user":
    case "custom":
      tokens += blocksTokens(message.content as string | Block[]);
      break;
    case "assistant":
      tokens += blocksTokens(message.content as Block[]);
      break;
    case "toolResult":
      tokens += TOOL_RESULT_TOKENS + blocksTokens(message.content as Block[]);
      break;
    case "bashExecution":
      tokens += estimateTextTokens(message.command) + estimateTextTokens(message.output ?? "");
      break;
    case "branchSummary":
    case "compactionSummary":
      tokens += estimateTextTokens(message.summary);
      break;
  }
  return Math.ceil(tokens);
}

export function estimateMessagesTokens(messages: readonly AgentMessage[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

/** Context size a usage report describes: everything sent plus everything generated. */
function usageTokens(usage: Usage | undefined): number {
  if (!usage) return 0;
  return (usage.input || 0) + (usage.output || 0) + (usage.cacheRead || 0) + (usage.cacheWrite || 0);
}

/** The usage of an assistant message that describes the context it saw (not aborted / errored / zero). */
export function reliableUsage(message: AgentMessage): number {
  if (message.role !== "assistant") return 0;
  const m = message as AssistantMessage;
  if (m.stopReason === "aborted" || m.stopReason === "error") return 0;
  return usageTokens(m.usage);
}

export interface ContextTokens {
  tokens: number;
  /** from the provider's last usage report (0 when none counts) */
  usageTokens: number;
  /** estimated, for the messages after that report (or all of them) */
  estimatedTokens: number;
  /** index of the message whose usage was used, or -1 */
  usageIndex: number;
}

/**
 * Tokens in the context: the last reliable usage report among the messages added since the
 * latest compaction (`freshFrom`), plus estimates for every message after it. Usage reported
 * before that compaction described a context that no longer exists, so it never counts.
 * `overheadTokens` (the system prompt and the tool definitions, sent with every request) are
 * added when no usage report counts: a report already includes them.
 */
export function contextTokens(messages: readonly AgentMessage[], freshFrom = 0, overheadTokens = 0): ContextTokens {
  let usageIndex = -1;
  let fromUsage = 0;
  for (let i = messages.length - 1; i >= freshFrom; i--) {
    const u = reliableUsage(messages[i]);
    if (u > 0) {
      usageIndex = i;
      fromUsage = u;
      break;
    }
  }
  let estimated = usageIndex < 0 ? overheadTokens : 0;
  for (let i = usageIndex + 1; i < messages.length; i++) estimated += estimateMessageTokens(messages[i]);
  return { tokens: fromUsage + estimated, usageTokens: fromUsage, estimatedTokens: estimated, usageIndex };
}
