// Events the agent emits while it works, as plain objects the daemon forwards to clients.
import type { AgentMessage, AssistantMessage, ToolResultMessage, Usage } from "../messages/types.js";
import type { ErrorClass } from "../llm/types.js";
import type { ToolOutput } from "../tools/types.js";

export type RunStopReason = "stop" | "length" | "aborted" | "error" | "max_turns";

export interface RunError {
  message: string;
  errorClass?: ErrorClass;
  status?: number;
}

export type AgentEvent =
  | { type: "agent_start"; runId: string }
  | { type: "turn_start"; runId: string; turn: number }
  | { type: "message_start"; runId: string; message: AgentMessage }
  | {
      type: "message_update";
      runId: string;
      message: AssistantMessage;
      delta: { type: "text" | "thinking" | "toolcall_start" | "toolcall_delta" | "toolcall_end"; contentIndex: number; text?: string; toolCallId?: string; toolName?: string };
    }
  /** entryId: where it was stored; a failed attempt that will be retried is not stored */
  | { type: "message_end"; runId: string; message: AgentMessage; entryId?: string; willRetry?: boolean }
  | { type: "tool_execution_start"; runId: string; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_execution_update"; runId: string; toolCallId: string; toolName: string; partial: ToolOutput }
  | { type: "tool_execution_end"; runId: string; toolCallId: string; toolName: string; result: ToolResultMessage; isError: boolean; entryId: string }
  | { type: "turn_end"; runId: string; turn: number; message: AssistantMessage; usage: Usage }
  | { type: "agent_end"; runId: string; stopReason: RunStopReason; error?: RunError; usage: Usage };

export type AgentEventListener = (event: AgentEvent) => void;
