// The session host: every live session of this process, by id. Creates, opens, forks, closes
// and deletes sessions, gives each the providers its settings configure (host-models.ts),
// keeps the questions sessions ask their clients (pending-questions.ts), and unloads idle sessions.
import { retryPolicy } from "./policy/retry-policy.js";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { resolveSettings, type Settings, type SettingsWarning } from "./policy/settings.js";
import { compactionSettings } from "../compaction/index.js";
import { replyCapBytes } from "../llm/reply-cap.js";
import type { Script } from "../llm/scripted.js";
import type { ModelInfo, Provider } from "../llm/types.js";
import type { SessionOwner } from "../session/durable-sink.js";
import { FileSessionStore } from "../session/file-store.js";
import type { SessionSummary } from "../session/list.js";
import type { SessionRef, SessionStore } from "../session/store.js";
import { pithHome } from "../session/paths.js";
import { SessionFile } from "../session/session-file.js";
import { callerPath } from "./policy/caller-paths.js";
import { ErrorCode, HostError } from "./host-error.js";
import { hostErrorOf, movedError } from "./store-errors.js";
import { LiveSession } from "./live/live-session.js";
import { HostModels } from "./models/host-models.js";
import type { ModelResolver } from "./models/model-resolver.js";
import type { SessionModels } from "./models/session-models.js";
import type { EditorLookup } from "./ports.js";
import { PendingQuestions, type Resolved } from "./live/pending-questions.js";
import { createSessionTempDir, removeSessionTempDirsOf, removeStaleSessionTempDirs } from "./policy/session-temp.js";
import { sessionEditor, toolPolicy } from "./policy/tool-policy.js";
import { warnIfUnsandboxed } from "./policy/sandbox-warning.js";
import { SessionWorkspaces } from "./policy/session-workspaces.js";
import { perform, type HeldFor } from "./operations/perform.js";
import type { McpServers, MethodName, ParsedParamsOf } from "../../protocol/index.js";
import { mergeServerEntries } from "../mcp/session-servers.js";

export { hostErrorOf } from "./store-errors.js";

export interface HostOptions {
  /** the file store's folder; also kept out of the tools' reach whatever the store */
  sessionsDir: string;
  /** where sessions live (default: the file store over sessionsDir) */
  store?: SessionStore;
  logger: Logger;
  /** the offline script (default: the demo model) */
  script?: Script;
  /**
   * where the user's settings.json lives ($PITH_HOME) and the providers' keys (ANTHROPIC_API_KEY,
   * OPENAI_API_KEY, a provider's apiKeyEnv); tools get the process's environment, less pith's secrets
   */
  env?: NodeJS.ProcessEnv;
  /** settings from command-line flags: over both files, and trusted like the user's own */
  flags?: Settings;
  /** unload sessions nobody is subscribed to after this long idle (0: never) */
  idleUnloadMs?: number;
  retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  /** no session starts an MCP server (`pith eval`: its sessions are questioned, they do no work) */
  withoutMcpServers?: boolean;
}

export class SessionHost {
  readonly sessions = new Map<string, LiveSession>();
  readonly offline: boolean;
  readonly store: SessionStore;
  readonly workspaces: SessionWorkspaces;
  /** sessions another node took from this one, and who has them: answered with SessionMoved */
  private readonly moved = new Map<string, SessionOwner>();
  /** providers, their clients and what their servers serve */
  readonly modelSources: HostModels;
  /** the questions sessions ask (a permission, a beforeCompact hook): fronts join their clients to it */
  readonly questions: PendingQuestions;
  /** where a session's tools find the editor serving it (a front that has one sets it: ACP's terminal) */
  editorLookup: EditorLookup = () => undefined;
  private idleTimer?: NodeJS.Timeout;
  /** project settings keys that were ignored, by file and key (each logged once) */
  private readonly ignoredSettings = new Map<string, SettingsWarning>();

  constructor(private readonly options: HostOptions) {
    this.store = options.store ?? new FileSessionStore(options.sessionsDir);
    this.questions = new PendingQuestions(options.logger);
    this.workspaces = new SessionWorkspaces(() => this.env, options.sessionsDir, this.store.kind === "file");
    this.modelSources = new HostModels(options.logger, options.script, () => this.env);
    this.offline = this.startupModels()?.offline ?? true;
    if (this.offline) options.logger.warn("no model configured and no ANTHROPIC_API_KEY or OPENAI_API_KEY: sessions use the offline scripted provider (a demo script)");
    warnIfUnsandboxed(this.env, options.flags, options.logger);
    removeStaleSessionTempDirs();
    if (options.idleUnloadMs && options.idleUnloadMs > 0) {
      this.idleTimer = setInterval(() => void this.unloadIdle(), Math.min(options.idleUnloadMs, 60_000));
      this.idleTimer.unref();
    }
  }

  /** The models for `cwd`: providers and models from the settings in effect there (read now, so updates apply). */
  models(cwd: string = process.cwd()): ModelResolver {
    return this.modelsFor(this.userSettings(cwd)).resolver;
  }

  /** models(cwd) once each configured server answered what it serves (or 2 s passed) */
  async modelsReady(cwd: string = process.cwd()): Promise<ModelResolver> {
    const discovering = this.modelSources.ready(this.userSettings(cwd));
    if (discovering) await discovering;
    return this.models(cwd);
  }

  /** A model by name and its provider as a session in `cwd` gets them (reply cap included), for requests outside a session (`pith eval`'s judge). */
  modelAndProvider(name: string, cwd: string): { model: ModelInfo; provider: Provider } {
    const [settings, model] = [this.userSettings(cwd), this.models(cwd).resolve(name)];
    return { model, provider: this.modelSources.providersOfSession(this.modelsFor(settings).providers, replyCapBytes(settings.maxReplyMB))(model) };
  }

  private modelsFor(settings: Settings): SessionModels {
    return this.modelSources.for(settings);
  }

  /** The daemon's own cwd's models, for what it says at start (a bad settings file is reported later). */
  private startupModels(): SessionModels | undefined {
    try {
      return this.modelsFor(resolveSettings(process.cwd(), this.env, this.options.flags).settings);
    } catch {
      return undefined;
    }
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  /** The settings in effect for `cwd`; project keys it may not set are dropped, logged once and kept for getSettings. */
  settingsFor(cwd: string): { settings: Settings; warnings: SettingsWarning[] } {
    let resolved: { settings: Settings; warnings: SettingsWarning[] };
    try {
      resolved = resolveSettings(cwd, this.env, this.options.flags);
    } catch (err) {
      this.options.logger.error({ err }, (err as Error).message);
      throw new HostError(ErrorCode.InvalidParams, (err as Error).message);
    }
    for (const w of resolved.warnings) {
      const key = `${w.file}\0${w.key}`;
      if (this.ignoredSettings.has(key)) continue;
      this.ignoredSettings.set(key, w);
      this.options.logger.warn({ file: w.file, key: w.key }, w.message);
    }
    return resolved;
  }

  /** Every ignored project settings key seen so far. */
  settingsWarnings(): SettingsWarning[] {
    return [...this.ignoredSettings.values()];
  }

  private userSettings(cwd: string): Settings {
    return this.settingsFor(cwd).settings;
  }

  /** Every session goes live here, its cwd checked whatever opened it. requested: the model createSession asked for (then the settings' default is not consulted) */
  private live(file: SessionFile, requested?: string, clientServers?: McpServers): LiveSession {
    this.workspaces.check(file.cwd, "store");
    const settings = this.userSettings(file.cwd);
    const models = this.modelsFor(settings);
    const asking = { graceMs: (settings.permissionGraceSeconds ?? 60) * 1000, resolved: (fields: Resolved) => session.events.emit("request_resolved", fields) };
    const session: LiveSession = new LiveSession(file, {
      providerFor: this.modelSources.providersOfSession(models.providers, replyCapBytes(settings.maxReplyMB)),
      providerPlace: (model) => models.providers.get(model.provider),
      resolveModel: (name) => models.resolver.resolve(name),
      defaultModel: () => (requested ? models.resolver.resolve(requested) : models.defaultModel()),
      compaction: compactionSettings(settings.compaction ?? {}),
      logger: this.options.logger,
      systemPrompt: settings.systemPrompt,
      appendSystemPrompt: settings.appendSystemPrompt,
      tools: { ...toolPolicy({ cwd: file.cwd, settings, pithPaths: [pithHome(this.env), this.options.sessionsDir], env: process.env, tempDir: createSessionTempDir(file.sessionId), warn: (message) => this.options.logger.warn({ sessionId: file.sessionId }, message) }), editor: sessionEditor(() => this.editorLookup(file.sessionId)) },
      permissionMode: settings.permissionMode,
      maxTurns: settings.maxTurns,
      questions: this.questions.session(file.sessionId, asking),
      retry: this.options.retry ?? retryPolicy(this.env),
      mcpServers: this.options.withoutMcpServers ? [] : mergeServerEntries(settings.mcpServers, clientServers),
    });
    this.sessions.set(session.id, session);
    file.sink?.onFenced((owner) => this.lost(session, owner));
    return session;
  }

  async create(params: { cwd?: string; model?: string; name?: string; mcpServers?: McpServers }): Promise<LiveSession> {
    const cwd = this.workspaces.requested(params.cwd ?? (this.offline ? this.workspaces.demoProject() : process.cwd()));
    // a local server's window comes from its answer: wait for it (bounded) before choosing the model
    const discovering = this.modelSources.ready(this.userSettings(cwd));
    if (discovering) await discovering;
    const file = await this.storeCall(() => this.store.create({ cwd }));
    try {
      const session = this.live(file, params.model, params.mcpServers);
      const { model, name } = params;
      if (model) await this.perform("setModel", { sessionId: session.id, model }, (held) => session.setModel(held, model));
      if (name) await this.perform("setSessionName", { sessionId: session.id, name }, () => session.setName(name));
      return session;
    } catch (err) {
      await file.closeAsync().catch(() => {});
      // a session made live but failed here is never closed: its temp dir goes with it
      await removeSessionTempDirsOf(file.sessionId);
      this.sessions.delete(file.sessionId);
      // refused before anything was asked of a model (an unknown model, a missing key): no empty session is left behind
      await this.store.delete(file.sessionId).catch(() => {});
      throw err;
    }
  }

  /**
   * Opens a session (or finds it live), working in `cwd` when one is named, whatever its header says. The
   * file is read in slices that give the event loop back, so a 100 MB session does not stall the others.
   */
  async open(ref: SessionRef & { cwd?: string; mcpServers?: McpServers }): Promise<LiveSession> {
    const cwd = ref.cwd === undefined ? undefined : this.workspaces.requested(ref.cwd);
    const { mcpServers, ...where } = ref;
    const session = this.workspaces.workingIn(await this.opened(where, cwd, mcpServers), cwd);
    // found live: the client's servers join it (a session opened here got them at once)
    await session.mcp.addClientServers(mcpServers);
    return session;
  }

  /** The session live (found, or opened working in `cwd` or its header's checked cwd). */
  private opened(ref: SessionRef, cwd: string | undefined, clientServers?: McpServers): Promise<LiveSession> {
    // one key per session where the store can tell (its id and `pg:<id>` are one session)
    const key = "sessionId" in ref ? ref.sessionId : (this.store.sessionIdOf?.(ref) ?? ref.sessionFile);
    for (const s of this.sessions.values()) if (s.id === key || s.file.locator === key || s.file.file === resolve(key)) return Promise.resolve(s);
    const origin = this.workspaces.originOf(ref);
    const checkHeader = cwd === undefined ? (header: { cwd?: unknown }) => this.workspaces.check(header.cwd, origin) : undefined;
    let pending = this.opening.get(key);
    if (!pending) {
      pending = (async () => {
        const opened = await this.storeCall(() => this.store.open(ref, { checkHeader }));
        // asked for by two names at once (its id and its file): the first one opened is the session
        const live = this.sessions.get(opened.sessionId);
        if (live) {
          await opened.closeAsync().catch(() => {});
          return live;
        }
        try {
          // the header as read in full (it could have changed since checkHeader saw it), or the caller's cwd
          if (cwd === undefined) this.workspaces.check(opened.cwd, origin);
          else opened.workCwd = cwd;
          await opened.warmContextAsync();
          const discovering = this.modelSources.ready(this.userSettings(opened.cwd));
          if (discovering) await discovering;
          this.moved.delete(opened.sessionId);
          return this.live(opened, undefined, clientServers);
        } catch (err) {
          await opened.closeAsync().catch(() => {});
          throw hostErrorOf(err) ?? err;
        }
      })().finally(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  /** Sessions being opened, by the name they were asked for: a second request waits for the first. */
  private readonly opening = new Map<string, Promise<LiveSession>>();

  get(sessionId: string): LiveSession {
    const s = this.sessions.get(sessionId);
    if (s) return s;
    const owner = this.moved.get(sessionId);
    if (owner) throw movedError(sessionId, owner);
    throw new HostError(ErrorCode.SessionNotFound, `no open session ${sessionId} (open it first)`, { sessionId });
  }

  /** Every session (or a cwd's), newest first, read in slices that give the event loop back. */
  list(cwd?: string): Promise<SessionSummary[]> {
    return this.storeCall(() => this.store.list({ cwd: cwd === undefined ? undefined : callerPath(cwd) }));
  }

  async close(sessionId: string): Promise<void> {
    const s = this.get(sessionId);
    this.sessions.delete(sessionId);
    await s.close();
  }

  /** Deletes a session. One open here is closed first; one another live writer holds is refused (SessionLocked or SessionMoved). */
  async delete(sessionId: string): Promise<{ deleted: string }> {
    if (this.sessions.has(sessionId)) await this.close(sessionId);
    const deleted = await this.storeCall(() => this.store.delete(sessionId));
    this.moved.delete(sessionId);
    return deleted;
  }

  async fork(sessionId: string, entryId: string): Promise<LiveSession> {
    const s = this.get(sessionId);
    const forked = await this.storeCall(() => s.file.flushed().then(() => this.store.fork(s.file, entryId)));
    try {
      await forked.warmContextAsync();
      return this.live(forked);
    } catch (err) {
      await forked.closeAsync().catch(() => {});
      throw hostErrorOf(err) ?? err;
    }
  }

  /** One operation of the method table, the one way every front reaches a session (operations/perform.ts). */
  perform<M extends MethodName, T>(method: M, params: ParsedParamsOf<M>, fn: (held: HeldFor<M>) => T | Promise<T>): Promise<T> {
    return perform(this, method, params, fn);
  }

  /** Resolves once what the session stored so far is durable (at once on the file store); SessionMoved if it was taken. */
  async durable(sessionId: string): Promise<void> {
    const file = this.sessions.get(sessionId)?.file;
    if (file) await this.storeCall(() => file.flushed());
  }

  /** A store call whose errors are the protocol's. */
  private async storeCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw hostErrorOf(err) ?? err;
    }
  }

  /**
   * Another node took a session this one was writing (a shared store fenced it): its run is
   * aborted, clients are told where it went, and it is closed here. Nothing it wrote after its
   * last durable line is kept.
   */
  private lost(session: LiveSession, owner: SessionOwner): void {
    if (this.sessions.get(session.id) !== session) return;
    this.options.logger.warn({ sessionId: session.id, owner }, "another node took this session: closing it here");
    this.sessions.delete(session.id);
    this.moved.set(session.id, owner);
    const err = movedError(session.id, owner);
    session.events.emit("error", { code: err.code, message: err.message, data: err.data });
    session.close().catch((e) => this.options.logger.error({ err: e, sessionId: session.id }, "closing a moved session failed"));
  }

  private async unloadIdle(): Promise<void> {
    const limit = this.options.idleUnloadMs ?? 0;
    for (const [id, s] of this.sessions) {
      if (s.subscriberCount === 0 && !s.busy && Date.now() - s.lastActivity > limit) {
        this.sessions.delete(id);
        await s.close();
        this.options.logger.info({ sessionId: id }, "unloaded idle session");
      }
    }
  }

  /** Aborts every run, waits for them to end, syncs and closes every file. */
  async shutdown(): Promise<void> {
    clearInterval(this.idleTimer);
    this.modelSources.close();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close().catch((err) => this.options.logger.error({ err }, "closing a session failed"))));
    await this.store.close().catch((err) => this.options.logger.error({ err }, "closing the session store failed"));
  }
}
