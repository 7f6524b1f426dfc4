// Claude models (Nov 2026 lineup), with window, output limit and list prices; cache writes (5
// minutes) cost 1.25x input and cache reads 0.1x input. These are the figures pith has shipped
// since issue 1 (src/llm/models.ts). Checked 2026-11-26: models.dev (July 2026) confirms Claude
// Sonnet 5 (1M / 128k, $2 / $10) and the 4.5 models; the 5.5 models, Opus 5 and Fable 5.1 are newer
// than any stored source, so their figures stand unverified here.
import type { CatalogEntry } from "./types.js";

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function claude(id: string, name: string, contextWindow: number, maxOutputTokens: number, input: number, output: number, thinking: CatalogEntry["thinking"], aliases?: string[]): CatalogEntry {
  return {
    id,
    name,
    family: "anthropic",
    vendor: "anthropic",
    contextWindow,
    maxOutputTokens,
    pricing: { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) },
    thinking,
    ...(aliases ? { aliases } : {}),
  };
}

/** OpenRouter writes Claude versions with a dot (anthropic/claude-sonnet-4.5). */
export const ANTHROPIC_MODELS: readonly CatalogEntry[] = [
  claude("claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, 10, 50, "adaptive", ["claude-fable-5.1"]),
  claude("claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, 4, 20, "adaptive", ["claude-opus-5.5"]),
  claude("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, 2, 10, "adaptive", ["claude-sonnet-5.5"]),
  claude("claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, 128_000, 0.1, 0.5, "adaptive", ["claude-haiku-5.5"]),
  claude("claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, 5, 25, "adaptive"),
  claude("claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, 2, 10, "adaptive"),
  claude("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, 5, 25, "budget", ["claude-opus-4.5"]),
  claude("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 3, 15, "budget", ["claude-sonnet-4.5"]),
  claude("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1, 5, "budget", ["claude-haiku-4.5"]),
];
