// What one ACP connection knows and the helpers every method handler shares: the client's
// capabilities and handle, the sessions it follows, and how a session is described to it.
// The handlers (lifecycle-methods.ts, settings-methods.ts, prompt-methods.ts) take it explicitly.
import * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import type { Logger } from "pino";
import { ErrorCodes } from "../../protocol/error-codes.js";
import type { LiveSession } from "../host/live/live-session.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import { AcpSession } from "./acp-session.js";
import { availableCommandsUpdate } from "./commands.js";
import { clientFeatures } from "./content.js";
import { configOptions, modelState, modeState } from "./session-options.js";

/** A host or store error as an ACP error: an unknown session is ACP's -32002 with data.sessionId. */
export function acpError(err: unknown, sessionId?: string): unknown {
  const mapped = hostErrorOf(err);
  if (!mapped) return err;
  if (mapped.code === ErrorCodes.SessionNotFound && sessionId) return acp.RequestError.sessionNotFound(sessionId);
  return new acp.RequestError(mapped.code, mapped.message, mapped.data);
}

/** The cwd, refused unless absolute (ACP requires it). */
export function absolute(cwd: string): string {
  if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  return cwd;
}

export class ConnectionState {
  clientCaps: acp.ClientCapabilities = {};
  client: acp.AgentContext | undefined;
  /** the sessions this connection created, loaded or resumed */
  readonly sessions = new Map<string, AcpSession>();

  constructor(
    readonly host: SessionHost,
    readonly log: Logger,
  ) {}

  features(): ReturnType<typeof clientFeatures> {
    return clientFeatures(this.clientCaps);
  }

  send(sessionId: string, update: acp.SessionUpdate): void {
    this.client?.notify(acp.methods.client.session.update, { sessionId, update }).catch((err) => this.log.warn({ err, sessionId }, "session/update failed"));
  }

  /**
   * After the response has gone out (Zed drops updates sent before it): the commands, what became
   * of the session's MCP servers (`skipped`: the editor's entries left out), and what the session
   * waits for is asked here, again if it was before: an editor that loads or resumes a session
   * shows it anew, whoever was asked first (the earlier request is cancelled).
   */
  afterResponse(sessionId: string, skipped: readonly string[] = []): void {
    setImmediate(() => {
      this.send(sessionId, availableCommandsUpdate());
      const s = this.sessions.get(sessionId);
      s?.announceMcp(skipped);
      if (s && this.host.sessions.get(sessionId) === s.live) this.host.questions.join(sessionId, s.questions);
    });
  }

  /** The session this connection follows by that id, or ACP's session-not-found. */
  get(sessionId: string): AcpSession {
    const s = this.sessions.get(sessionId);
    if (!s || !this.host.sessions.has(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  }

  /** Follows a host session (once): its events go to this client, its permission asks too. */
  follow(live: LiveSession): AcpSession {
    const existing = this.sessions.get(live.id);
    if (existing) return existing;
    const s = new AcpSession({
      session: live,
      host: this.host,
      ...this.features(),
      send: (update) => this.send(live.id, update),
      requestPermission: (params, signal) => this.client!.request(acp.methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    });
    this.sessions.set(live.id, s);
    return s;
  }

  /** The connection is gone: its sessions go on in the host, unfollowed; their questions wait for another client (or the grace period). */
  unfollowAll(): void {
    for (const s of this.sessions.values()) this.leave(s);
    this.sessions.clear();
  }

  /** Stops following a session (closed or deleted): its prompt answers cancelled first. */
  unfollow(sessionId: string): void {
    const s = this.sessions.get(sessionId);
    s?.cancelRun();
    if (s) this.leave(s);
    this.sessions.delete(sessionId);
  }

  private leave(s: AcpSession): void {
    this.host.questions.leave(s.id, s.questions);
    s.detach();
  }

  /** The session's modes and config options, with `models` (the older SessionModelState, outside the SDK's schema) in step. */
  described(s: AcpSession) {
    const modes = modeState(s.live.permissionMode);
    const options = this.options(s);
    const { current, models } = this.choices(s);
    return { modes, configOptions: options, models: modelState(current, models) };
  }

  options(s: AcpSession): acp.SessionConfigOption[] {
    const st = s.live.getState();
    const { current, models } = this.choices(s);
    const booleans = this.clientCaps.session?.configOptions?.boolean != null;
    return configOptions({ model: current, thinkingLevel: st.thinkingLevel ?? "off", autoCompaction: st.autoCompactionEnabled }, models, booleans);
  }

  // the models offered are those with a key, each by the name that selects it (bare where unique)
  private choices(s: AcpSession) {
    const resolver = this.host.models(s.live.file.cwd);
    const models = resolver.list().filter((m) => m.hasKey).map((m) => ({ ...m, id: resolver.nameOf(m) }));
    const model = s.live.getState().model;
    return { current: resolver.nameOf({ id: model.id, provider: model.provider ?? "anthropic" }), models };
  }
}
