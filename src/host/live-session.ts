// A live session: the store, an agent and the policy around them. Operations that change the
// session are serialized (one run, compaction or tree move at a time); reads answer at once.
// Every change is stored before it is announced; events carry a per-session sequence number.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { Agent, toolSpecsOf, type AgentHooks, type PromptInput, type QueuedPrompt } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { providerSummarizer } from "../agent/summarizer-port.js";
import {
  compactionInputOf,
  compactionThreshold,
  contextTokens,
  estimateTextTokens,
  fitToWindow,
  prepareBranchSummary,
  shouldCompact,
  shouldPrepare,
  summarizeBranch,
  CompactionAbortedError,
  type CompactionPreparation,
  type CompactionReason,
  type CompactionSettings,
} from "../compaction/index.js";
import type { ModelInfo, Provider, ProviderError, ThinkingLevel } from "../llm/types.js";
import type { ImageContent, ToolCall } from "../messages/types.js";
import type { SessionFile } from "../session/session-file.js";
import { bashTool } from "../tools/bash.js";
import { createCodingTools } from "../tools/index.js";
import { ToolError } from "../tools/types.js";
import { ErrorCode, HostError } from "./errors.js";
import { AheadOfTime, type CompactionUpdate, type SummarizerChoice } from "./ahead-of-time.js";
import { runCompaction, type BeforeCompactDecision, type StoredCompaction } from "./compaction-runner.js";
import { windowAfterOverflow } from "./context-window.js";
import { EventBuffer, type SessionEvent } from "./event-buffer.js";
import { saveQueue, savedQueue, type QueueChange } from "./prompt-queue.js";
import { SessionSettings } from "./session-settings.js";
import type { SandboxSetting, ToolPolicy } from "./tool-policy.js";

export type { BeforeCompactDecision, StoredCompaction };

/** Gets each event as an object and as its ready-to-send JSON-RPC notification. */
export type SessionListener = (event: SessionEvent, wire: string) => void;

export type PermissionMode = "auto" | "ask" | "readonly";
export type PermissionOutcome = "allow" | "allowAlways" | "deny";

export interface LiveSessionDeps {
  providerFor(model: ModelInfo): Provider;
  resolveModel(id: string): ModelInfo;
  defaultModel: ModelInfo;
  compaction: CompactionSettings;
  logger: Logger;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** what the tools may touch, their environment, the sandbox (see tool-policy.ts) */
  tools: ToolPolicy & { sandboxMode: SandboxSetting };
  /** the permission mode the session starts in */
  permissionMode?: PermissionMode;
  maxTurns?: number;
  /** asks a subscribed client that can answer; resolves "deny" when none can */
  requestPermission(session: LiveSession, call: ToolCall): Promise<PermissionOutcome>;
  /** a client's beforeCompact hook, when one declared it: cancel, replace or let pith summarize */
  beforeCompact(session: LiveSession, reason: CompactionReason, preparation: CompactionPreparation & { instructions?: string }): Promise<BeforeCompactDecision>;
  /** transient provider errors: attempts and backoff */
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
}

const WRITING_TOOLS = new Set(["write", "edit", "bash"]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new CompactionAbortedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CompactionAbortedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export class LiveSession {
  readonly id: string;
  readonly file: SessionFile;
  private readonly deps: LiveSessionDeps;
  private readonly buffer = new EventBuffer();
  private readonly listeners = new Set<SessionListener>();
  private agent: Agent;
  private model: ModelInfo;
  private thinkingLevel: ThinkingLevel;
  private autoCompaction: boolean;
  private readonly stored: SessionSettings;
  /** the summary written ahead of time, if any */
  private readonly ahead: AheadOfTime;
  /** the system prompt and tool definitions in tokens: sent with every request */
  private overheadTokens = 0;
  permissionMode: PermissionMode;
  private readonly allowedAlways = new Set<string>();
  private compacting: AbortController | null = null;
  private navigating: AbortController | null = null;
  private runPromise: Promise<unknown> | null = null;
  /** requests in progress that store something when they end (bash, a tree move, a compaction) */
  private readonly inflight = new Set<Promise<unknown>>();
  /** prompts queued before the session was last closed (or crashed): stored first by the next run */
  private restoredQueue: QueuedPrompt[];
  private closing = false;
  lastActivity = Date.now();

  constructor(file: SessionFile, deps: LiveSessionDeps) {
    this.file = file;
    this.deps = deps;
    this.id = file.sessionId;
    const ctx = file.buildContext();
    this.model = deps.defaultModel;
    if (ctx.model) {
      try {
        this.model = deps.resolveModel(ctx.model.modelId);
      } catch {
        // a model this daemon does not know (another provider's, in a Pi file): go on with the default
        deps.logger.warn({ sessionId: this.id, model: ctx.model.modelId }, "the session's model is unknown here; using the default");
      }
    }
    this.thinkingLevel = (ctx.thinkingLevel as ThinkingLevel) ?? "off";
    this.stored = new SessionSettings(file);
    this.autoCompaction = this.stored.autoCompaction ?? deps.compaction.enabled;
    this.permissionMode = deps.permissionMode ?? "auto";
    this.restoredQueue = savedQueue(file);
    this.ahead = new AheadOfTime(deps.logger);
    this.agent = this.makeAgent();
  }

  // -- events --

  /**
   * Adds a listener; with afterSeq, first replays the buffered events after it. An afterSeq from
   * another stream (before the session was reopened) cannot be replayed: gap.
   */
  subscribe(listener: SessionListener, afterSeq?: number, streamId?: string): { replayed: number; gap: boolean; lastSeq: number; streamId: string } {
    let replayed = 0;
    let gap = false;
    if (afterSeq !== undefined) {
      const missed = streamId !== undefined && streamId !== this.buffer.streamId ? null : this.buffer.since(afterSeq);
      if (missed === null) gap = true;
      else for (const e of missed) (listener(e.event, e.wire), replayed++);
    }
    this.listeners.add(listener);
    return { replayed, gap, lastSeq: this.buffer.lastSeq, streamId: this.buffer.streamId };
  }

  unsubscribe(listener: SessionListener): void {
    this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  emit(type: string, params: Record<string, unknown> = {}): SessionEvent {
    const { event, wire } = this.buffer.push({ ...params, type, sessionId: this.id });
    this.lastActivity = Date.now();
    for (const l of this.listeners) {
      try {
        l(event, wire);
      } catch (err) {
        this.deps.logger.warn({ err, sessionId: this.id }, "event listener failed");
      }
    }
    return event;
  }

  /** text / thinking deltas that arrived in this turn of the event loop, not yet sent */
  private pendingDelta: { runId: string; delta: { type: "text" | "thinking"; contentIndex: number; text: string } } | null = null;
  private pendingScheduled = false;

  private flushDelta = (): void => {
    this.pendingScheduled = false;
    const pending = this.pendingDelta;
    if (!pending) return;
    this.pendingDelta = null;
    this.emit("message_update", pending);
  };

  private forward(event: AgentEvent): void {
    if (event.type === "message_update") {
      const d = event.delta;
      if ((d.type === "text" || d.type === "thinking") && d.text !== undefined) {
        // A provider sends a token or a few characters per delta, many per network read. The
        // deltas of one turn of the event loop go out as one event: the same text, far fewer
        // events for every client to parse and render.
        const p = this.pendingDelta;
        if (p && p.runId === event.runId && p.delta.type === d.type && p.delta.contentIndex === d.contentIndex) {
          p.delta.text += d.text;
          return;
        }
        this.flushDelta();
        this.pendingDelta = { runId: event.runId, delta: { type: d.type, contentIndex: d.contentIndex, text: d.text } };
        if (!this.pendingScheduled) {
          this.pendingScheduled = true;
          setImmediate(this.flushDelta);
        }
        return;
      }
      this.flushDelta();
      // the wire carries only the delta (see protocol/events.ts)
      const { type, message: _partial, ...rest } = event;
      this.emit(type, rest);
      return;
    }
    // everything else keeps its order after the deltas before it
    this.flushDelta();
    const { type, ...rest } = event;
    this.emit(type, rest);
  }

  // -- reads --

  get isRunning(): boolean {
    return this.agent.isRunning;
  }
  get isCompacting(): boolean {
    return this.compacting !== null;
  }
  get busy(): boolean {
    return this.agent.isRunning || this.compacting !== null || this.navigating !== null;
  }

  /** The context as the model sees it: messages, system prompt and tool definitions. */
  contextTokens(): number {
    const ctx = this.file.buildContext();
    return contextTokens(ctx.messages, ctx.freshFrom, this.overheadTokens).tokens;
  }

  /** The window in effect for `model` (default: the session's): the model's, or a smaller one its endpoint told us. */
  private windowOf(model: ModelInfo = this.model): number {
    return Math.min(model.contextWindow, this.stored.learnedWindow(model.id) ?? Number.POSITIVE_INFINITY);
  }

  /** The context size above which automatic compaction runs. */
  private get threshold(): number {
    return compactionThreshold(this.windowOf(), this.compactionSettings);
  }

  getState() {
    const ctx = this.file.buildContext();
    return {
      sessionId: this.id,
      sessionFile: this.file.file,
      cwd: this.file.cwd,
      name: this.file.name(),
      model: { id: this.model.id, provider: this.model.provider, contextWindow: this.model.contextWindow },
      thinkingLevel: this.thinkingLevel,
      isRunning: this.isRunning,
      isCompacting: this.isCompacting,
      autoCompactionEnabled: this.autoCompaction,
      permissionMode: this.permissionMode,
      leafId: this.file.leafId,
      messageCount: ctx.messages.length,
      contextTokens: contextTokens(ctx.messages, ctx.freshFrom, this.overheadTokens).tokens,
      contextWindow: this.windowOf(),
      threshold: this.threshold,
      ...(this.ahead.status() ? { preparedCompaction: this.ahead.status() } : {}),
      pending: this.pending(),
      streamId: this.buffer.streamId,
      sandbox: this.deps.tools.sandboxMode,
    };
  }

  private pending(): { steer: number; followUp: number } {
    const p = { ...this.agent.pending };
    for (const q of this.restoredQueue) p[q.delivery]++;
    return p;
  }

  getMessages() {
    return { messages: this.file.buildContext().messages };
  }

  /** The tree, built without stalling the other sessions (see SessionFile.treeAsync). */
  getTree() {
    return this.file.treeAsync();
  }

  stats() {
    const counts: Record<string, number> = {};
    let toolCalls = 0;
    const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    let cost = 0;
    for (const e of this.file.entries()) {
      if (e.type !== "message") continue;
      const m = e.message;
      counts[m.role] = (counts[m.role] ?? 0) + 1;
      if (m.role === "assistant") {
        toolCalls += m.content.filter((b) => b.type === "toolCall").length;
        tokens.input += m.usage?.input ?? 0;
        tokens.output += m.usage?.output ?? 0;
        tokens.cacheRead += m.usage?.cacheRead ?? 0;
        tokens.cacheWrite += m.usage?.cacheWrite ?? 0;
        cost += m.usage?.cost?.total ?? 0;
      }
    }
    tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
    return { sessionId: this.id, messages: counts, totalMessages: Object.values(counts).reduce((a, b) => a + b, 0), toolCalls, tokens, cost };
  }

  // -- runs --

  private makeAgent(): Agent {
    const tools = createCodingTools();
    const systemPrompt = buildSystemPrompt({ cwd: this.file.cwd, tools, systemPrompt: this.deps.systemPrompt, appendSystemPrompt: this.deps.appendSystemPrompt });
    const toolSpecs = toolSpecsOf(tools);
    this.overheadTokens = Math.ceil(estimateTextTokens(systemPrompt) + estimateTextTokens(JSON.stringify(toolSpecs)));
    const agent = new Agent({
      session: this.file,
      provider: this.deps.providerFor(this.model),
      model: this.model,
      tools,
      toolSpecs,
      systemPrompt,
      thinkingLevel: this.thinkingLevel,
      toolContext: { cwd: this.file.cwd, ...this.deps.tools },
      maxTurns: this.deps.maxTurns,
      hooks: this.hooks(),
    });
    agent.on((e) => this.forward(e));
    return agent;
  }

  private hooks(): AgentHooks {
    let overflowRetried = false;
    let transientAttempts = 0;
    return {
      beforeModelCall: async ({ signal, turn }) => {
        if (turn === 1) {
          overflowRetried = false;
          transientAttempts = 0;
        }
        await this.autoCompact("threshold", signal);
      },
      beforeEnd: async ({ signal, error }) => {
        if (error) this.emit("error", { code: ErrorCode.ProviderError, message: error.message, data: { class: error.errorClass ?? "fatal", status: error.status, retryable: error.errorClass === "transient" } });
        this.emitUsage();
        await this.autoCompact("threshold", signal);
      },
      onModelError: async (error, { signal }) => {
        if (error.errorClass === "overflow") this.learnWindow(this.model, error, this.contextTokens());
        if (error.errorClass === "overflow" && !overflowRetried) {
          overflowRetried = true;
          const outcome = await this.runCompaction("overflow", signal).catch((err) => {
            if (err instanceof CompactionAbortedError) return null;
            throw err;
          });
          return { action: outcome ? "retry" : "stop" };
        }
        if (error.errorClass === "transient" && transientAttempts < this.deps.retry.maxAttempts) {
          transientAttempts++;
          return this.backoff(error, transientAttempts, signal);
        }
        return { action: "stop" };
      },
      canRunTool: async (call) => this.permit(call),
      queueChanged: (queue, change) => this.recordQueue(queue, change),
    };
  }

  private recordQueue(queue: readonly QueuedPrompt[], change: QueueChange): void {
    // closing (or shutting down) is not the user dropping their prompts: keep them for the reopen
    if (change === "dropped" && this.closing) return;
    saveQueue(this.file, queue, change, this.deps.logger);
  }

  // -- the window in effect --

  /** An overflow from the endpoint: its window is smaller than believed; remember it for the rest of the session. */
  private learnWindow(model: ModelInfo, error: unknown, requestTokens: number | undefined): number | undefined {
    const current = this.windowOf(model);
    const next = windowAfterOverflow((error as ProviderError).overflow, requestTokens, current);
    if (next === undefined) return undefined;
    this.deps.logger.warn({ sessionId: this.id, model: model.id, was: current, now: next }, "the endpoint's context window is smaller than the model table says; using its limit");
    this.stored.update({ learnedWindows: { [model.id]: next } });
    this.emitUsage();
    return next;
  }

  private async backoff(error: ProviderError, attempt: number, signal: AbortSignal): Promise<{ action: "retry" | "stop" }> {
    const { baseDelayMs, maxDelayMs, maxAttempts } = this.deps.retry;
    const delayMs = Math.min(maxDelayMs, Math.max(error.retryAfterMs ?? 0, baseDelayMs * 2 ** (attempt - 1)));
    this.emit("retry_start", { attempt, maxAttempts, delayMs, error: { message: error.message, errorClass: error.errorClass, status: error.status } });
    try {
      await sleep(delayMs, signal);
    } catch {
      this.emit("retry_end", { attempt, aborted: true });
      return { action: "stop" };
    }
    this.emit("retry_end", { attempt, aborted: false });
    return { action: "retry" };
  }

  private async permit(call: ToolCall): Promise<{ allow: true } | { allow: false; reason: string }> {
    if (this.permissionMode === "readonly" && WRITING_TOOLS.has(call.name)) return { allow: false, reason: `the session is read-only; ${call.name} is not allowed` };
    if (this.permissionMode !== "ask" || this.allowedAlways.has(call.name)) return { allow: true };
    const outcome = await this.deps.requestPermission(this, call);
    if (outcome === "allowAlways") this.allowedAlways.add(call.name);
    return outcome === "deny" ? { allow: false, reason: "the user denied this tool call" } : { allow: true };
  }

  private emitUsage(): void {
    this.emit("usage_update", { contextTokens: this.contextTokens(), contextWindow: this.windowOf(), threshold: this.threshold });
  }

  /** Starts a run with the user's message, or queues it (steer / follow-up) while one runs. */
  async prompt(input: { text: string; images?: ImageContent[]; delivery?: "steer" | "followUp" }): Promise<{ runId: string }> {
    if (this.agent.isRunning) {
      if (!input.delivery) throw new HostError(ErrorCode.SessionBusy, "the session is running; send the prompt with delivery \"steer\" or \"followUp\"", { sessionId: this.id });
      if (input.delivery === "steer") this.agent.steer(input);
      else this.agent.followUp(input);
      return { runId: this.agent.runId as string };
    }
    if (this.busy) throw new HostError(ErrorCode.SessionBusy, "the session is compacting or moving in its tree", { sessionId: this.id });
    if (this.closing) throw new HostError(ErrorCode.SessionNotFound, "the session is closing", { sessionId: this.id });
    const runId = randomUUID();
    const earlier: PromptInput[] = this.restoredQueue.map(({ delivery: _d, ...p }) => p);
    // the run starts now; the user messages are stored (and synced) before run() first yields
    let toStore = earlier.length + 1;
    const stored = new Promise<void>((resolve) => {
      const off = this.agent.on((e) => {
        if ((e.type === "message_end" && --toStore === 0) || e.type === "agent_end") {
          off();
          resolve();
        }
      });
    });
    const run = this.agent.run({ text: input.text, images: input.images }, runId, earlier);
    this.runPromise = run.finally(() => {
      this.runPromise = null;
    });
    await stored;
    if (earlier.length > 0) {
      this.restoredQueue = [];
      this.recordQueue(this.agent.queue, "delivered");
    }
    return { runId };
  }

  /** Waits for the current run, if any, to end. */
  async idle(): Promise<void> {
    await this.runPromise;
  }

  abort(): { aborted: boolean } {
    const was = this.busy || this.ahead.status() !== undefined;
    this.agent.abort();
    this.compacting?.abort();
    this.navigating?.abort();
    this.ahead.discard(this.emitUpdate, "aborted");
    return { aborted: was };
  }

  private emitUpdate = (u: CompactionUpdate): void => {
    this.emit("compaction_update", { ...u });
  };

  // -- compaction --

  /** The compaction settings for this session's window (see fitToWindow). */
  private get compactionSettings(): CompactionSettings {
    return fitToWindow(this.deps.compaction, this.windowOf());
  }

  /** At the trigger, compacts; past the soft threshold below it, writes the summary ahead of time. */
  private async autoCompact(reason: CompactionReason, signal: AbortSignal): Promise<void> {
    if (!this.autoCompaction || signal.aborted) return;
    const tokens = this.contextTokens();
    const settings = { ...this.compactionSettings, enabled: true };
    if (shouldPrepare(tokens, this.windowOf(), settings)) {
      this.ahead.start({ file: this.file, input: { ...compactionInputOf(this.file), overheadTokens: this.overheadTokens }, settings, summarizer: this.summarizer(), emit: this.emitUpdate });
    }
    if (!shouldCompact(tokens, this.windowOf(), settings)) return;
    try {
      await this.runCompaction(reason, signal);
    } catch (err) {
      if (!(err instanceof CompactionAbortedError)) this.deps.logger.error({ err, sessionId: this.id }, "automatic compaction failed");
    }
  }

  /** The model that writes summaries (the settings' or the session's), with the window in effect for it. */
  private summarizer(): SummarizerChoice {
    const settings = this.compactionSettings;
    const model = settings.model ? this.deps.resolveModel(settings.model) : this.model;
    const limits = { contextWindow: this.windowOf(model), maxOutputTokens: model.maxOutputTokens };
    return {
      port: providerSummarizer(this.deps.providerFor(model), model),
      limits,
      modelKey: `${this.model.id}|${model.id}`,
      onOverflow: (err, requestTokens) => {
        const learned = this.learnWindow(model, err, requestTokens);
        if (learned !== undefined) limits.contextWindow = learned;
      },
    };
  }

  /** A manual compaction (the `compact` method). */
  async compact(instructions?: string): Promise<StoredCompaction> {
    this.requireIdle();
    return this.track(async () => {
      const controller = new AbortController();
      const result = await this.runCompaction("manual", controller.signal, instructions, controller);
      if (!result) throw new HostError(ErrorCode.Aborted, "compaction aborted");
      return result;
    });
  }

  /** One compaction with its events (see runCompaction); null when skipped or cancelled. */
  private runCompaction(reason: CompactionReason, outer: AbortSignal, instructions?: string, own?: AbortController): Promise<StoredCompaction | null> {
    return runCompaction(
      {
        session: this,
        file: this.file,
        settings: this.compactionSettings,
        deps: this.deps,
        overheadTokens: this.overheadTokens,
        ahead: this.ahead,
        summarizer: () => this.summarizer(),
        emit: (type, params) => this.emit(type, params),
        emitUpdate: this.emitUpdate,
        emitUsage: () => this.emitUsage(),
        setActive: (controller) => (this.compacting = controller),
      },
      reason,
      outer,
      instructions,
      own,
    );
  }

  setAutoCompaction(enabled: boolean): { enabled: boolean } {
    if (enabled !== this.autoCompaction) {
      // a setting of the session, not of a branch: kept in a bookkeeping entry read from anywhere
      this.stored.update({ autoCompaction: enabled });
      this.autoCompaction = enabled;
    }
    if (!enabled) this.ahead.discard(this.emitUpdate, "automatic compaction was turned off");
    return { enabled };
  }

  // -- tree --

  navigateTree(targetId: string, summarize = false, instructions?: string): Promise<{ leafId: string | null; branchSummaryEntryId?: string; editorText?: string }> {
    this.requireIdle();
    this.ahead.discard(this.emitUpdate, "the session moved in its tree");
    return this.track(() => this.moveInTree(targetId, summarize, instructions));
  }

  private async moveInTree(targetId: string, summarize: boolean, instructions?: string): Promise<{ leafId: string | null; branchSummaryEntryId?: string; editorText?: string }> {
    const target = this.file.entry(targetId);
    if (!target) throw new HostError(ErrorCode.EntryNotFound, `no entry ${targetId} in this session`, { entryId: targetId });
    // a user message goes back to the editor: the leaf moves to its parent
    let newLeaf: string | null = targetId;
    let editorText: string | undefined;
    if (target.type === "message" && target.message.role === "user") {
      newLeaf = target.parentId;
      const c = target.message.content;
      editorText = typeof c === "string" ? c : c.map((b) => (b.type === "text" ? b.text : "")).join("");
    }
    if (!summarize) {
      // moving the leaf reads nothing: a pointer moves (and a marker is appended)
      this.file.branch(newLeaf);
      this.file.sync();
      return { leafId: this.file.leafId, editorText };
    }
    const oldPath = this.file.branchPath(this.file.leafId, { keep: false });
    const controller = new AbortController();
    this.navigating = controller;
    try {
      const prep = prepareBranchSummary(oldPath, newLeaf === null ? [] : this.file.branchPath(newLeaf, { keep: false }), this.threshold);
      if (!prep) {
        this.file.branch(newLeaf);
        this.file.sync();
        return { leafId: this.file.leafId, editorText };
      }
      this.emit("branch_summary_start", { targetId, fromId: this.file.leafId });
      let result;
      try {
        result = await summarizeBranch(prep, { port: providerSummarizer(this.deps.providerFor(this.model), this.model), limits: { contextWindow: this.windowOf(), maxOutputTokens: this.model.maxOutputTokens }, settings: this.compactionSettings, signal: controller.signal, instructions });
      } catch (err) {
        const aborted = err instanceof CompactionAbortedError;
        this.emit("branch_summary_end", { aborted, error: aborted ? undefined : (err as Error).message });
        throw aborted ? new HostError(ErrorCode.Aborted, "branch summary aborted") : err;
      }
      const entry = this.file.branchWithSummary(newLeaf, result.summary, result.details);
      this.emit("branch_summary_end", { aborted: false, entryId: entry.id, summary: result.summary, fallback: result.fallback });
      return { leafId: this.file.leafId, branchSummaryEntryId: entry.id, editorText };
    } finally {
      this.navigating = null;
    }
  }

  // -- settings of the session --

  private requireIdle(): void {
    if (this.closing) throw new HostError(ErrorCode.SessionNotFound, "the session is closing", { sessionId: this.id });
    if (this.busy) throw new HostError(ErrorCode.SessionBusy, "the session is busy", { sessionId: this.id });
  }

  /** Runs a request that stores something when it ends; close() waits for it to finish. */
  private track<T>(fn: () => Promise<T>): Promise<T> {
    const p = fn();
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  setModel(id: string): { model: { id: string; contextWindow: number } } {
    this.requireIdle();
    const model = this.deps.resolveModel(id);
    this.file.appendModelChange(model.provider, model.id);
    this.file.sync();
    this.ahead.discard(this.emitUpdate, "the model changed");
    this.model = model;
    this.agent = this.makeAgent();
    return { model: { id: model.id, contextWindow: model.contextWindow } };
  }

  setThinkingLevel(level: ThinkingLevel): { level: ThinkingLevel } {
    this.requireIdle();
    this.file.appendThinkingLevelChange(level);
    this.file.sync();
    this.thinkingLevel = level;
    this.agent = this.makeAgent();
    return { level };
  }

  setName(name: string): { name: string } {
    this.file.setName(name);
    this.file.sync();
    return { name: name.trim() };
  }

  setLabel(entryId: string, label: string | undefined): { entryId: string; label?: string } {
    if (!this.file.has(entryId)) throw new HostError(ErrorCode.EntryNotFound, `no entry ${entryId} in this session`, { entryId });
    this.file.setLabel(entryId, label);
    this.file.sync();
    return { entryId, label: label || undefined };
  }

  /** A command the user runs (Pi's `!cmd`), stored as a bashExecution message. */
  bash(command: string): Promise<{ output: string; exitCode: number | null; cancelled: boolean; truncated: boolean; entryId: string }> {
    this.requireIdle();
    return this.track(() => this.runUserCommand(command));
  }

  /** The user is trusted: their command is not sandboxed, but it gets no secrets either (its output goes to the model). */
  private async runUserCommand(command: string): Promise<{ output: string; exitCode: number | null; cancelled: boolean; truncated: boolean; entryId: string }> {
    const controller = new AbortController();
    this.navigating = controller;
    let output = "";
    let exitCode: number | null = 0;
    let truncated = false;
    let fullOutputPath: string | undefined;
    try {
      const out = await bashTool.execute({ command }, { cwd: this.file.cwd, signal: controller.signal, env: this.deps.tools.env });
      output = out.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      const d = out.details as { exitCode?: number | null; truncated?: boolean; fullOutputPath?: string } | undefined;
      exitCode = d?.exitCode ?? 0;
      truncated = d?.truncated ?? false;
      fullOutputPath = d?.fullOutputPath;
    } catch (err) {
      const d = (err as ToolError).details as { exitCode?: number | null; truncated?: boolean; fullOutputPath?: string } | undefined;
      output = (err as Error).message;
      exitCode = d?.exitCode ?? null;
      truncated = d?.truncated ?? false;
      fullOutputPath = d?.fullOutputPath;
    } finally {
      this.navigating = null;
    }
    const cancelled = controller.signal.aborted;
    const message = { role: "bashExecution" as const, command, output, exitCode: exitCode ?? undefined, cancelled, truncated, fullOutputPath, timestamp: Date.now() };
    const entry = this.file.appendMessage(message, { sync: true });
    this.emit("message_start", { message });
    this.emit("message_end", { message, entryId: entry.id });
    return { output, exitCode, cancelled, truncated, entryId: entry.id };
  }

  /**
   * Cancels what is in flight (a run, bash, a tree move, a compaction), waits for each to store
   * what it must and answer its caller as cancelled, then closes the file (synced, lock
   * released). Queued prompts stay recorded for the next open.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.abort();
    await this.idle();
    await Promise.allSettled([...this.inflight]);
    this.listeners.clear();
    this.file.close();
  }
}
