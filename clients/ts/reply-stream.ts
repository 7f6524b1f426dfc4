// The reply being streamed: message_start's message with each message_update delta applied
// (protocol/PROTOCOL.md, message_update). Only deltas travel, so every client rebuilds the reply
// the same way; this is that rebuilding, once. applyDelta is pure (a view can keep the old and
// the new reply and compare blocks by reference); StreamingMessage wraps it for callers that want
// one mutable object. Imports only types from protocol/ (no zod in a browser bundle).
import type { AssistantContentBlock, AssistantMessage, MessageDelta, ToolCall } from "../../protocol/index.js";

/** The reply so far, and the raw JSON of the arguments of tool calls still arriving, by content index. */
export interface ReplyInProgress {
  readonly message: AssistantMessage;
  readonly rawArgs: ReadonlyMap<number, string>;
}

export function startReply(message: AssistantMessage): ReplyInProgress {
  return { message, rawArgs: new Map() };
}

/**
 * The reply with one delta applied. Returns new objects for the message, its content array and
 * the block that changed; everything else is shared with `reply`, which is left as it was.
 */
export function applyDelta(reply: ReplyInProgress, delta: MessageDelta): ReplyInProgress {
  // slice, not spread: a sparse array stays sparse
  const content: AssistantContentBlock[] = reply.message.content.slice();
  const i = delta.contentIndex;
  const block = content[i];
  const text = delta.text ?? "";
  let rawArgs = reply.rawArgs;
  switch (delta.type) {
    case "text":
      content[i] = block?.type === "text" ? { ...block, text: block.text + text } : { type: "text", text };
      break;
    case "thinking":
      content[i] = block?.type === "thinking" ? { ...block, thinking: block.thinking + text } : { type: "thinking", thinking: text };
      break;
    case "toolcall_start":
      content[i] = newCall(delta, i);
      rawArgs = new Map(rawArgs).set(i, "");
      break;
    case "toolcall_delta":
      rawArgs = new Map(rawArgs).set(i, (rawArgs.get(i) ?? "") + text);
      if (block?.type !== "toolCall") content[i] = newCall(delta, i);
      break;
    case "toolcall_end": {
      if (block?.type === "toolCall") {
        const args = parseArgs(rawArgs.get(i) ?? "");
        content[i] = {
          ...block,
          ...(args ? { arguments: args } : {}),
          ...(delta.toolCallId ? { id: delta.toolCallId } : {}),
          ...(delta.toolName ? { name: delta.toolName } : {}),
        };
      }
      if (rawArgs.has(i)) {
        const next = new Map(rawArgs);
        next.delete(i);
        rawArgs = next;
      }
      break;
    }
  }
  return { message: { ...reply.message, content }, rawArgs };
}

function newCall(delta: MessageDelta, i: number): ToolCall {
  return { type: "toolCall", id: delta.toolCallId ?? `call-${i}`, name: delta.toolName ?? "tool", arguments: {} };
}

function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** applyDelta behind one mutable object, with the content indexes changed since the last look. */
export class StreamingMessage {
  private reply: ReplyInProgress;
  private dirty = new Set<number>();

  constructor(message: AssistantMessage) {
    this.reply = startReply(message);
  }

  get message(): AssistantMessage {
    return this.reply.message;
  }

  /** the raw JSON of each tool call's arguments so far, by content index */
  get rawArgs(): ReadonlyMap<number, string> {
    return this.reply.rawArgs;
  }

  apply(delta: MessageDelta): void {
    this.reply = applyDelta(this.reply, delta);
    this.dirty.add(delta.contentIndex);
  }

  /** Whether the tool call at `index` is still receiving its arguments. */
  receivingArgs(index: number): boolean {
    return this.reply.rawArgs.has(index);
  }

  takeDirty(): number[] {
    const out = [...this.dirty];
    this.dirty.clear();
    return out;
  }
}
