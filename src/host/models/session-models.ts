// The models a session can use, from the settings in effect for its cwd and the environment's
// keys: which providers exist, what a name means, and the model a new session starts with.
import { DEFAULT_MODEL_ID, SCRIPTED_MODEL } from "../../llm/models.js";
import { hasKey, resolveProviders, type ResolvedProvider } from "../../llm/provider-config.js";
import type { ModelInfo } from "../../llm/types.js";
import type { DiscoveredModel } from "../../llm/discovery/index.js";
import { ModelResolver } from "./model-resolver.js";
import type { Settings } from "../policy/settings.js";

/** The model a vendor's key alone starts sessions with, in this order. */
const VENDOR_DEFAULTS: readonly { provider: string; model: string }[] = [
  { provider: "anthropic", model: DEFAULT_MODEL_ID },
  { provider: "openai", model: "gpt-5.1" },
];

export interface SessionModels {
  providers: Map<string, ResolvedProvider>;
  resolver: ModelResolver;
  /** the model asked for (flag, settings), else a vendor with a key, else the offline script */
  defaultModel(): ModelInfo;
  /** no model was asked for and no vendor has a key: sessions run the offline demo */
  offline: boolean;
}

export function sessionModels(settings: Settings, env: NodeJS.ProcessEnv, discovered: (provider: ResolvedProvider | undefined) => readonly DiscoveredModel[] | undefined, offlineModel: ModelInfo = SCRIPTED_MODEL): SessionModels {
  const providers = resolveProviders(settings.providers, env);
  const resolver = new ModelResolver({ providers, settings, discovered: (name) => discovered(providers.get(name)), offlineModel });
  const vendor = VENDOR_DEFAULTS.find((v) => {
    const p = providers.get(v.provider);
    return p !== undefined && p.apiKeyEnv !== undefined && hasKey(p);
  });
  const offline = settings.model === undefined && vendor === undefined;
  return {
    providers,
    resolver,
    offline,
    defaultModel: () => {
      if (settings.model !== undefined) return resolver.resolve(settings.model);
      return vendor ? resolver.resolve(`${vendor.provider}/${vendor.model}`) : offlineModel;
    },
  };
}
