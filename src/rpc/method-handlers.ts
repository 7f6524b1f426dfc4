// Every method of protocol/methods.ts and what answers it: one line each, most of them a call on
// the session host or a live session. The table is typed by the protocol: a method without a
// handler, or a handler whose answer is not the method's declared result, does not compile.
// Params arrive checked (server.ts parses them with the method's schema first); errors thrown
// here are mapped to the protocol's codes by the server.
import { ErrorCodes, PROTOCOL_VERSION, type MethodName, type ParsedParamsOf, type ResultOf } from "../../protocol/index.js";
import type { LiveSession } from "../host/live/live-session.js";
import type { HeldFor } from "../host/operations/perform.js";
import type { SessionListener } from "../host/ports.js";
import { sessionHistory } from "../host/live/session-history.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import type { ConnState } from "./connection-state.js";
import type { RelayOwner } from "./relay.js";
import { settingsHandlers } from "./settings-methods.js";

const SERVER_INFO = { name: "pith", version: "0.1.0" };

/** `held`: what the method's scope took before the handler runs (the host's operation layer): the session's slot for an exclusive method. */
export type Handler<M extends MethodName> = (params: ParsedParamsOf<M>, state: ConnState, held: HeldFor<M>) => ResultOf<M> | Promise<ResultOf<M>>;
export type Handlers = { [M in MethodName]: Handler<M> };

/** Follows a session for this client (replacing an earlier subscription to it). */
function subscribeTo(host: SessionHost, state: ConnState, session: LiveSession, afterSeq?: number, streamId?: string) {
  const existing = state.subs.get(session.id);
  if (existing) session.unsubscribe(existing);
  const listener: SessionListener = (_event, wire) => state.conn.send(wire);
  state.subs.set(session.id, listener);
  const subscribed = session.subscribe(listener, afterSeq, streamId);
  // what the session waits for is sent to the client (again, if it had it): after the replayed events
  host.questions.join(session.id, state.questions);
  return subscribed;
}

/** The node a SessionMoved error names, when it advertised a URL to reach it at. */
function movedTo(err: unknown): RelayOwner | undefined {
  const e = hostErrorOf(err);
  const owner = e?.is(ErrorCodes.SessionMoved) ? e.data.owner : undefined;
  return owner?.url ? { nodeId: owner.nodeId, url: owner.url } : undefined;
}

/** env: where the user's settings file is ($PITH_HOME) */
export function methodHandlers(host: SessionHost, replayBufferSize: number, env: NodeJS.ProcessEnv = process.env): Handlers {
  const opened = (state: ConnState, session: LiveSession): ResultOf<"createSession"> => {
    subscribeTo(host, state, session);
    return { sessionId: session.id, sessionFile: session.file.locator, state: { ...session.getState(), ...host.questions.stateOf(session.id) } };
  };
  const session = (p: { sessionId: string }) => host.get(p.sessionId);
  const settings = settingsHandlers(host, env);
  return {
    initialize: (p, state) => {
      state.initialized = true;
      state.capabilities = { permissions: p.capabilities.permissions, hooks: p.capabilities.hooks };
      return {
        protocolVersion: PROTOCOL_VERSION,
        serverInfo: SERVER_INFO,
        capabilities: { permissions: p.capabilities.permissions, hooks: p.capabilities.hooks, replayBufferSize },
      };
    },
    createSession: async (p, state) => opened(state, await host.create(p)),
    openSession: async (p, state) => {
      try {
        return opened(state, await host.open(p));
      } catch (err) {
        // owned by another live node: this client is relayed to it (when nodes share a cluster token)
        const owner = movedTo(err);
        if (!owner || !state.relay) throw err;
        return await state.relay.open(owner, "openSession", p);
      }
    },
    listSessions: async (p) => ({ sessions: await host.list(p.cwd) }),
    closeSession: async (p, state) => {
      if (state.subs.delete(p.sessionId)) host.questions.leave(p.sessionId, state.questions);
      await host.close(p.sessionId);
      return { closed: true };
    },
    forkSession: async (p, state) => opened(state, await host.fork(p.sessionId, p.entryId)),
    subscribe: (p, state) => {
      const r = subscribeTo(host, state, session(p), p.afterSeq, p.streamId);
      return { subscribed: true, replayed: r.replayed, ...(r.gap ? { gap: true } : {}), lastSeq: r.lastSeq, streamId: r.streamId };
    },
    unsubscribe: (p, state) => {
      const listener = state.subs.get(p.sessionId);
      if (listener) host.sessions.get(p.sessionId)?.unsubscribe(listener);
      if (listener) host.questions.leave(p.sessionId, state.questions);
      return { unsubscribed: state.subs.delete(p.sessionId) };
    },
    // the session's state and the questions it waits for (the host's: pending-questions.ts)
    getState: (p) => ({ ...session(p).getState(), ...host.questions.stateOf(p.sessionId) }),
    getMessages: (p) => session(p).getMessages(),
    getTree: (p) => session(p).getTree(),
    getHistory: (p) => sessionHistory(session(p).file, p.messages),
    prompt: (p, _state, held) => session(p).prompt(held, p),
    abort: (p) => session(p).abort(p.queued),
    compact: (p, _state, held) => session(p).compact(held, p.instructions),
    setAutoCompactionEnabled: (p) => session(p).setAutoCompaction(p.enabled),
    setCompactionThreshold: (p) => session(p).setCompactionThreshold(p.threshold),
    navigateTree: (p, _state, held) => session(p).navigateTree(held, p.targetId, p.summarize, p.instructions),
    setModel: async (p, _state, held) => {
      await host.modelsReady(session(p).file.cwd);
      return session(p).setModel(held, p.model);
    },
    setThinkingLevel: (p, _state, held) => session(p).setThinkingLevel(held, p.level),
    listModels: async () => ({
      models: (await host.modelsReady())
        .list()
        .map((m) => ({ id: m.id, name: m.name, provider: m.provider, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens, windowSource: m.windowSource ?? "catalog", hasKey: m.hasKey })),
    }),
    getSettings: (p) => settings.get(p.cwd),
    updateSettings: (p) => settings.update(p.patch),
    setSessionName: (p) => session(p).setName(p.name),
    setLabel: (p) => session(p).setLabel(p.entryId, p.label),
    deleteSession: (p) => host.delete(p.sessionId),
    getSessionStats: (p) => session(p).stats(),
    bash: (p, _state, held) => session(p).bash(held, p.command),
    setPermissionMode: (p) => session(p).setPermissionMode(p.mode),
    listMcpServers: (p) => ({ servers: session(p).mcpServers() }),
  };
}
