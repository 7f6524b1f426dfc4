// The agent loop: build the context from the store, stream the model, store its message, run
// the tools it asked for (in order), store their results, repeat until the model stops asking
// or a guard trips. Everything is stored before it is announced, so a crash can lose at most
// what was being streamed. Policy (compaction, retries) stays with the session host, which
// plugs in through the hooks. The loop is here; one model call is in model-call.ts, the tool
// calls in tool-calls.ts, the steer / follow-up queues in pending-prompts.ts.
import { randomUUID } from "node:crypto";
import { emptyUsage, type AgentMessage, type ImageContent, type TextContent, type ToolCall, type Usage } from "../messages/types.js";
import type { ToolSpec } from "../llm/types.js";
import type { Tool, ToolEffects } from "../tools/types.js";
import type { AgentOptions, RunResult, RunScope } from "./agent-options.js";
import type { AgentEvent, AgentEventListener, RunError, RunStopReason } from "./events.js";
import { callModel } from "./model-call.js";
import { PendingPrompts, type PromptInput, type QueuedPrompt } from "./pending-prompts.js";
import { runTools, skipCalls, toolSpecsOf } from "./tool-calls.js";

export type { AgentHooks, AgentOptions, RunResult } from "./agent-options.js";
export type { PromptInput, QueuedPrompt } from "./pending-prompts.js";
export { toolSpecsOf } from "./tool-calls.js";

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

export class Agent {
  private readonly listeners = new Set<AgentEventListener>();
  private readonly pendingPrompts = new PendingPrompts((change) => this.options.hooks?.queueChanged?.(this.queue, change));
  private controller: AbortController | null = null;
  private currentRunId: string | null = null;
  readonly options: AgentOptions;

  private readonly toolSpecs: readonly ToolSpec[];
  /** the tools the last model call was told of (the built-ins and, with moreTools, the others) */
  private lastTools: readonly Tool[];

  /** What the agent's tool `name` declares it may do; "unknown" for a tool it does not have. */
  effectsOf(name: string): ToolEffects {
    return this.lastTools.find((t) => t.name === name)?.effects ?? "unknown";
  }

  /** The tools for the next model call, and what the model is told of them. */
  private async toolsNow(): Promise<{ tools: readonly Tool[]; specs: readonly ToolSpec[] }> {
    const more = (await this.options.moreTools?.()) ?? [];
    if (more.length === 0) return { tools: this.options.tools, specs: this.toolSpecs };
    return { tools: [...this.options.tools, ...more], specs: [...this.toolSpecs, ...toolSpecsOf(more)] };
  }

  constructor(options: AgentOptions) {
    this.options = options;
    this.toolSpecs = options.toolSpecs ?? toolSpecsOf(options.tools);
    this.lastTools = options.tools;
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
    return this.pendingPrompts.counts;
  }

  /** Delivered at the next point the model can take it: after the running tool (the turn's remaining tool calls skipped), or when the reply being streamed ends. */
  steer(input: PromptInput): void {
    this.pendingPrompts.add(input, "steer");
  }
  /** Delivered when the model would otherwise stop, with no steer waiting. */
  followUp(input: PromptInput): void {
    this.pendingPrompts.add(input, "followUp");
  }

  /** Both queues, in the order the prompts were accepted. */
  get queue(): QueuedPrompt[] {
    return this.pendingPrompts.all;
  }

  /** Stops the stream and any running tool at once. */
  abort(): void {
    this.controller?.abort();
  }

  private readonly emit = (event: AgentEvent): void => {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure must not break the run
      }
    }
  };

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
   * `earlier` prompts (queued before a crash and restored on reopen, or left queued by the run
   * `queuedFrom`) are stored before it. Prompts queued while the run ends (an end-of-run
   * compaction) keep it going; what is still queued when it ends goes to the queueLeft hook.
   */
  async run(input?: PromptInput, runId: string = randomUUID(), earlier: readonly PromptInput[] = [], queuedFrom?: string): Promise<RunResult> {
    if (this.controller) throw new Error("the agent is already running");
    const controller = new AbortController();
    this.controller = controller;
    this.currentRunId = runId;
    const signal = controller.signal;
    const scope: RunScope = { options: this.options, tools: this.options.tools, emit: this.emit, runId, signal };
    const pending = this.pendingPrompts;
    const store = (p: PromptInput) => this.storeUser(runId, p);
    // Pi's rule: steers first; follow-ups only once the model would stop with no steer waiting
    const deliverNext = () => pending.deliver(pending.hasSteer ? "steer" : "followUp", store);
    const total = emptyUsage();
    let stopReason: RunStopReason = "stop";
    let error: RunError | undefined;
    this.emit({ type: "agent_start", runId, ...(queuedFrom !== undefined ? { queuedFrom } : {}) });
    try {
      for (const e of earlier) this.storeUser(runId, e);
      if (input) this.storeUser(runId, input);
      const maxTurns = this.options.maxTurns ?? 200;
      let lengthContinuations = 0;
      let turn = 0;
      for (;;) {
        turn++;
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        if (turn > maxTurns) {
          stopReason = "max_turns";
          error = { message: `stopped after ${maxTurns} model calls in one run` };
          break;
        }
        // the next point the model can take a steer: after the last turn's tools, or a reply that
        // ended (text only, or cut at the limit); and again after a compaction before this call
        pending.deliver("steer", store);
        await this.options.hooks?.beforeModelCall?.({ runId, turn, signal });
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        const { tools, specs } = await this.toolsNow();
        scope.tools = this.lastTools = tools;
        if (signal.aborted) {
          stopReason = "aborted";
          break;
        }
        pending.deliver("steer", store);
        this.emit({ type: "turn_start", runId, turn });
        const { message, error: callError } = await callModel(scope, specs);
        addUsage(total, message.usage);
        if (message.stopReason === "aborted") {
          skipCalls(scope, message.content.filter((b): b is ToolCall => b.type === "toolCall"), "aborted");
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          stopReason = "aborted";
          break;
        }
        if (message.stopReason === "error") {
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          stopReason = "error";
          error = callError ?? { message: message.errorMessage ?? "the model call failed" };
          break;
        }
        const calls = message.content.filter((b): b is ToolCall => b.type === "toolCall");
        if (calls.length > 0) {
          await runTools(scope, calls, () => pending.hasSteer);
          this.options.session.sync();
          this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
          if (signal.aborted) {
            stopReason = "aborted";
            break;
          }
          // a steer is stored at the next turn's start: only when a model call will answer it (else the next run takes it)
          continue;
        }
        this.emit({ type: "turn_end", runId, turn, message, usage: message.usage });
        if (pending.hasSteer && turn < maxTurns) {
          // the reply is over: the steer goes in now (the next turn's start), before a cut reply is continued or a follow-up
          lengthContinuations = 0;
          continue;
        }
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
        if (!pending.isEmpty && turn < maxTurns) {
          deliverNext();
          continue;
        }
        if (!signal.aborted && this.options.hooks?.beforeEnd) await this.options.hooks.beforeEnd({ runId, stopReason: "stop", signal });
        // prompts that came while the run was ending (an end-of-run compaction): the run goes on with them
        if (!signal.aborted && !pending.isEmpty && turn < maxTurns) {
          deliverNext();
          continue;
        }
        stopReason = "stop";
        break;
      }
      if (stopReason !== "stop" && !signal.aborted && this.options.hooks?.beforeEnd) await this.options.hooks.beforeEnd({ runId, stopReason, error, signal });
    } catch (err) {
      stopReason = signal.aborted ? "aborted" : "error";
      error = { message: err instanceof Error ? err.message : String(err) };
    } finally {
      try {
        this.options.session.sync();
      } catch {
        // a closed session: nothing left to sync
      }
      // what is still queued is not this run's: the host runs it next, or an abort drops it
      const left = pending.takeAll();
      if (left.length > 0) this.options.hooks?.queueLeft?.(left, { runId, stopReason, aborted: signal.aborted });
      this.controller = null;
      this.currentRunId = null;
    }
    const result: RunResult = { runId, stopReason, error, usage: total };
    this.emit({ type: "agent_end", runId, stopReason, error, usage: total });
    return result;
  }
}
