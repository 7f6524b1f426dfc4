// The session host: every live session of this process, by id. Creates, opens, forks, closes
// and deletes sessions, picks the provider (Anthropic with a key, the offline script without),
// routes permission questions to clients, and unloads idle sessions.
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import { resolveSettings, type Settings, type SettingsWarning } from "./settings.js";
import { compactionSettings } from "../compaction/index.js";
import { AnthropicProvider } from "../llm/anthropic.js";
import { DEMO_FILES, DEMO_SCRIPT } from "../llm/demo-script.js";
import { DEFAULT_MODEL_ID, ModelRegistry, SCRIPTED_MODEL } from "../llm/models.js";
import { ScriptedProvider, type Script } from "../llm/scripted.js";
import type { ModelInfo, Provider } from "../llm/types.js";
import { findSessionFileAsync, listSessionsAsync, type SessionSummary } from "../session/list.js";
import { SessionError } from "../session/errors.js";
import { PRIVATE_DIR } from "../session/atomic-write.js";
import { pithHome } from "../session/paths.js";
import { FileLock } from "../session/lock.js";
import { SessionFile } from "../session/session-file.js";
import { sandboxAvailable } from "../tools/sandbox.js";
import { callerCwd, callerPath } from "./caller-paths.js";
import { ErrorCode, HostError } from "./errors.js";
import { LiveSession } from "./live-session.js";
import type { BeforeCompactHook, PermissionAsker } from "./ports.js";
import { toolPolicy } from "./tool-policy.js";

export interface HostOptions {
  sessionsDir: string;
  logger: Logger;
  /** the Messages API key; without one every session uses the scripted provider */
  apiKey?: string;
  baseURL?: string;
  /** the offline script (default: the demo) */
  script?: Script;
  /** where the user's settings.json lives ($PITH_HOME); tools get the process's environment, less pith's secrets */
  env?: NodeJS.ProcessEnv;
  /** settings from command-line flags: over both files, and trusted like the user's own */
  flags?: Settings;
  /** unload sessions nobody is subscribed to after this long idle (0: never) */
  idleUnloadMs?: number;
  retry?: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
}


/** Maps store errors to the protocol's codes. */
export function hostErrorOf(err: unknown): HostError | undefined {
  if (err instanceof HostError) return err;
  if (err instanceof SessionError) {
    const code =
      err.code === "SessionNotFound" ? ErrorCode.SessionNotFound : err.code === "EntryNotFound" ? ErrorCode.EntryNotFound : err.code === "SessionLocked" ? ErrorCode.SessionLocked : ErrorCode.InvalidParams;
    // data.reason is the stable name; the store's own reason (a sentence) becomes detail
    const { reason: detail, ...rest } = (err.data ?? {}) as Record<string, unknown>;
    return new HostError(code, err.message, { ...rest, reason: err.code, ...(detail !== undefined ? { detail } : {}) });
  }
  return undefined;
}

export class SessionHost {
  readonly sessions = new Map<string, LiveSession>();
  readonly offline: boolean;
  private readonly anthropic?: AnthropicProvider;
  private permissionAsker: PermissionAsker = async () => "deny";
  private beforeCompactHandler: BeforeCompactHook = async () => ({ action: "default" });
  private idleTimer?: NodeJS.Timeout;
  /** project settings keys that were ignored, by file and key (each logged once) */
  private readonly ignoredSettings = new Map<string, SettingsWarning>();

  constructor(private readonly options: HostOptions) {
    this.offline = !options.apiKey;
    if (!this.offline) this.anthropic = new AnthropicProvider({ apiKey: options.apiKey, baseURL: options.baseURL, logger: options.logger });
    else options.logger.warn("no ANTHROPIC_API_KEY: sessions use the offline scripted provider (a demo script); set the key to talk to Claude");
    this.warnIfUnsandboxed();
    if (options.idleUnloadMs && options.idleUnloadMs > 0) {
      this.idleTimer = setInterval(() => void this.unloadIdle(), Math.min(options.idleUnloadMs, 60_000));
      this.idleTimer.unref();
    }
  }

  /** The models known for `cwd`: built in, plus the user's and the project's settings (read now, so updates apply). */
  models(cwd: string = process.cwd()): ModelRegistry {
    return new ModelRegistry(this.userSettings(cwd).models ?? []);
  }

  setPermissionAsker(asker: PermissionAsker): void {
    this.permissionAsker = asker;
  }

  setBeforeCompactHandler(handler: BeforeCompactHook): void {
    this.beforeCompactHandler = handler;
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  /** Once at start: the model's bash runs unconfined unless bubblewrap works (or the user chose so). */
  private warnIfUnsandboxed(): void {
    let user: Settings;
    try {
      user = resolveSettings(process.cwd(), this.env, this.options.flags).settings;
    } catch {
      return; // a bad settings file is reported when a session needs it
    }
    const probe = sandboxAvailable();
    if (user.sandbox?.mode === undefined && !probe.ok) {
      this.options.logger.warn(`the model's bash commands run without a sandbox: ${probe.reason} (or set sandbox.mode to "off" in settings.json to silence this)`);
    } else if (user.sandbox?.mode !== undefined && user.sandbox.mode !== "off" && !probe.ok) {
      this.options.logger.error(`sandbox.mode is "${user.sandbox.mode}" but ${probe.reason}: the model's bash commands will be refused`);
    }
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

  private live(file: SessionFile): LiveSession {
    const settings = this.userSettings(file.cwd);
    const script = this.options.script ?? DEMO_SCRIPT;
    let scripted: ScriptedProvider | undefined;
    const models = new ModelRegistry(settings.models ?? []);
    const known = (id: string): ModelInfo => {
      if (this.offline) return SCRIPTED_MODEL;
      const model = models.get(id);
      if (!model) throw new HostError(ErrorCode.InvalidParams, `unknown model ${id}: declare it under "models" in settings.json to use it (a compatible endpoint may serve any id)`, { reason: "UnknownModel", model: id });
      return model;
    };
    const defaultModel = this.offline ? SCRIPTED_MODEL : models.resolve(settings.model ?? DEFAULT_MODEL_ID);
    const providerFor = (model: ModelInfo): Provider => {
      if (this.offline || model.provider === "scripted" || !this.anthropic) return (scripted ??= new ScriptedProvider(script));
      return this.anthropic;
    };
    const session = new LiveSession(file, {
      providerFor,
      resolveModel: known,
      defaultModel,
      compaction: compactionSettings(settings.compaction ?? {}),
      logger: this.options.logger,
      systemPrompt: settings.systemPrompt,
      appendSystemPrompt: settings.appendSystemPrompt,
      tools: toolPolicy({ cwd: file.cwd, settings, pithPaths: [pithHome(this.env), this.options.sessionsDir], env: process.env }),
      permissionMode: settings.permissionMode,
      maxTurns: settings.maxTurns,
      requestPermission: (request) => this.permissionAsker(request),
      beforeCompact: (request) => this.beforeCompactHandler(request),
      retry: this.options.retry ?? { maxAttempts: 3, baseDelayMs: 2000, maxDelayMs: 60_000 },
    });
    this.sessions.set(session.id, session);
    return session;
  }

  /** Offline, a session created without a cwd works in a scratch project with the demo's files. */
  private demoProject(): string {
    const dir = join(pithHome(this.options.env ?? process.env), "demo-project");
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    for (const [name, content] of Object.entries(DEMO_FILES)) if (!existsSync(join(dir, name))) writeFileSync(join(dir, name), content);
    return dir;
  }

  create(params: { cwd?: string; model?: string; name?: string }): LiveSession {
    const cwd = callerCwd(params.cwd ?? (this.offline ? this.demoProject() : process.cwd()));
    const file = SessionFile.create({ cwd, sessionsDir: this.options.sessionsDir });
    try {
      const session = this.live(file);
      if (params.model) session.setModel(params.model);
      if (params.name) session.setName(params.name);
      return session;
    } catch (err) {
      file.close();
      this.sessions.delete(file.sessionId);
      throw err;
    }
  }

  /**
   * Opens a session (or finds it live). The file is read in slices that give the event loop back,
   * so opening a 100 MB session does not stall the daemon's other sessions.
   */
  async open(params: { sessionFile?: string; sessionId?: string }): Promise<LiveSession> {
    if (params.sessionId) {
      const loaded = this.sessions.get(params.sessionId);
      if (loaded) return loaded;
      const found = await findSessionFileAsync(this.options.sessionsDir, params.sessionId);
      if (!found) throw new HostError(ErrorCode.SessionNotFound, `no session ${params.sessionId} in ${this.options.sessionsDir}`, { sessionId: params.sessionId });
      return this.openFile(found);
    }
    return this.openFile(params.sessionFile as string);
  }

  /** Files being opened: a second request for one waits for the first instead of racing it for the lock. */
  private readonly opening = new Map<string, Promise<LiveSession>>();

  private openFile(path: string): Promise<LiveSession> {
    const file = resolve(path);
    for (const s of this.sessions.values()) if (s.file.file === file) return Promise.resolve(s);
    let pending = this.opening.get(file);
    if (!pending) {
      pending = (async () => {
        let opened: SessionFile | undefined;
        try {
          opened = await SessionFile.openAsync(file);
          await opened.warmContextAsync();
          return this.live(opened);
        } catch (err) {
          opened?.close();
          throw hostErrorOf(err) ?? err;
        }
      })().finally(() => this.opening.delete(file));
      this.opening.set(file, pending);
    }
    return pending;
  }

  get(sessionId: string): LiveSession {
    const s = this.sessions.get(sessionId);
    if (!s) throw new HostError(ErrorCode.SessionNotFound, `no open session ${sessionId} (open it first)`, { sessionId });
    return s;
  }

  /** Every session (or a cwd's), newest first, read in slices that give the event loop back. */
  list(cwd?: string): Promise<SessionSummary[]> {
    return listSessionsAsync(this.options.sessionsDir, { cwd: cwd === undefined ? undefined : callerPath(cwd) });
  }

  async close(sessionId: string): Promise<void> {
    const s = this.get(sessionId);
    this.sessions.delete(sessionId);
    await s.close();
  }

  /**
   * Deletes a session's file. One open here is closed first; one another live process holds is
   * refused (SessionLocked, naming the pid): it is taken for writing while it is removed.
   */
  async delete(sessionId: string): Promise<{ deleted: string }> {
    let file: string | undefined = this.sessions.get(sessionId)?.file.file;
    if (file) await this.close(sessionId);
    else file = await findSessionFileAsync(this.options.sessionsDir, sessionId);
    if (!file) throw new HostError(ErrorCode.SessionNotFound, `no session ${sessionId}`, { sessionId });
    let lock: FileLock;
    try {
      lock = FileLock.acquire(file);
    } catch (err) {
      throw hostErrorOf(err) ?? err;
    }
    try {
      unlinkSync(file);
    } finally {
      lock.release();
    }
    return { deleted: file };
  }

  async fork(sessionId: string, entryId: string): Promise<LiveSession> {
    const s = this.get(sessionId);
    try {
      const forked = await s.file.forkAsync(entryId, { sessionsDir: this.options.sessionsDir });
      await forked.warmContextAsync();
      return this.live(forked);
    } catch (err) {
      throw hostErrorOf(err) ?? err;
    }
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
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close().catch((err) => this.options.logger.error({ err }, "closing a session failed"))));
  }
}
