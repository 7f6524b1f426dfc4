// session/set_mode, session/set_config_option and session/set_model: the permission mode, the
// model, the thinking level and automatic compaction, as an editor's pickers change them. Each is
// performed by the host's operation layer as its pith method: the same slot a JSON-RPC client's
// setModel takes, and answered only once the change is durable (a shared store committed it).
import * as acp from "@agentclientprotocol/sdk";
import type { LiveSession } from "../host/live/live-session.js";
import { acpError, type ConnectionState } from "./connection-state.js";
import { isPermissionMode, parseOptionValue, parseSetModel } from "./session-options.js";

export async function setMode(cx: ConnectionState, params: acp.SetSessionModeRequest): Promise<acp.SetSessionModeResponse> {
  const s = cx.get(params.sessionId);
  const mode = params.modeId;
  if (!isPermissionMode(mode)) throw acp.RequestError.invalidParams({ modeId: mode }, `unknown mode ${mode} (ask, auto or readonly)`);
  await cx.host.perform("setPermissionMode", { sessionId: s.id, mode }, () => s.live.setPermissionMode(mode)).catch((err) => Promise.reject(acpError(err, s.id)));
  cx.send(s.id, { sessionUpdate: "current_mode_update", currentModeId: mode });
  return {};
}

export async function setConfigOption(cx: ConnectionState, params: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
  const s = cx.get(params.sessionId);
  const value = parseOptionValue(params);
  try {
    if ("error" in value) throw acp.RequestError.invalidParams({ configId: params.configId }, value.error);
    if ("model" in value) await changeModel(cx, s.live, value.model);
    else if ("thinkingLevel" in value) await cx.host.perform("setThinkingLevel", { sessionId: s.id, level: value.thinkingLevel }, (held) => s.live.setThinkingLevel(held, value.thinkingLevel));
    else await cx.host.perform("setAutoCompactionEnabled", { sessionId: s.id, enabled: value.autoCompaction }, () => s.live.setAutoCompaction(value.autoCompaction));
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
    await changeModel(cx, s.live, params.modelId);
  } catch (err) {
    throw acpError(err, params.sessionId);
  }
  cx.send(s.id, { sessionUpdate: "config_option_update", configOptions: cx.options(s) });
  return {};
}

/** The model change both pickers make, once the configured servers said what they serve. */
async function changeModel(cx: ConnectionState, live: LiveSession, model: string): Promise<void> {
  await cx.host.modelsReady(live.file.cwd);
  await cx.host.perform("setModel", { sessionId: live.id, model }, (held) => live.setModel(held, model));
}
