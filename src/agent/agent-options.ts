// How an agent is set up, the hooks through which the session host plugs in its policy
// (compaction, retries, tool permission, the persisted queue), what a run returns, and what
// the parts of a run share. Kept apart from agent.ts so those parts (the model call, the tool
// calls) can use these types without importing the loop that uses them.
import type { AgentMessage, ToolCall, Usage } from "../messages/types.js";
import type { ModelInfo, Provider, ProviderError, ThinkingLevel, ToolSpec } from "../llm/types.js";
import type { SessionFile } from "../session/session-file.js";
import type { Tool, ToolContext, ToolEffects } from "../tools/types.js";
import type { AgentEvent, RunError, RunStopReason } from "./events.js";
import type { QueuedPrompt } from "./pending-prompts.js";

interface ModelErrorDecision {
  action: "retry" | "stop";
  /** stop: the run's error as the host words it (its own code, say), instead of the provider's */
  error?: RunError;
}

export interface AgentHooks {
  /** before every model call: the host may compact the session here */
  beforeModelCall?: (info: { runId: string; turn: number; signal: AbortSignal }) => Promise<void>;
  /** the tokens the window has left for a reply now: a request never asks for more (small windows, vLLM counts it in) */
  replyRoom?: () => number;
  /** what the model sees (e.g. old tool output pruned); the stored context is not changed */
  transformContext?: (messages: AgentMessage[]) => AgentMessage[];
  /** a model call failed: retry it (after whatever the host does: wait, compact) or stop the run */
  onModelError?: (error: ProviderError, info: { runId: string; attempt: number; signal: AbortSignal }) => Promise<ModelErrorDecision>;
  /** after the last model call of a run, before agent_end (a run includes what this does, e.g. a compaction) */
  beforeEnd?: (info: { runId: string; stopReason: RunStopReason; error?: RunError; signal: AbortSignal }) => Promise<void>;
  /** before a tool runs (`effects`: what the tool declares it may do; `runId`: the run making the call): refuse it with a reason the model will see */
  canRunTool?: (call: ToolCall, context: { signal: AbortSignal; effects: ToolEffects; runId: string }) => Promise<{ allow: true } | { allow: false; reason: string }>;
  /** the steer / follow-up queue changed (a prompt queued or delivered): what it holds now */
  queueChanged?: (queue: QueuedPrompt[], change: "queued" | "delivered") => void;
  /**
   * the run is ending (before agent_end) with these prompts still queued, taken out of the queue
   * unreported: the host runs them next, drops them (`aborted`: the run's abort signal fired) or
   * keeps them recorded (a close).
   * Without this hook they are dropped.
   */
  queueLeft?: (left: QueuedPrompt[], end: { runId: string; stopReason: RunStopReason; aborted: boolean }) => void;
}

export interface AgentOptions {
  session: SessionFile;
  provider: Provider;
  model: ModelInfo;
  tools: readonly Tool[];
  toolSpecs?: readonly ToolSpec[];
  /**
   * tools beside `tools` for the next model call (an MCP server's), asked before each one: the
   * list a model call was told of is the one its calls run against
   */
  moreTools?: () => Promise<readonly Tool[]>;
  systemPrompt: string;
  thinkingLevel?: ThinkingLevel;
  toolContext: Omit<ToolContext, "signal" | "onUpdate">;
  /** model calls per run before the run is stopped (default 200) */
  maxTurns?: number;
  /** output tokens per call (default: the model's limit, at most 32k) */
  maxTokens?: number;
  /** a reply cut off at the output limit is continued this many times (default 3) */
  maxLengthContinuations?: number;
  hooks?: AgentHooks;
}

export interface RunResult {
  runId: string;
  stopReason: RunStopReason;
  error?: RunError;
  usage: Usage;
}

/** What the parts of one run share: the agent's options, where its events go, the run's id and abort signal. */
export interface RunScope {
  readonly options: AgentOptions;
  /** the tools the current model call was told of */
  tools: readonly Tool[];
  readonly emit: (event: AgentEvent) => void;
  readonly runId: string;
  readonly signal: AbortSignal;
}
