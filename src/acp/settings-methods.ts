// session/set_mode, session/set_config_option and session/set_model: the permission mode, the
// model, the thinking level and automatic compaction, as an editor's pickers change them.
import * as acp from "@agentclientprotocol/sdk";
import { acpError, type ConnectionState } from "./connection-state.js";
import { isPermissionMode, parseOptionValue, parseSetModel } from "./session-options.js";

export function setMode(cx: ConnectionState, params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
  const s = cx.get(params.sessionId);
  if (!isPermissionMode(params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode ${params.modeId} (ask, auto or readonly)`);
  s.live.permissionMode = params.modeId;
  cx.send(s.id, { sessionUpdate: "current_mode_update", currentModeId: params.modeId });
  return {};
}

export async function setConfigOption(cx: ConnectionState, params: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
  const s = cx.get(params.sessionId);
  const value = parseOptionValue(params);
  try {
    if ("error" in value) throw acp.RequestError.invalidParams({ configId: params.configId }, value.error);
    // the same exclusive slot a JSON-RPC client's setModel / setThinkingLevel takes (method-gate.ts)
    if ("model" in value) await cx.host.modelsReady(s.live.file.cwd).then(() => s.live.admit("setModel", { sessionId: s.id, model: value.model }, (held) => s.live.setModel(held, value.model)));
    else if ("thinkingLevel" in value) s.live.admit("setThinkingLevel", { sessionId: s.id, level: value.thinkingLevel }, (held) => s.live.setThinkingLevel(held, value.thinkingLevel));
    else s.live.setAutoCompaction(value.autoCompaction);
  } catch (err) {
    throw acpError(err, params.sessionId);
  }
  return { configOptions: cx.options(s) };
}

/** session/set_model's params: the SDK's schema no longer has the method, so pith parses them. */
export type SetModelParams = { sessionId: string; modelId: string };

export function parseSetModelParams(params: unknown): SetModelParams {
  const parsed = parseSetModel(params);
  if ("error" in parsed) throw acp.RequestError.invalidParams(params, parsed.error);
  return parsed;
}

/** What clients that read `models` send (agent-shell, acp.el, the Python SDK). */
export async function setModel(cx: ConnectionState, params: SetModelParams): Promise<Record<string, never>> {
  const s = cx.get(params.sessionId);
  try {
    await cx.host.modelsReady(s.live.file.cwd);
    s.live.admit("setModel", { sessionId: s.id, model: params.modelId }, (held) => s.live.setModel(held, params.modelId));
  } catch (err) {
    throw acpError(err, params.sessionId);
  }
  cx.send(s.id, { sessionUpdate: "config_option_update", configOptions: cx.options(s) });
  return {};
}
