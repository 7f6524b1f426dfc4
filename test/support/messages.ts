// Builders for stored messages in tests.
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage, Usage } from "../../src/messages/types.js";

let clock = Date.UTC(2026, 0, 1);
const tick = () => (clock += 1000);

export function usage(input = 0, output = 0, cacheRead = 0, cacheWrite = 0): Usage {
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}

export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: tick() };
}

export function assistant(text: string, calls: ToolCall[] = [], u: Usage = usage(0, 0)): AssistantMessage {
  const content: AssistantMessage["content"] = text ? [{ type: "text", text }] : [];
  content.push(...calls);
  return { role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: u, stopReason: calls.length > 0 ? "toolUse" : "stop", timestamp: tick() };
}

export function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function result(toolCallId: string, toolName: string, text: string, isError = false): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError, timestamp: tick() };
}
