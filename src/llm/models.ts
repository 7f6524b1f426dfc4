// Claude models pith knows (Nov 2026 lineup), with window, output limit and list prices.
// Settings can add or override entries, e.g. a model served by a compatible endpoint.
import type { ModelInfo } from "./types.js";

/** Anthropic's cache prices: writes (5 min) 1.25x input, reads 0.1x input. */
function priced(input: number, output: number): ModelInfo["pricing"] {
  return { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) };
}
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function claude(id: string, name: string, contextWindow: number, maxOutputTokens: number, input: number, output: number, thinking: ModelInfo["thinking"]): ModelInfo {
  return { id, provider: "anthropic", name, contextWindow, maxOutputTokens, pricing: priced(input, output), thinking };
}

export const BUILTIN_MODELS: readonly ModelInfo[] = [
  claude("claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, 10, 50, "adaptive"),
  claude("claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, 4, 20, "adaptive"),
  claude("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, 2, 10, "adaptive"),
  claude("claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, 128_000, 0.1, 0.5, "adaptive"),
  claude("claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, 5, 25, "adaptive"),
  claude("claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, 2, 10, "adaptive"),
  claude("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, 5, 25, "budget"),
  claude("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 3, 15, "budget"),
  claude("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1, 5, "budget"),
];

export const DEFAULT_MODEL_ID = "claude-sonnet-5-5";

/** The offline provider's model: a small window so the demo reaches compaction quickly. */
export const SCRIPTED_MODEL: ModelInfo = {
  id: "scripted",
  provider: "scripted",
  name: "Scripted (offline)",
  contextWindow: 32_000,
  maxOutputTokens: 8_000,
  pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  thinking: "none",
};

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
