// Events the agent emits while it works, as plain objects the daemon forwards to clients. Each is
// the wire's event of the same name (protocol/events.ts) without sessionId and seq, which the host
// adds, tagged with its name: derived from the wire's schemas, so the two cannot drift.
import type { EventName, EventParams, RunError, RunStopReason } from "../../protocol/index.js";
import type { AssistantMessage } from "../messages/types.js";

export type { RunError, RunStopReason };

/** The wire's event E as the agent emits it: `type` instead of sessionId and seq; Own's fields replace the wire's. */
type FromWire<E extends EventName, Own extends object = {}> = Flat<{ type: E } & Omit<EventParams<E>, "sessionId" | "seq" | keyof Own> & Own>;
type Flat<T> = { [K in keyof T]: T[K] };

export type AgentEvent =
  | FromWire<"agent_start">
  | FromWire<"turn_start">
  // inside a run a message always has its run (the wire's runId is optional for the bash method's)
  | FromWire<"message_start", { runId: string }>
  // the reply so far rides along for the host; the wire sends only the delta
  | FromWire<"message_update", { message: AssistantMessage }>
  /** entryId: where it was stored; a failed attempt that will be retried is not stored */
  | FromWire<"message_end", { runId: string }>
  | FromWire<"tool_execution_start">
  | FromWire<"tool_execution_update">
  | FromWire<"tool_execution_end">
  | FromWire<"turn_end">
  | FromWire<"agent_end">;

export type AgentEventListener = (event: AgentEvent) => void;
