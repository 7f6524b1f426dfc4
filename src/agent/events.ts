// Events the agent emits while it works, as plain objects the daemon forwards to clients. Each is
// the wire's event of the same name without sessionId and seq (the host adds them), except that
// message_update also carries the reply so far (the wire sends only the delta): the checks at the
// end fail to compile if the two drift.
import type { EventName, EventParams, RunError, RunStopReason } from "../../protocol/index.js";
import type { Assert, SameShape } from "../../protocol/type-checks.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage, Usage } from "../messages/types.js";
import type { ToolOutput } from "../tools/types.js";

export type { RunError, RunStopReason };

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

type WireFields<E extends EventName> = Omit<EventParams<E>, "sessionId" | "seq">;
type Own<E extends AgentEvent["type"]> = Omit<Extract<AgentEvent, { type: E }>, "type">;

export type WireEventChecks = [
  Assert<SameShape<Own<"agent_start">, WireFields<"agent_start">>>,
  Assert<SameShape<Own<"turn_start">, WireFields<"turn_start">>>,
  // the wire's runId is optional there: messages outside a run (the bash method) have none
  Assert<SameShape<Omit<Own<"message_start">, "runId">, Omit<WireFields<"message_start">, "runId">>>,
  Assert<SameShape<Omit<Own<"message_update">, "message">, WireFields<"message_update">>>,
  Assert<SameShape<Omit<Own<"message_end">, "runId">, Omit<WireFields<"message_end">, "runId">>>,
  Assert<SameShape<Own<"tool_execution_start">, WireFields<"tool_execution_start">>>,
  Assert<SameShape<Own<"tool_execution_update">, WireFields<"tool_execution_update">>>,
  Assert<SameShape<Own<"tool_execution_end">, WireFields<"tool_execution_end">>>,
  Assert<SameShape<Own<"turn_end">, WireFields<"turn_end">>>,
  Assert<SameShape<Own<"agent_end">, WireFields<"agent_end">>>,
];
