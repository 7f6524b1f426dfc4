// Model names to models. A model is named `provider/id` (split at the first "/" when that prefix
// names a provider, so `router/qwen/qwen3-coder` is provider `router`, id `qwen/qwen3-coder`); a
// bare id works where exactly one provider knows it. Each model's window comes from the most
// trustworthy source there is: the user's settings, what the server reported, the catalog, else
// a conservative default that says it is one.
import type { Settings } from "../policy/settings.js";
import { catalogEntry, catalogOwner, catalogModels } from "../../llm/catalog-lookup.js";
import type { DiscoveredModel } from "../../llm/discovery/index.js";
import { SCRIPTED_MODEL } from "../../llm/models.js";
import { hasKey, type ResolvedProvider } from "../../llm/provider-config.js";
import type { ModelInfo, WindowSource } from "../../llm/types.js";
import { ErrorCode, HostError } from "../host-error.js";
import { closestNames } from "./closest-names.js";

export interface ResolverSources {
  providers: ReadonlyMap<string, ResolvedProvider>;
  settings: Pick<Settings, "models">;
  /** what a provider's server said it serves (undefined: not asked yet, or it did not answer) */
  discovered(provider: string): readonly DiscoveredModel[] | undefined;
  /** the offline model: the demo's, or the one that replays a script (default) */
  offlineModel?: ModelInfo;
}

/** A model nothing describes: windows small enough for what a server may really give. */
const DEFAULT_WINDOW: Record<ResolvedProvider["api"], number> = { anthropic: 200_000, "openai-responses": 128_000, "openai-completions": 32_768, ollama: 32_768 };
const DEFAULT_OUTPUT = 8192;
const NO_PRICE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

type SettingsModel = NonNullable<Settings["models"]>[number];

export class ModelResolver {
  constructor(private readonly src: ResolverSources) {}

  /** The model a name means, usable now; -32602 UnknownModel / AmbiguousModel / NoApiKey otherwise. */
  resolve(name: string): ModelInfo {
    const { provider, id } = this.split(name);
    if (provider === SCRIPTED_MODEL.provider) return this.src.offlineModel ?? SCRIPTED_MODEL;
    const p = this.src.providers.get(provider);
    if (!p) throw unknownModel(name, `no provider "${provider}" is configured`);
    if (p.problem) throw new HostError(ErrorCode.InvalidParams, `cannot use ${name}: ${p.problem}`, { reason: "ProviderMisconfigured", model: name, provider });
    if (!hasKey(p)) {
      throw new HostError(ErrorCode.InvalidParams, `cannot use ${name}: set ${p.apiKeyEnv} to the ${provider} API key`, { reason: "NoApiKey", model: name, provider, apiKeyEnv: p.apiKeyEnv });
    }
    this.checkListed(p, id, name);
    return this.describe(p, id);
  }

  /**
   * A configured server that listed its models is taken at its word: an id it does not serve
   * (a typo) is refused now, with the nearest names it does, not when the run reaches it.
   */
  private checkListed(p: ResolvedProvider, id: string, name: string): void {
    const listed = p.builtin ? undefined : this.src.discovered(p.name);
    if (!listed || listed.length === 0 || listed.some((m) => m.id === id)) return;
    if (this.settingsModels().some((m) => m.provider === p.name && m.id === id)) return;
    const candidates = closestNames(id, listed.map((m) => m.id)).map((c) => `${p.name}/${c}`);
    throw new HostError(ErrorCode.InvalidParams, `unknown model ${name}: the server of ${p.name} (${p.baseUrl}) does not list it; did you mean ${candidates.join(", ")}? (\`pith models\` lists them all)`, {
      reason: "UnknownModel",
      model: name,
      candidates,
    });
  }

  /** The provider and id a name means (no key or reachability check). */
  split(name: string): { provider: string; id: string } {
    const slash = name.indexOf("/");
    if (slash > 0) {
      const prefix = name.slice(0, slash);
      if (this.src.providers.has(prefix) || prefix === SCRIPTED_MODEL.provider) return { provider: prefix, id: name.slice(slash + 1) };
    }
    if (name === SCRIPTED_MODEL.id) return { provider: SCRIPTED_MODEL.provider, id: name };
    const owners = this.ownersOf(name);
    if (owners.length === 1) return { provider: owners[0]!, id: name };
    if (owners.length > 1) {
      throw new HostError(ErrorCode.InvalidParams, `${name} is served by ${owners.join(", ")}: name one, e.g. ${owners[0]}/${name}`, {
        reason: "AmbiguousModel",
        model: name,
        candidates: owners.map((o) => `${o}/${name}`),
      });
    }
    throw unknownModel(name, slash > 0 ? `no provider "${name.slice(0, slash)}" is configured and no provider serves that id` : "no configured provider serves it");
  }

  /** The name to show and send back for a model: its bare id where that means it, else provider/id. */
  nameOf(model: Pick<ModelInfo, "provider" | "id">): string {
    if (model.provider === SCRIPTED_MODEL.provider) return model.id;
    try {
      const s = this.split(model.id);
      if (s.provider === model.provider && s.id === model.id) return model.id;
    } catch {
      // ambiguous or unknown as a bare id: the full name
    }
    return `${model.provider}/${model.id}`;
  }

  /** Every model a configured provider offers (with or without its key), and the offline one. */
  list(): (ModelInfo & { hasKey: boolean })[] {
    const out: (ModelInfo & { hasKey: boolean })[] = [];
    const seen = new Set<string>();
    const add = (p: ResolvedProvider, id: string) => {
      const key = `${p.name}/${id}`;
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ ...this.describe(p, id), hasKey: hasKey(p) });
    };
    for (const p of this.src.providers.values()) {
      if (p.problem) continue;
      for (const m of this.settingsModels()) if (m.provider === p.name) add(p, m.id);
      for (const m of catalogModels()) if (m.vendor === p.name && p.builtin) add(p, m.id);
      for (const m of this.src.discovered(p.name) ?? []) add(p, m.id);
    }
    out.push({ ...(this.src.offlineModel ?? SCRIPTED_MODEL), hasKey: true });
    // what can be used first: a key and a server that answered (or pith's catalog), then the
    // offline model and servers not heard from, then what needs a key
    const rank = (m: ModelInfo & { hasKey: boolean }) => {
      if (!m.hasKey) return 2;
      const p = this.src.providers.get(m.provider);
      return p && (p.builtin || this.src.discovered(p.name) !== undefined) ? 0 : 1;
    };
    return out.map((m, i) => ({ m, i, r: rank(m) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.m);
  }

  private settingsModels(): (SettingsModel & { provider: string })[] {
    return (this.src.settings.models ?? []).map((m) => ({ ...m, provider: m.provider ?? "anthropic" }));
  }

  /** Providers that know a bare id: from settings, the catalog (vendor providers) or discovery. */
  private ownersOf(id: string): string[] {
    const owners = new Set<string>();
    for (const m of this.settingsModels()) if (m.id === id && this.src.providers.has(m.provider)) owners.add(m.provider);
    const vendor = catalogOwner(id);
    if (vendor && this.src.providers.get(vendor)?.builtin) owners.add(vendor);
    for (const p of this.src.providers.keys()) if (this.src.discovered(p)?.some((m) => m.id === id)) owners.add(p);
    return [...owners];
  }

  private describe(p: ResolvedProvider, id: string): ModelInfo {
    const fromSettings = this.settingsModels().find((m) => m.provider === p.name && m.id === id);
    const found = this.src.discovered(p.name)?.find((m) => m.id === id);
    const catalog = catalogEntry(id, p.name);
    let windowSource: WindowSource = "default";
    let contextWindow = DEFAULT_WINDOW[p.api];
    if (catalog) [contextWindow, windowSource] = [catalog.contextWindow, "catalog"];
    if (found?.contextWindow) [contextWindow, windowSource] = [found.contextWindow, "discovered"];
    if (fromSettings?.contextWindow) [contextWindow, windowSource] = [fromSettings.contextWindow, "settings"];
    const maxOutputTokens = Math.min(fromSettings?.maxOutputTokens ?? found?.maxOutputTokens ?? catalog?.maxOutputTokens ?? DEFAULT_OUTPUT, contextWindow);
    return {
      id,
      provider: p.name,
      api: p.api,
      name: fromSettings?.name ?? catalog?.name,
      contextWindow,
      maxOutputTokens,
      pricing: fromSettings?.pricing ?? catalog?.pricing ?? NO_PRICE,
      thinking: fromSettings?.thinking ?? catalog?.thinking ?? "none",
      windowSource,
    };
  }
}

function unknownModel(name: string, why: string): HostError {
  return new HostError(ErrorCode.InvalidParams, `unknown model ${name}: ${why} (name it provider/id; see docs/providers.md)`, { reason: "UnknownModel", model: name });
}
