// One client per configured provider, made when a session first needs it and kept (with its
// connection pool) while the provider's settings stay the same. The offline script is not here:
// it keeps its place in the script, so each session has its own (host-models.ts).
import type { Logger } from "pino";
import { AnthropicProvider } from "../../llm/anthropic.js";
import { OllamaProvider } from "../../llm/ollama.js";
import { OpenAICompletionsProvider } from "../../llm/openai-completions.js";
import { OpenAIResponsesProvider } from "../../llm/openai-responses.js";
import { providerKey, type ResolvedProvider } from "../../llm/provider-config.js";
import type { ModelInfo, Provider } from "../../llm/types.js";
import { ErrorCode, HostError } from "../host-error.js";

export class ProviderPool {
  private readonly built = new Map<string, Provider>();

  constructor(private readonly logger: Logger) {}

  /** The client for a model of `providers` (the settings in effect for its session). */
  providerFor(model: ModelInfo, providers: ReadonlyMap<string, ResolvedProvider>): Provider {
    const p = providers.get(model.provider);
    if (!p) throw new HostError(ErrorCode.InvalidParams, `no provider "${model.provider}" is configured`, { reason: "UnknownModel", model: `${model.provider}/${model.id}` });
    const key = providerKey(p);
    let client = this.built.get(key);
    if (!client) this.built.set(key, (client = this.build(p)));
    return client;
  }

  private build(p: ResolvedProvider): Provider {
    // the key and URL are always passed: each SDK would otherwise read its own variables
    const common = { apiKey: p.apiKey, baseURL: p.baseUrl, headers: p.headers, logger: this.logger };
    switch (p.api) {
      case "anthropic":
        return new AnthropicProvider({ ...common, name: p.name });
      case "ollama":
        return new OllamaProvider({ ...common, name: p.name });
      case "openai-completions":
        return new OpenAICompletionsProvider({ ...common, name: p.name });
      case "openai-responses":
        return new OpenAIResponsesProvider({ ...common, name: p.name });
    }
  }
}
