// Message and content shapes, as Pi stores them in session files. pith reads and writes these
// exact shapes so that a session file means the same thing to both programs. They are the wire's
// shapes too, declared once as zod schemas in protocol/messages.ts; the types here are those
// schemas' (known fields only: unknown keys from other writers are kept but not typed).
import type { AgentMessage, BashExecutionMessage, CustomMessage, ToolResultMessage, UserMessage, AssistantMessage, Usage } from "../../protocol/messages.js";

export type {
  AgentMessage,
  AssistantMessage,
  BashExecutionMessage,
  
  
  
  
  ImageContent,
  
  
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "../../protocol/messages.js";

/** Messages stored as `message` entries (summaries are entries of their own). */
export type StoredMessage = UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage | CustomMessage;

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

/** Plain text of a message's text blocks, for previews and listings. */
export function messageText(message: AgentMessage): string {
  switch (message.role) {
    case "compactionSummary":
    case "branchSummary":
      return message.summary;
    case "bashExecution":
      return message.command;
    default: {
      const content = message.content as string | { type: string; text?: string }[] | undefined;
      if (typeof content === "string") return content;
      if (!Array.isArray(content)) return "";
      return content
        .filter((b) => b && b.type === "text" && typeof b.text === "string")
        .map((b) => b.text)
        .join(" ");
    }
  }
}
