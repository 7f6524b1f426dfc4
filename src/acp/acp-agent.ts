// `pith acp`: the Agent Client Protocol front (Zed, JetBrains, Neovim, Emacs), over the same
// session host as pith's own protocol. Every ACP method is answered here from the host: sessions
// are pith's (files under $PITH_HOME/sessions, Pi's format), so a session started in an editor
// can be continued over pith's protocol or Pi, and the other way round. What ACP cannot express
// (tree moves, labels, queued prompts) stays in pith's protocol: see docs/acp.md.
import * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "pino";
import type { SessionHost } from "../host/session-host.js";
import { ConnectionState } from "./connection-state.js";
import { editorPortsFor } from "./editor-ports.js";
import { closeSession, deleteSession, listSessions, loadSession, newSession, resumeSession } from "./lifecycle-methods.js";
import { cancel, prompt } from "./prompt-methods.js";
import { parseSetModelParams, setConfigOption, setMode, setModel, type SetModelParams } from "./settings-methods.js";

const AGENT_INFO = { name: "pith", title: "pith", version: "0.1.0" };

/** The ACP agent for one connection: its state (the sessions it follows answer their questions, connection-state.ts), each method's handler. */
export function acpAgent(host: SessionHost, log: Logger): acp.AgentApp {
  const cx = new ConnectionState(host, log);
  // the sessions this connection follows use its editor's terminal, where it lends it
  host.editorLookup = (sessionId) => (cx.client && cx.sessions.has(sessionId) ? editorPortsFor(cx.client, sessionId, cx.clientCaps) : undefined);

  return acp
    .agent({ name: "pith" })
    .onConnect((connection) => {
      cx.client = connection.client;
      connection.closed.finally(() => cx.unfollowAll());
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => initialize(cx, params))
    .onRequest(acp.methods.agent.session.new, ({ params }) => newSession(cx, params))
    .onRequest(acp.methods.agent.session.load, ({ params }) => loadSession(cx, params))
    .onRequest(acp.methods.agent.session.resume, ({ params }) => resumeSession(cx, params))
    .onRequest(acp.methods.agent.session.list, ({ params }) => listSessions(cx, params))
    .onRequest(acp.methods.agent.session.close, ({ params }) => closeSession(cx, params))
    .onRequest(acp.methods.agent.session.delete, ({ params }) => deleteSession(cx, params))
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => setMode(cx, params))
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => setConfigOption(cx, params))
    // session/set_model: the SDK's schema no longer has it, so it is registered with its own parser
    .onRequest<SetModelParams, Record<string, never>>("session/set_model", parseSetModelParams, ({ params }) => setModel(cx, params))
    .onRequest(acp.methods.agent.session.prompt, ({ params }) => prompt(cx, params))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => cancel(cx, params));
}

/** The client's capabilities are kept; pith's are answered. */
function initialize(cx: ConnectionState, params: acp.InitializeRequest): acp.InitializeResponse {
  cx.clientCaps = params.clientCapabilities ?? {};
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: AGENT_INFO,
    agentCapabilities: {
      loadSession: true,
      // what pith lacks is left out, not sent as false: some clients (Emacs acp.el) read a false
      // member as present. No audio; MCP servers over stdio (every agent's) and streamable HTTP,
      // not SSE (mcp-servers.ts), so `sse` is left out as well.
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true },
      sessionCapabilities: { list: {}, close: {}, delete: {}, resume: {} },
    },
    authMethods: [],
  };
}
