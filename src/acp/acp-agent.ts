// `pith acp`: the Agent Client Protocol front (Zed, JetBrains, Neovim, Emacs), over the same
// session host as pith's own protocol. Every ACP method is answered here from the host: sessions
// are pith's (files under $PITH_HOME/sessions, Pi's format), so a session started in an editor
// can be continued over pith's protocol or Pi, and the other way round. What ACP cannot express
// (tree moves, labels, queued prompts) stays in pith's protocol: see docs/acp.md.
import * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import type { Logger } from "pino";
import { ErrorCodes } from "../../protocol/error-codes.js";
import { HostError } from "../host/errors.js";
import type { LiveSession } from "../host/live-session.js";
import { hostErrorOf, type SessionHost } from "../host/session-host.js";
import { AcpSession } from "./acp-session.js";
import { availableCommandsUpdate, parseCommand } from "./commands.js";
import { clientFeatures } from "./content.js";
import { editorPortsFor } from "./editor-ports.js";
import { promptFromBlocks, UnsupportedContent } from "./prompt-content.js";
import { BadCursor, pageOf } from "./session-pages.js";
import { historyUpdates } from "./replay.js";
import { configOptions, isPermissionMode, modelState, modeState, parseOptionValue, parseSetModel } from "./session-options.js";

const AGENT_INFO = { name: "pith", title: "pith", version: "0.1.0" };

/** A host or store error as an ACP error: an unknown session is ACP's -32002 with data.sessionId. */
function acpError(err: unknown, sessionId?: string): unknown {
  const mapped = hostErrorOf(err);
  if (!mapped) return err;
  if (mapped.code === ErrorCodes.SessionNotFound && sessionId) return acp.RequestError.sessionNotFound(sessionId);
  return new acp.RequestError(mapped.code, mapped.message, mapped.data);
}

export function acpAgent(host: SessionHost, log: Logger): acp.AgentApp {
  let clientCaps: acp.ClientCapabilities = {};
  let client: acp.AgentContext | undefined;
  /** the sessions this connection created, loaded or resumed */
  const sessions = new Map<string, AcpSession>();

  const booleans = () => clientCaps.session?.configOptions?.boolean != null;
  const features = () => clientFeatures(clientCaps);
  const send = (sessionId: string, update: acp.SessionUpdate) => {
    client?.notify(acp.methods.client.session.update, { sessionId, update }).catch((err) => log.warn({ err, sessionId }, "session/update failed"));
  };
  // the models offered are those with a key, each by the name that selects it (bare where unique)
  const choices = (s: AcpSession) => {
    const resolver = host.models(s.live.file.cwd);
    const models = resolver.list().filter((m) => m.hasKey).map((m) => ({ ...m, id: resolver.nameOf(m) }));
    const model = s.live.getState().model;
    return { current: resolver.nameOf({ id: model.id, provider: model.provider ?? "anthropic" }), models };
  };
  const options = (s: AcpSession) => {
    const st = s.live.getState();
    const { current, models } = choices(s);
    return configOptions({ model: current, thinkingLevel: st.thinkingLevel ?? "off", autoCompaction: st.autoCompactionEnabled }, models, booleans());
  };
  // `models` (the older SessionModelState, outside the SDK's schema) beside configOptions, in step
  const described = (s: AcpSession) => ({
    modes: modeState(s.live.permissionMode),
    configOptions: options(s),
    models: ((c) => modelState(c.current, c.models))(choices(s)),
  });
  const follow = (live: LiveSession): AcpSession => {
    const existing = sessions.get(live.id);
    if (existing) return existing;
    const s = new AcpSession({
      session: live,
      ...features(),
      send: (update) => send(live.id, update),
      requestPermission: (params, signal) => client!.request(acp.methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    });
    sessions.set(live.id, s);
    return s;
  };
  /** After the response has gone out: Zed drops updates sent before it. */
  const afterResponse = (sessionId: string) => setImmediate(() => send(sessionId, availableCommandsUpdate()));
  const get = (sessionId: string): AcpSession => {
    const s = sessions.get(sessionId);
    if (!s || !host.sessions.has(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  };
  const absolute = (cwd: string) => {
    if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
    return cwd;
  };
  host.setPermissionAsker(async (request) => sessions.get(request.sessionId)?.askPermission(request) ?? "deny");
  // the sessions this connection follows use its editor's buffers and terminal, where it lends them
  host.editorLookup = (sessionId) => (client && sessions.has(sessionId) ? editorPortsFor(client, sessionId, clientCaps) : undefined);

  return acp
    .agent({ name: "pith" })
    .onConnect((connection) => {
      client = connection.client;
      connection.closed.finally(() => {
        for (const s of sessions.values()) s.detach();
        sessions.clear();
      });
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCaps = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: AGENT_INFO,
        agentCapabilities: {
          loadSession: true,
          // what pith lacks is left out, not sent as false: some clients (Emacs acp.el) read a false
          // member as present. No audio; MCP servers over stdio only, so no mcpCapabilities at all.
          promptCapabilities: { image: true, embeddedContext: true },
          sessionCapabilities: { list: {}, close: {}, delete: {}, resume: {} },
        },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const s = follow(await host.create({ cwd: absolute(params.cwd) }));
      afterResponse(s.id);
      return { sessionId: s.id, ...described(s) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      absolute(params.cwd);
      const live = await host.open({ sessionId: params.sessionId }).catch((err) => Promise.reject(acpError(err, params.sessionId)));
      const s = follow(live);
      // the whole active branch from the root, not only what the model sees after the last summary
      for (const update of historyUpdates(live.file.branchPath(), { cwd: live.file.cwd, compaction: features().compaction })) send(s.id, update);
      afterResponse(s.id);
      return described(s);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params }) => {
      absolute(params.cwd);
      const live = await host.open({ sessionId: params.sessionId }).catch((err) => Promise.reject(acpError(err, params.sessionId)));
      const s = follow(live);
      afterResponse(s.id);
      return described(s);
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      if (params.cwd) absolute(params.cwd);
      let paged: ReturnType<typeof pageOf>;
      try {
        paged = pageOf(await host.list(params.cwd ?? undefined), params.cursor);
      } catch (err) {
        if (err instanceof BadCursor) throw acp.RequestError.invalidParams({ cursor: params.cursor }, err.message);
        throw err;
      }
      const sessions = paged.page.map((x) => ({ sessionId: x.id, cwd: x.cwd, title: x.name ?? (x.firstMessage.slice(0, 80) || null), updatedAt: x.modified }));
      return paged.nextCursor ? { sessions, nextCursor: paged.nextCursor } : { sessions };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const s = get(params.sessionId);
      s.detach();
      sessions.delete(s.id);
      await host.close(s.id).catch((err) => Promise.reject(acpError(err, params.sessionId)));
      return {};
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      sessions.get(params.sessionId)?.detach();
      sessions.delete(params.sessionId);
      await host.delete(params.sessionId).catch((err) => Promise.reject(acpError(err, params.sessionId)));
      return {};
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      const s = get(params.sessionId);
      if (!isPermissionMode(params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode ${params.modeId} (ask, auto or readonly)`);
      s.live.permissionMode = params.modeId;
      send(s.id, { sessionUpdate: "current_mode_update", currentModeId: params.modeId });
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const s = get(params.sessionId);
      const value = parseOptionValue(params);
      try {
        if ("error" in value) throw acp.RequestError.invalidParams({ configId: params.configId }, value.error);
        // the same exclusive slot a JSON-RPC client's setModel / setThinkingLevel takes (method-gate.ts)
        if ("model" in value) await host.modelsReady(s.live.file.cwd).then(() => s.live.admit("setModel", { sessionId: s.id, model: value.model }, (held) => s.live.setModel(held, value.model)));
        else if ("thinkingLevel" in value) s.live.admit("setThinkingLevel", { sessionId: s.id, level: value.thinkingLevel }, (held) => s.live.setThinkingLevel(held, value.thinkingLevel));
        else s.live.setAutoCompaction(value.autoCompaction);
      } catch (err) {
        throw acpError(err, params.sessionId);
      }
      return { configOptions: options(s) };
    })
    // session/set_model: what clients that read `models` send (agent-shell, acp.el, the Python SDK);
    // the SDK's schema no longer has it, so it is registered with its own parser
    .onRequest<{ sessionId: string; modelId: string }, Record<string, never>>(
      "session/set_model",
      (params: unknown) => {
        const parsed = parseSetModel(params);
        if ("error" in parsed) throw acp.RequestError.invalidParams(params, parsed.error);
        return parsed;
      },
      async ({ params }) => {
        const s = get(params.sessionId);
        try {
          await host.modelsReady(s.live.file.cwd);
          s.live.admit("setModel", { sessionId: s.id, model: params.modelId }, (held) => s.live.setModel(held, params.modelId));
        } catch (err) {
          throw acpError(err, params.sessionId);
        }
        send(s.id, { sessionUpdate: "config_option_update", configOptions: options(s) });
        return {};
      },
    )
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const s = get(params.sessionId);
      let prompt: ReturnType<typeof promptFromBlocks>;
      try {
        prompt = promptFromBlocks(params.prompt);
      } catch (err) {
        if (err instanceof UnsupportedContent) throw acp.RequestError.invalidParams({ reason: "unsupported_content" }, err.message);
        throw err;
      }
      const command = parseCommand(prompt.text);
      try {
        if (command) return await runCommand(s, command);
        const end = await s.run(prompt);
        if ("stopReason" in end) return { stopReason: end.stopReason };
        throw new HostError(ErrorCodes.ProviderError, end.error.message, {
          class: end.error.errorClass ?? "fatal",
          status: end.error.status,
          retryable: end.error.errorClass === "transient",
        });
      } catch (err) {
        throw acpError(err, params.sessionId);
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancelRun();
    });

  /** /compact [instructions] and /autocompact on|off: pith's own operations, never sent to the model. */
  async function runCommand(s: AcpSession, command: NonNullable<ReturnType<typeof parseCommand>>): Promise<acp.PromptResponse> {
    const say = (text: string) => send(s.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    if (command.name === "autocompact") {
      if ("error" in command) {
        say(command.error);
        return { stopReason: "end_turn" };
      }
      s.live.setAutoCompaction(command.enabled);
      say(`Automatic compaction is ${command.enabled ? "on" : "off"}.`);
      send(s.id, { sessionUpdate: "config_option_update", configOptions: options(s) });
      return { stopReason: "end_turn" };
    }
    try {
      await s.live.admit("compact", { sessionId: s.id, instructions: command.instructions }, (held) => s.live.compact(held, command.instructions));
    } catch (err) {
      const mapped = hostErrorOf(err);
      if (mapped?.code === ErrorCodes.NothingToCompact) {
        say(`Nothing to compact: ${mapped.message}`);
        return { stopReason: "end_turn" };
      }
      if (mapped?.code === ErrorCodes.Aborted) return { stopReason: "cancelled" };
      throw err;
    }
    return { stopReason: "end_turn" };
  }
}
