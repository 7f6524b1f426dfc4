// The reply being streamed: message_start's message with each message_update delta applied
// (protocol/PROTOCOL.md, message_update). No DOM here, so it can be tested in Node.
import type { AssistantMessage, MessageDelta } from "../../../protocol/index.js";

export class StreamingMessage {
  /** the raw JSON of each tool call's arguments so far, by content index */
  readonly rawArgs = new Map<number, string>();
  /** content indexes changed since the last takeDirty() */
  private dirty = new Set<number>();

  constructor(readonly message: AssistantMessage) {
    // message_start's message is ours to mutate: copy the content array
    this.message = { ...message, content: [...message.content] };
  }

  apply(delta: MessageDelta): void {
    const content = this.message.content;
    const i = delta.contentIndex;
    this.dirty.add(i);
    switch (delta.type) {
      case "text": {
        const block = content[i];
        if (block?.type === "text") block.text += delta.text ?? "";
        else content[i] = { type: "text", text: delta.text ?? "" };
        break;
      }
      case "thinking": {
        const block = content[i];
        if (block?.type === "thinking") block.thinking += delta.text ?? "";
        else content[i] = { type: "thinking", thinking: delta.text ?? "" };
        break;
      }
      case "toolcall_start":
        content[i] = { type: "toolCall", id: delta.toolCallId ?? `call-${i}`, name: delta.toolName ?? "tool", arguments: {} };
        this.rawArgs.set(i, "");
        break;
      case "toolcall_delta": {
        this.rawArgs.set(i, (this.rawArgs.get(i) ?? "") + (delta.text ?? ""));
        if (content[i]?.type !== "toolCall") content[i] = { type: "toolCall", id: delta.toolCallId ?? `call-${i}`, name: delta.toolName ?? "tool", arguments: {} };
        break;
      }
      case "toolcall_end": {
        const block = content[i];
        if (block?.type === "toolCall") {
          const args = parseArgs(this.rawArgs.get(i) ?? "");
          if (args) block.arguments = args;
          if (delta.toolCallId) block.id = delta.toolCallId;
          if (delta.toolName) block.name = delta.toolName;
        }
        this.rawArgs.delete(i);
        break;
      }
    }
  }

  /** Whether the tool call at `index` is still receiving its arguments. */
  receivingArgs(index: number): boolean {
    return this.rawArgs.has(index);
  }

  takeDirty(): number[] {
    const out = [...this.dirty];
    this.dirty.clear();
    return out;
  }
}

function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The file lists pith appends to its summaries (<read-files>, <modified-files>). */
export function fileListsFromSummary(summary: string): { readFiles: string[]; modifiedFiles: string[] } {
  const section = (tag: string) => {
    const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n?</${tag}>`).exec(summary);
    return m ? m[1].split("\n").map((s) => s.trim()).filter(Boolean) : [];
  };
  return { readFiles: section("read-files"), modifiedFiles: section("modified-files") };
}

/** The auto-compaction threshold as the daemon computes it: window - min(reserve, window/2). */
export function compactionThreshold(contextWindow: number, reserveTokens = 16384): number {
  return contextWindow - Math.min(reserveTokens, Math.floor(contextWindow / 2));
}
