// The models pith offers by default: the Claude models of the built-in catalog (./catalog.ts,
// where their figures and sources are). Settings can add or override entries, e.g. a model
// served by a compatible endpoint.
import { ANTHROPIC_MODELS } from "./catalog/anthropic.js";
import { catalogModelInfo } from "./catalog.js";
import type { ModelInfo } from "./types.js";

/** Anthropic's cache prices: writes (5 min) 1.25x input, reads 0.1x input. */
function priced(input: number, output: number): ModelInfo["pricing"] {
  return { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) };
}
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export const BUILTIN_MODELS: readonly ModelInfo[] = ANTHROPIC_MODELS.map((e) => catalogModelInfo(e, "anthropic"));

export const DEFAULT_MODEL_ID = "claude-sonnet-5-5";

/** The offline provider's model when it replays a script (PITH_OFFLINE_SCRIPT, tests): its scripts' usage is sized for this window. */
export const SCRIPTED_MODEL: ModelInfo = {
  id: "scripted",
  provider: "scripted",
  name: "Offline demo (scripted; set an API key for a real model)",
  contextWindow: 32_000,
  maxOutputTokens: 8_000,
  pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  thinking: "none",
};

/**
 * The offline demo model (no script): the same model with a window small enough that the demo's
 * first task, tidying its scratch project's notes, passes the threshold (~7.3k of 10k once the
 * ~2k of system prompt and tools are counted) and compacts mid-run, and that a compaction asked
 * for after it has something before its cut (measured: 8.7k -> 6.5k during the task, then 6.5k ->
 * 2.4k by hand).
 */
export const DEMO_MODEL: ModelInfo = { ...SCRIPTED_MODEL, contextWindow: 10_000, maxOutputTokens: 4_000 };

export class ModelRegistry {
  private readonly models = new Map<string, ModelInfo>();

  constructor(overrides: readonly Partial<ModelInfo>[] = [], builtins: readonly ModelInfo[] = [...BUILTIN_MODELS, SCRIPTED_MODEL]) {
    for (const m of builtins) this.models.set(m.id, m);
    for (const o of overrides) {
      if (!o.id) continue;
      const base = this.models.get(o.id);
      const merged = { ...(base ?? { provider: "anthropic", contextWindow: 200_000, maxOutputTokens: 32_000, pricing: priced(0, 0), thinking: "none" as const }), ...o } as ModelInfo;
      this.models.set(o.id, merged);
    }
  }

  get(id: string): ModelInfo | undefined {
    return this.models.get(id);
  }

  /** A known model, or a guess for an unknown id (a compatible endpoint may serve anything). */
  resolve(id: string): ModelInfo {
    return this.models.get(id) ?? { id, provider: "anthropic", contextWindow: 200_000, maxOutputTokens: 32_000, pricing: priced(0, 0), thinking: "none" };
  }

  list(): ModelInfo[] {
    return [...this.models.values()];
  }
}
