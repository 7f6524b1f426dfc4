// A live session: the store, an agent and the policy around them. Exclusive operations (a run, a
// compaction, a tree move, a user command, a model change) run only once admitted to the session's
// one slot (exclusive.ts), which every front reaches through the operation layer
// (operations/perform.ts) by the method's row; they take the `Held` it hands out. Reads answer at once. Every change is stored before it
// is announced; events carry a per-session sequence number (session-events.ts).
import type { Logger } from "pino";
import type { EventName, ResultOf } from "../../../protocol/index.js";
import type { Agent } from "../../agent/agent.js";
import type { CompactionSettings } from "../../compaction/index.js";
import type { ModelInfo, Provider, ThinkingLevel } from "../../llm/types.js";
import type { ImageContent } from "../../messages/types.js";
import type { SessionFile } from "../../session/session-file.js";
import { ErrorCode, HostError } from "../host-error.js";
import { ExclusiveSlot, type Held } from "../operations/exclusive.js";
import type { PermissionMode, SessionListener, SessionQuestions } from "../ports.js";
import { asksFirst, runHooks } from "./run-hooks.js";
import { LastRequest } from "../compaction/last-request.js";
import { buildSessionAgent, storedModel } from "./session-agent.js";
import { SessionCompaction } from "../compaction/session-compaction.js";
import { SessionEvents, type EventFields, type Subscription } from "./session-events.js";
import { SessionRuns } from "./session-runs.js";
import { SessionSettings } from "../policy/session-settings.js";
import { sessionStats } from "./session-stats.js";
import { removeSessionTempDir, type SandboxSetting, type ToolPolicy } from "../policy/tool-policy.js";
import { moveInTree, type TreeMoveResult } from "./tree-move.js";
import { SessionServers } from "../../mcp/session-servers.js";
import type { ServerEntry } from "../../mcp/server-connection.js";
import { runUserCommand, type UserCommandResult } from "./user-command.js";
import { SessionAside, type RequestParts } from "./aside-question.js";
import type { ProviderPlace } from "./provider-failure.js";

export interface LiveSessionDeps {
  providerFor(model: ModelInfo): Provider;
  /** where a model's provider is (undefined: the offline script) */
  providerPlace(model: ModelInfo): ProviderPlace | undefined;
  resolveModel(id: string): ModelInfo;
  /** the model of a session that stored none (throws when it cannot be used: no key, unknown) */
  defaultModel(): ModelInfo;
  compaction: CompactionSettings;
  logger: Logger;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** what the tools may touch, their environment, the sandbox (see tool-policy.ts) */
  tools: ToolPolicy & { sandboxMode: SandboxSetting };
  /** the permission mode sessions start in (a mode stored in the session may narrow it) */
  permissionMode?: PermissionMode;
  maxTurns?: number;
  /** what the session asks its clients (a permission, the beforeCompact hook), kept by the host until one answers */
  questions: SessionQuestions;
  /** transient provider errors: attempts and backoff */
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  /** the MCP servers whose tools the session gets (the settings' and its client's, merged) */
  mcpServers: readonly ServerEntry[];
}

export class LiveSession {
  readonly id: string;
  readonly file: SessionFile;
  private readonly deps: LiveSessionDeps;
  /** the event stream (the host announces a move on it) */
  readonly events: SessionEvents;
  /** the gate of the exclusive operations: only the operation layer admits there (operations/perform.ts) */
  readonly slot: ExclusiveSlot;
  private agent: Agent;
  private model: ModelInfo;
  private thinkingLevel: ThinkingLevel;
  /** the window in effect, the threshold, compactions and the summary written ahead of time */
  private readonly compaction: SessionCompaction;
  /** the agent's last model request as sent: a summary in conversation framing sends it again */
  private readonly lastRequest = new LastRequest();
  private overheadTokens = 0; // the system prompt and tool definitions in tokens: sent with every request
  /** what the agent's next request carries besides the context (a question asked aside is sent with it) */
  private requestParts!: RequestParts;
  private readonly settings: SessionSettings; // in the file: setting permissionMode stores it, synced
  /** tools the user allowed for the rest of the live session (requestPermission's allowAlways) */
  private readonly allowedAlways = new Set<string>();
  private readonly emit = <E extends EventName>(type: E, fields: EventFields<E>): void => this.events.emit(type, fields);
  /** requests in progress that store something when they end (bash, a tree move, a compaction) */
  private readonly inflight = new Set<Promise<unknown>>();
  /** runs, and the prompts queued on them (session-runs.ts: what becomes of those a run leaves) */
  private readonly runs: SessionRuns;
  /** its MCP servers: started now, alive across model changes and tree moves, stopped at close */
  readonly mcp: SessionServers;
  /** questions put to its model outside the session, stored nowhere (`pith eval`'s probes) */
  readonly aside = new SessionAside({ parts: () => this.requestParts, context: () => this.file.buildContext().messages, provider: () => this.deps.providerFor(this.model), lastRequest: this.lastRequest });

  constructor(file: SessionFile, deps: LiveSessionDeps) {
    this.file = file;
    this.deps = deps;
    this.id = file.sessionId;
    this.events = new SessionEvents(this.id, (err) => deps.logger.warn({ err, sessionId: this.id }, "event listener failed"), file.sink);
    this.slot = new ExclusiveSlot(this.id, () => this.agent.isRunning || this.runs.due);
    const ctx = file.buildContext();
    this.model = storedModel(ctx.model ?? undefined, deps);
    this.thinkingLevel = (ctx.thinkingLevel as ThinkingLevel) ?? "off";
    this.settings = new SessionSettings(file, deps.permissionMode);
    this.compaction = new SessionCompaction({
      sessionId: this.id,
      file,
      stored: this.settings,
      settings: deps.compaction,
      models: { current: () => this.model, resolve: deps.resolveModel, providerFor: deps.providerFor, overheadTokens: () => this.overheadTokens + this.mcp.overheadTokens },
      beforeCompact: deps.questions.beforeCompact,
      events: this.events,
      lastRequest: this.lastRequest,
      logger: deps.logger,
    });
    this.mcp = new SessionServers(deps.mcpServers, { cwd: file.cwd, logger: deps.logger, onChange: (server) => this.emit("mcp_server", { server }) });
    this.runs = new SessionRuns({ file, logger: deps.logger, agent: () => this.agent, closing: () => this.slot.closing, emit: this.emit });
    this.agent = this.makeAgent();
  }

  get permissionMode(): PermissionMode { return this.settings.permissionMode; }
  /** Whether a call of tool `name` waits for the user's word now: "ask" mode, a tool not read-only, not allowed for good. */
  asksFirst(name: string): boolean { return asksFirst(this.permissionMode, this.agent.effectsOf(name), this.allowedAlways, name); }

  // -- events --
  subscribe(listener: SessionListener, afterSeq?: number, streamId?: string): Subscription {
    return this.events.subscribe(listener, afterSeq, streamId);
  }

  unsubscribe(listener: SessionListener): void {
    this.events.unsubscribe(listener);
  }

  get subscriberCount(): number {
    return this.events.subscriberCount;
  }

  get lastActivity(): number {
    return this.events.lastActivity;
  }

  // -- reads --
  get isRunning(): boolean {
    return this.agent.isRunning;
  }
  get isCompacting(): boolean {
    return this.compaction.isCompacting;
  }
  /** a run, a compaction, a tree move or a user command is in progress */
  get busy(): boolean {
    return this.slot.activity !== null || this.compaction.isCompacting;
  }

  /** The context as the model sees it: messages, system prompt and tool definitions. */
  contextTokens(): number {
    return this.compaction.contextTokens();
  }

  /** The context's size and the window in effect, as usage_update reports them. */
  usage(): { contextTokens: number; contextWindow: number } {
    return { contextTokens: this.contextTokens(), contextWindow: this.compaction.windowOf() };
  }

  getState(): ResultOf<"getState"> {
    const ctx = this.file.buildContext();
    const prepared = this.compaction.prepared();
    return {
      sessionId: this.id,
      sessionFile: this.file.locator,
      cwd: this.file.cwd,
      name: this.file.name(),
      model: { id: this.model.id, provider: this.model.provider, contextWindow: this.model.contextWindow },
      thinkingLevel: this.thinkingLevel,
      isRunning: this.isRunning,
      isCompacting: this.isCompacting,
      autoCompactionEnabled: this.compaction.autoEnabled,
      permissionMode: this.permissionMode,
      leafId: this.file.leafId,
      messageCount: ctx.messages.length,
      ...this.usage(),
      threshold: this.compaction.threshold,
      compactionThreshold: this.compaction.budget.thresholdSetting,
      ...(prepared ? { preparedCompaction: prepared } : {}),
      pending: this.runs.pending(),
      queue: this.runs.queue(),
      streamId: this.events.streamId,
      sandbox: this.deps.tools.sandboxMode,
    };
  }

  getMessages(): ResultOf<"getMessages"> {
    return { messages: this.file.buildContext().messages };
  }

  /** The tree, built without stalling the other sessions (see SessionFile.treeAsync). */
  getTree(): Promise<ResultOf<"getTree">> {
    return this.file.treeAsync();
  }

  stats(): ResultOf<"getSessionStats"> {
    return sessionStats(this.file);
  }

  mcpServers(): ResultOf<"listMcpServers">["servers"] {
    return this.mcp.list();
  }

  // -- runs --
  private makeAgent(): Agent {
    const { agent, overheadTokens, parts } = buildSessionAgent({
      file: this.file,
      provider: this.lastRequest.wrap(this.deps.providerFor(this.model)),
      model: this.model,
      thinkingLevel: this.thinkingLevel,
      tools: this.deps.tools,
      systemPrompt: this.deps.systemPrompt,
      appendSystemPrompt: this.deps.appendSystemPrompt,
      maxTurns: this.deps.maxTurns,
      logger: this.deps.logger,
      moreTools: () => this.mcp.tools(),
      // the prompts a run leaves queued are the runs' to settle (session-runs.ts)
      hooks: { queueLeft: (left, end) => this.runs.queueLeft(left, end), ...runHooks({
        sessionId: this.id,
        compaction: this.compaction,
        permission: { mode: () => this.permissionMode, ask: this.deps.questions.requestPermission, allowedAlways: this.allowedAlways, cancelRun: () => this.abort("drop") },
        events: this.events,
        queue: { record: (queue, change) => this.runs.recordQueue(queue, change) },
        retry: this.deps.retry,
        place: () => this.deps.providerPlace(this.model),
      }) },
    });
    this.overheadTokens = overheadTokens;
    this.requestParts = parts;
    agent.on((e) => this.events.forward(e));
    return agent;
  }

  /** A request that stores something when it ends (bash, a tree move, a compaction): close() waits for it. */
  track(request: Promise<unknown>): void {
    this.inflight.add(request);
    const done = () => this.inflight.delete(request);
    request.then(done, done);
  }

  /** Starts a run with the user's message, or queues it (steer / follow-up) on the run the gate let it join. */
  prompt(_held: Held, input: { text: string; images?: ImageContent[]; delivery?: "steer" | "followUp" }): Promise<ResultOf<"prompt">> {
    return this.runs.prompt(input);
  }

  /** Waits for the current run (and a run it left queued prompts to), if any, to end. */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  /** `queued: "send"`: what is queued on the run starts the next run at once instead of being dropped. */
  abort(queued: "drop" | "send" = "drop"): ResultOf<"abort"> {
    const was = this.busy || this.compaction.prepared() !== undefined;
    if (queued === "send" && this.agent.isRunning) this.runs.sendQueuedOnAbort();
    this.deps.questions.withdraw(this.slot.closing ? "closed" : "aborted");
    this.agent.abort();
    this.compaction.abort();
    this.slot.abort();
    this.compaction.discardPrepared("aborted");
    return { aborted: was };
  }

  // -- exclusive operations --
  /** A manual compaction (the `compact` method). */
  async compact(held: Held, instructions?: string): Promise<ResultOf<"compact">> {
    const result = await this.compaction.run("manual", held.signal, instructions);
    if (!result) throw new HostError(ErrorCode.Aborted, "compaction aborted");
    return result;
  }

  navigateTree(held: Held, targetId: string, summarize = false, instructions?: string): Promise<TreeMoveResult> {
    this.compaction.discardPrepared("the session moved in its tree");
    return moveInTree(this.file, targetId, summarize && this.compaction.branchSummarizer(this.emit), held.signal, instructions);
  }

  /** A command the user runs (Pi's `!cmd`), stored as a bashExecution message. */
  bash(held: Held, command: string): Promise<UserCommandResult> {
    return runUserCommand(this.file, command, this.deps.tools, held.signal, this.emit);
  }

  setModel(_held: Held, id: string): ResultOf<"setModel"> {
    const model = this.deps.resolveModel(id);
    this.file.appendModelChange(model.provider, model.id);
    this.file.sync();
    this.compaction.discardPrepared("the model changed");
    this.model = model;
    this.agent = this.makeAgent();
    return { model: { id: model.id, contextWindow: model.contextWindow, provider: model.provider } };
  }

  setThinkingLevel(_held: Held, level: ThinkingLevel): ResultOf<"setThinkingLevel"> {
    this.file.appendThinkingLevelChange(level);
    this.file.sync();
    this.thinkingLevel = level;
    this.agent = this.makeAgent();
    return { level };
  }

  // -- changes allowed at any time --
  setAutoCompaction(enabled: boolean): ResultOf<"setAutoCompactionEnabled"> {
    this.compaction.setAuto(enabled);
    return { enabled };
  }

  readonly setCompactionThreshold = (t: number | null): ResultOf<"setCompactionThreshold"> => this.compaction.budget.setThreshold(t);

  setPermissionMode(mode: PermissionMode): ResultOf<"setPermissionMode"> {
    this.settings.permissionMode = mode;
    return { mode };
  }

  setName(name: string): ResultOf<"setSessionName"> {
    this.file.setName(name);
    this.file.sync();
    return { name: name.trim() };
  }

  setLabel(entryId: string, label: string | undefined): ResultOf<"setLabel"> {
    if (!this.file.has(entryId)) throw new HostError(ErrorCode.EntryNotFound, `no entry ${entryId} in this session`, { entryId });
    this.file.setLabel(entryId, label);
    this.file.sync();
    return { entryId, label: label || undefined };
  }

  /** Cancels what is in flight, waits for each to store what it must and answer as cancelled, then
   * closes the file (synced, lock released). Queued prompts stay recorded for the next open. */
  async close(): Promise<void> {
    this.slot.close();
    this.abort();
    await this.idle();
    await Promise.allSettled([...this.inflight]);
    this.events.clear();
    await Promise.all([this.file.closeAsync(), this.mcp.close(), removeSessionTempDir(this.deps.tools.tempDir)]); // + spilled outputs
  }
}
