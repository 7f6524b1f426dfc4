// Message and content shapes, as Pi stores them in session files. pith reads and writes these
// exact shapes so that a session file means the same thing to both programs. They are the wire's
// shapes too (protocol/messages.ts): the checks at the end fail to compile if the two drift.
// Type aliases, not interfaces, so they fit the wire's loose objects (which allow unknown keys).
import type * as Wire from "../../protocol/messages.js";
import type { Assert, SameShape } from "../../protocol/type-checks.js";

export type TextContent = {
  type: "text";
  text: string;
  textSignature?: string;
};

export type ImageContent = {
  type: "image";
  /** base64, without a data: prefix */
  data: string;
  mimeType: string;
};

export type ThinkingContent = {
  type: "thinking";
  thinking: string;
  /** provider signature; must be sent back unchanged for thinking blocks to be accepted */
  thinkingSignature?: string;
  redacted?: boolean;
};

export type ToolCall = {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
};

export type Cost = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
};

export type Usage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Older files lack it; readers must not rely on it being present. */
  totalTokens?: number;
  cost: Cost;
};

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export type UserMessage = {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
};

export type AssistantMessage = {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp: number;
};

export type ToolResultMessage = {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
};

export type BashExecutionMessage = {
  role: "bashExecution";
  command: string;
  output: string;
  /** absent (or null, from other writers) when the process had no exit code: killed, cancelled, failed to start */
  exitCode?: number | null;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  /** true for commands the user ran without sharing them with the model */
  excludeFromContext?: boolean;
  timestamp: number;
};

export type CustomMessage = {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
};

export type BranchSummaryMessage = {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
};

export type CompactionSummaryMessage = {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
};

/** Every message that can sit in a session's context. */
export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

/** Messages stored as `message` entries (summaries are entries of their own). */
export type StoredMessage = UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage | CustomMessage;

export type MessageRole = AgentMessage["role"];

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

// -- the wire's shapes, field for field --
export type WireShapeChecks = [
  Assert<SameShape<TextContent, Wire.TextContent>>,
  Assert<SameShape<ImageContent, Wire.ImageContent>>,
  Assert<SameShape<ThinkingContent, Wire.ThinkingContent>>,
  Assert<SameShape<ToolCall, Wire.ToolCall>>,
  Assert<SameShape<Usage, Wire.Usage>>,
  Assert<SameShape<StopReason, Wire.StopReason>>,
  Assert<SameShape<UserMessage, Wire.UserMessage>>,
  Assert<SameShape<AssistantMessage, Wire.AssistantMessage>>,
  Assert<SameShape<ToolResultMessage, Wire.ToolResultMessage>>,
  Assert<SameShape<BashExecutionMessage, Wire.BashExecutionMessage>>,
  Assert<SameShape<CustomMessage, Wire.CustomMessage>>,
  Assert<SameShape<BranchSummaryMessage, Wire.BranchSummaryMessage>>,
  Assert<SameShape<CompactionSummaryMessage, Wire.CompactionSummaryMessage>>,
  Assert<SameShape<AgentMessage, Wire.AgentMessage>>,
  Assert<SameShape<MessageRole, Wire.MessageRole>>,
];
