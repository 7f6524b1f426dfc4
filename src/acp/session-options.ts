// What an ACP client can set on a session: the permission mode as ACP session modes, and the
// model, the thinking level and automatic compaction as config options (categories "model" and
// "thought_level"; automatic compaction a boolean where the client said it shows booleans, a
// select of on / off otherwise).
import type * as acp from "@agentclientprotocol/sdk";
import { ThinkingLevel } from "../../protocol/messages.js";
import type { ModelInfo } from "../llm/types.js";
import type { PermissionMode } from "../host/ports.js";

const MODES: { id: PermissionMode; name: string; description: string }[] = [
  { id: "ask", name: "Ask", description: "Ask before every write, edit, shell command and tool not marked read-only" },
  { id: "auto", name: "Auto", description: "Run tools without asking (writes stay inside the project)" },
  { id: "readonly", name: "Read-only", description: "Refuse writes, edits, shell commands and tools not marked read-only" },
];

export function isPermissionMode(id: string): id is PermissionMode {
  return MODES.some((m) => m.id === id);
}

export function modeState(current: PermissionMode): acp.SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((m) => ({ ...m })) };
}

export interface OptionsState {
  model: string;
  thinkingLevel: string;
  autoCompaction: boolean;
}

const CONFIG = { model: "model", thinking: "thought_level", autocompact: "autocompact" } as const;

export function configOptions(state: OptionsState, models: readonly ModelInfo[], booleans: boolean): acp.SessionConfigOption[] {
  const known = models.some((m) => m.id === state.model) ? models : [...models, { id: state.model, name: state.model } as ModelInfo];
  const auto: acp.SessionConfigOption = booleans
    ? { id: CONFIG.autocompact, name: "Auto-compaction", description: "Compact the context automatically when it fills up", type: "boolean", currentValue: state.autoCompaction }
    : {
        id: CONFIG.autocompact,
        name: "Auto-compaction",
        description: "Compact the context automatically when it fills up",
        type: "select",
        currentValue: state.autoCompaction ? "on" : "off",
        options: [
          { value: "on", name: "On" },
          { value: "off", name: "Off" },
        ],
      };
  return [
    { id: CONFIG.model, name: "Model", category: "model", type: "select", currentValue: state.model, options: known.map((m) => ({ value: m.id, name: m.name ?? m.id })) },
    {
      id: CONFIG.thinking,
      name: "Thinking",
      category: "thought_level",
      type: "select",
      currentValue: state.thinkingLevel,
      options: ThinkingLevel.options.map((level) => ({ value: level, name: level })),
    },
    auto,
  ];
}

/**
 * The model as the older `models` field shows it (SessionModelState: what agent-shell, acp.el
 * and the Python SDK read), in step with the "model" config option.
 */
export interface ModelState {
  currentModelId: string;
  availableModels: { modelId: string; name: string }[];
}

export function modelState(current: string, models: readonly ModelInfo[]): ModelState {
  const known = models.some((m) => m.id === current) ? models : [...models, { id: current, name: current } as ModelInfo];
  return { currentModelId: current, availableModels: known.map((m) => ({ modelId: m.id, name: m.name ?? m.id })) };
}

/** The params of session/set_model (not in the SDK's schema any more, so parsed here), or why not. */
export function parseSetModel(params: unknown): { sessionId: string; modelId: string } | { error: string } {
  const p = (params ?? {}) as { sessionId?: unknown; modelId?: unknown };
  if (typeof p.sessionId !== "string" || p.sessionId.length === 0) return { error: "sessionId: expected a session id" };
  if (typeof p.modelId !== "string" || p.modelId.length === 0) return { error: "modelId: expected a model id" };
  return { sessionId: p.sessionId, modelId: p.modelId };
}

/** The value of a set_config_option request as the session takes it, or why not. */
export function parseOptionValue(req: acp.SetSessionConfigOptionRequest): { model: string } | { thinkingLevel: ThinkingLevel } | { autoCompaction: boolean } | { error: string } {
  const value = req.value;
  switch (req.configId) {
    case CONFIG.model:
      return typeof value === "string" && value.length > 0 ? { model: value } : { error: "model: expected a model id" };
    case CONFIG.thinking: {
      const parsed = ThinkingLevel.safeParse(value);
      return parsed.success ? { thinkingLevel: parsed.data } : { error: `thought_level: expected one of ${ThinkingLevel.options.join(", ")}` };
    }
    case CONFIG.autocompact:
      if (typeof value === "boolean") return { autoCompaction: value };
      if (value === "on" || value === "off") return { autoCompaction: value === "on" };
      return { error: "autocompact: expected true / false or on / off" };
    default:
      return { error: `unknown config option ${req.configId}` };
  }
}
