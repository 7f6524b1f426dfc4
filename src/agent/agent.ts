// The agent loop: build the context from the store, stream the model, store its message, run
// the tools it asked for (in order), store their results, repeat until the model stops asking
// or a guard trips. Everything is stored before it is announced, so a crash can lose at most
// what was being streamed. Policy (compaction, retries) stays with the session host, which
// plugs in through the hooks.
import { randomUUID } from "node:crypto";
import { emptyUsage, type AgentMessage, type AssistantMessage, type ImageContent, type TextContent, type ToolCall, type ToolResultMessage, type Usage } from "../messages/types.js";
import { ProviderError, type ModelInfo, type Provider, type ThinkingLevel, type ToolSpec } from "../llm/types.js";
import type { SessionFile } from "../session/session-file.js";
import { parseToolArgs, toolInputSchema } from "../tools/index.js";
import type { Tool, ToolContext, ToolOutput } from "../tools/types.js";
import type { AgentEvent, AgentEventListener, RunError, RunStopReason } from "./events.js";

export interface ModelErrorDecision {
  action: "retry" | "stop";
}

export interface AgentHooks {
  /** before every model call: the host may compact the session here */
  beforeModelCall?: (info: { runId: string; turn: number; signal: AbortSignal }) => Promise<void>;
  /** what the model sees (e.g. old tool output pruned); the stored context is not changed */
  transformContext?: (messages: AgentMessage[]) => AgentMessage[];
  /** a model call failed: retry it (after whatever the host does: wait, compact) or stop the run */
  onModelError?: (error: ProviderError, info: { runId: string; attempt: number; signal: AbortSignal }) => Promise<ModelErrorDecision>;
  /** after the last model call of a run, before agent_end (a run includes what this does, e.g. a compaction) */
  beforeEnd?: (info: { runId: string; stopReason: RunStopReason; error?: RunError; signal: AbortSignal }) => Promise<void>;
  /** before a tool runs: refuse it with a reason the model will see */
  canRunTool?: (call: ToolCall, signal: AbortSignal) => Promise<{ allow: true } | { allow: false; reason: string }>;
  /** the steer / follow-up queue changed (a prompt queued, delivered or dropped): what it holds now */
  queueChanged?: (queue: QueuedPrompt[], change: "queued" | "delivered" | "dropped") => void;
}

/** What the model is told about the tools. */
export function toolSpecsOf(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: toolInputSchema(t) }));
}

export interface AgentOptions {
  session: SessionFile;
  provider: Provider;
  model: ModelInfo;
  tools: readonly Tool[];
  toolSpecs?: readonly ToolSpec[];
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

export interface PromptInput {
  text: string;
  images?: ImageContent[];
  /** when the prompt was accepted (ms); the stored user message carries it (default: when stored) */
  timestamp?: number;
}

/** A prompt waiting in the steer or follow-up queue. */
export interface QueuedPrompt extends PromptInput {
  delivery: "steer" | "followUp";
  timestamp: number;
}

export interface RunResult {
  runId: string;
  stopReason: RunStopReason;
  error?: RunError;
  usage: Usage;
}

function addUsage(total: Usage, u: Usage): void {
  total.input += u.input;
  total.output += u.output;
  total.cacheRead += u.cacheRead;
  total.cacheWrite += u.cacheWrite;
  total.totalTokens = (total.totalTokens ?? 0) + (u.totalTokens ?? u.input + u.output + u.cacheRead + u.cacheWrite);
  total.cost.input += u.cost.input;
  total.cost.output += u.cost.output;
  total.cost.cacheRead += u.cost.cacheRead;
  total.cost.cacheWrite += u.cost.cacheWrite;
  total.cost.total += u.cost.total;
}

function userMessage(input: PromptInput): AgentMessage {
  const content: (TextContent | ImageContent)[] = [{ type: "text", text: input.text }, ...(input.images ?? [])];
  return { role: "user", content: input.images?.length ? content : input.text, timestamp: input.timestamp ?? Date.now() };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Agent {
  private readonly listeners = new Set<AgentEventListener>();
  private readonly steerQueue: QueuedPrompt[] = [];
  private readonly followUpQueue: QueuedPrompt[] = [];
  private controller: AbortController | null = null;
  private currentRunId: string | null = null;
  /** the error of the last stored failed model call */
  private lastError: RunError | undefined;
  readonly options: AgentOptions;

  private readonly toolSpecs: readonly ToolSpec[];

  constructor(options: AgentOptions) {
    this.options = options;
    this.toolSpecs = options.toolSpecs ?? toolSpecsOf(options.tools);
  }

  on(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get isRunning(): boolean {
    return this.controller !== null;
  }
  get runId(): string | null {
    return this.currentRunId;
  }
  get pending(): { steer: number; followUp: number } {
    return { steer: this.steerQueue.length, followUp: this.followUpQueue.length };
  }

  /** Delivered after the running tool finishes; the turn's remaining tool calls are skipped. */
  steer(input: PromptInput): void {
    this.steerQueue.push({ ...input, delivery: "steer", timestamp: input.timestamp ?? Date.now() });
    this.queueChanged("queued");
  }
  /** Delivered when the model would otherwise stop. */
  followUp(input: PromptInput): void {
    this.followUpQueue.push({ ...input, delivery: "followUp", timestamp: input.timestamp ?? Date.now() });
    this.queueChanged("queued");
  }

  /** Both queues, in the order the prompts were accepted. */
  get queue(): QueuedPrompt[] {
    return [...this.steerQueue, ...this.followUpQueue].sort((a, b) => a.timestamp - b.timestamp);
  }

  private queueChanged(change: "queued" | "delivered" | "dropped"): void {
    this.options.hooks?.queueChanged?.(this.queue, change);
  }

  /** Stops the stream and any running tool at once. */
  abort(): void {
    this.controller?.abort();
  }

  private emit(event: AgentEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure must not break the run
      }
    }
  }

  private storeUser(runId: string, input: PromptInput): void {
    const message = userMessage(input);
    // stored and synced first: an accepted prompt is never lost, nothing announced is lost
    const entry = this.options.session.appendMessage(message as never, { sync: true });
    this.emit({ type: "message_start", runId, message });
    this.emit({ type: "message_end", runId, message, entryId: entry.id });
  }

  /**
   * Runs until the model stops (or an abort, an error, the turn guard). With `input`, it is
   * stored first as the user's message; without, the run continues the stored context.
   * `earlier` prompts (queued before a crash, restored on reopen) are stored before it.
   */
  async run(input?: PromptInput, runId: string = randomUUID(), earlier: readonly PromptInput[] = []): Promise<RunResult> {
    if (this.controller) throw new Error("the agent is already running");
    const controller = new AbortController();
    this.controller = controller;
    this.currentRunId = runId;
    const signal = controller.signal;
    const total = emptyUsage();
    let stopReason: RunStopReason = "stop";
    let error: RunError | undefined;
    this.emit({ type: "agent_start", runId });
    try {
      for (const e of earlier) this.storeUser(runId, e);
      if (input) this.storeUser(runId, input);
      const maxTurns = this.options.maxTurns ?? 200;
      let lengthContinuations = 0;
      for (let turn = 1; ; turn++) {
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        if (turn > maxTurns) {
          stopReason = "max_turns";
          error = { message: `stopped after ${maxTurns} model calls in one run` };
          break;
        }
        await this.options.hooks?.beforeModelCall?.({ runId, turn, signal });
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        this.emit({ type: "turn_start", runId, turn });
        const message = await this.callModel(runId, signal);
        addUsage(total, message.usage);
        if (message.stopReason === "aborted") {
          this.skipCalls(runId, message.content.filter((b): b is ToolCall => b.type === "toolCall"), "aborted");
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          stopReason = "aborted";
          break;
        }
        if (message.stopReason === "error") {
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          stopReason = "error";
          error = this.lastError ?? { message: message.errorMessage ?? "the model call failed" };
          break;
        }
        const calls = message.content.filter((b): b is ToolCall => b.type === "toolCall");
        if (calls.length > 0) {
          await this.runTools(runId, calls, signal);
          this.options.session.sync();
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          if (signal.aborted) {
            stopReason = "aborted";
            break;
          }
          this.deliver(runId, this.steerQueue);
          continue;
        }
        this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
        if (message.stopReason === "length" && lengthContinuations < (this.options.maxLengthContinuations ?? 3)) {
          // the reply hit the output limit: the next call continues it
          lengthContinuations++;
          continue;
        }
        lengthContinuations = 0;
        if (message.stopReason === "length") {
          stopReason = "length";
          break;
        }
        if (this.steerQueue.length > 0 || this.followUpQueue.length > 0) {
          this.deliver(runId, this.steerQueue);
          this.deliver(runId, this.followUpQueue);
          continue;
        }
        stopReason = "stop";
        break;
      }
      if (!signal.aborted && this.options.hooks?.beforeEnd) await this.options.hooks.beforeEnd({ runId, stopReason, error, signal });
    } catch (err) {
      stopReason = signal.aborted ? "aborted" : "error";
      error = { message: errorText(err) };
    } finally {
      try {
        this.options.session.sync();
      } catch {
        // a closed session: nothing left to sync
      }
      this.controller = null;
      this.currentRunId = null;
      // prompts queued for this run and not delivered (an abort, an error) must not leak into the next
      if (this.steerQueue.length + this.followUpQueue.length > 0) {
        this.steerQueue.length = 0;
        this.followUpQueue.length = 0;
        this.queueChanged("dropped");
      }
    }
    const result: RunResult = { runId, stopReason, error, usage: total };
    this.emit({ type: "agent_end", runId, stopReason, error, usage: total });
    return result;
  }

  private deliver(runId: string, queue: QueuedPrompt[]): void {
    if (queue.length === 0) return;
    while (queue.length > 0) {
      const { delivery: _delivery, ...input } = queue.shift() as QueuedPrompt;
      this.storeUser(runId, input);
    }
    this.queueChanged("delivered");
  }

  /** One model call, retried as the host decides; returns the stored assistant message. */
  private async callModel(runId: string, signal: AbortSignal): Promise<AssistantMessage> {
    const { session, provider, model } = this.options;
    for (let attempt = 1; ; attempt++) {
      const ctx = session.buildContext();
      const messages = this.options.hooks?.transformContext ? this.options.hooks.transformContext(ctx.messages) : ctx.messages;
      let final: AssistantMessage | undefined;
      let failure: ProviderError | undefined;
      let started = false;
      for await (const ev of provider.stream({
        model,
        systemPrompt: this.options.systemPrompt,
        messages,
        tools: this.toolSpecs,
        maxTokens: this.options.maxTokens ?? Math.min(model.maxOutputTokens, 32_000),
        thinkingLevel: this.options.thinkingLevel,
        signal,
      })) {
        if (ev.type === "start") {
          started = true;
          // a copy: the partial message keeps growing, and events are kept for replay
          this.emit({ type: "message_start", runId, message: structuredClone(ev.partial) });
        } else if (ev.type === "text_delta" || ev.type === "thinking_delta") {
          this.emit({ type: "message_update", runId, message: ev.partial, delta: { type: ev.type === "text_delta" ? "text" : "thinking", contentIndex: ev.contentIndex, text: ev.delta } });
        } else if (ev.type === "toolcall_start") {
          this.emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_start", contentIndex: ev.contentIndex, toolCallId: ev.id, toolName: ev.name } });
        } else if (ev.type === "toolcall_delta") {
          this.emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_delta", contentIndex: ev.contentIndex, text: ev.delta } });
        } else if (ev.type === "toolcall_end") {
          this.emit({ type: "message_update", runId, message: ev.partial, delta: { type: "toolcall_end", contentIndex: ev.contentIndex, toolCallId: ev.toolCall.id, toolName: ev.toolCall.name } });
        } else if (ev.type === "done") {
          final = ev.message;
        } else if (ev.type === "error") {
          final = ev.message;
          failure = ev.error;
        }
      }
      if (!final) throw new Error(`provider ${provider.name} ended its stream without a final message`);
      if (!started) this.emit({ type: "message_start", runId, message: final });
      if (failure && failure.errorClass !== "aborted" && !signal.aborted && this.options.hooks?.onModelError) {
        const decision = await this.options.hooks.onModelError(failure, { runId, attempt, signal });
        if (decision.action === "retry" && !signal.aborted) {
          // the failed attempt is not stored: the retry takes its place
          this.emit({ type: "message_end", runId, message: final, willRetry: true });
          continue;
        }
      }
      if (failure && signal.aborted) {
        final.stopReason = "aborted";
        final.errorMessage = "request aborted";
      }
      this.lastError = failure && failure.errorClass !== "aborted" ? { message: failure.message, errorClass: failure.errorClass, status: failure.status } : undefined;
      const entry = session.appendMessage(final, { sync: true });
      this.emit({ type: "message_end", runId, message: final, entryId: entry.id });
      return final;
    }
  }

  /** Tool calls that will never run get an error result, so no call is left unanswered. */
  private skipCalls(runId: string, calls: readonly ToolCall[], why: "aborted" | "skipped"): void {
    const text = why === "aborted" ? "Aborted by the user before this tool ran." : "Skipped: the user sent a new message before this tool ran.";
    for (const call of calls) {
      this.emit({ type: "tool_execution_start", runId, toolCallId: call.id, toolName: call.name, args: call.arguments });
      this.storeResult(runId, call, { content: [{ type: "text", text }] }, true);
    }
  }

  private storeResult(runId: string, call: ToolCall, output: ToolOutput, isError: boolean): ToolResultMessage {
    const result: ToolResultMessage = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: output.content, details: output.details, isError, timestamp: Date.now() };
    const entry = this.options.session.appendMessage(result);
    this.emit({ type: "tool_execution_end", runId, toolCallId: call.id, toolName: call.name, result, isError, entryId: entry.id });
    return result;
  }

  private async runTools(runId: string, calls: ToolCall[], signal: AbortSignal): Promise<void> {
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      if (signal.aborted || this.steerQueue.length > 0) {
        this.skipCalls(runId, calls.slice(i), signal.aborted ? "aborted" : "skipped");
        return;
      }
      this.emit({ type: "tool_execution_start", runId, toolCallId: call.id, toolName: call.name, args: call.arguments });
      const { output, isError } = await this.execute(runId, call, signal);
      this.storeResult(runId, call, output, isError);
    }
  }

  private async execute(runId: string, call: ToolCall, signal: AbortSignal): Promise<{ output: ToolOutput; isError: boolean }> {
    const fail = (text: string, details?: unknown) => ({ output: { content: [{ type: "text" as const, text }], details }, isError: true });
    const tool = this.options.tools.find((t) => t.name === call.name);
    if (!tool) return fail(`Unknown tool "${call.name}". Available tools: ${this.options.tools.map((t) => t.name).join(", ")}.`);
    try {
      const params = parseToolArgs(tool, call.arguments ?? {});
      if (this.options.hooks?.canRunTool) {
        const verdict = await this.options.hooks.canRunTool(call, signal);
        if (!verdict.allow) return fail(`Not permitted: ${verdict.reason}`);
      }
      const output = await tool.execute(params, {
        ...this.options.toolContext,
        signal,
        onUpdate: (partial) => this.emit({ type: "tool_execution_update", runId, toolCallId: call.id, toolName: call.name, partial }),
      });
      return { output, isError: false };
    } catch (err) {
      // keep what the tool says (bash includes the output it had so far)
      if (signal.aborted) return fail(`Aborted by the user while ${call.name} was running. ${errorText(err)}`.trim());
      return fail(errorText(err), (err as { details?: unknown }).details);
    }
  }
}
