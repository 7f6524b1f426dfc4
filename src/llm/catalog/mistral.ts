// Mistral models. Checked 2026-11-26 against models.dev (anomalyco/models.dev at f3fc692, July
// 2026: providers/mistral, Mistral's own API and prices). models.dev gives Codestral (2508) a
// 4,096 output limit where OpenRouter lists none: the lower figure is kept. Codestral 22B (the
// open weights Ollama serves as codestral:22b) has 32,768 by Mistral's 2024 release notes, not
// checked against /api/show here; Devstral Small 2 is 256,000 on Mistral's API and 262,144 on
// Ollama's cloud: the smaller is kept. Magistral and the Ministral models are left out.
import { usd, type CatalogEntry } from "./types.js";

const mistral = (id: string, name: string, contextWindow: number, maxOutputTokens: number, pricing: CatalogEntry["pricing"], thinking: CatalogEntry["thinking"], aliases: string[], openWeights = true): CatalogEntry => ({
  id,
  name,
  family: "mistral",
  aliases,
  contextWindow,
  maxOutputTokens,
  pricing,
  thinking,
  openWeights,
});

export const MISTRAL_MODELS: readonly CatalogEntry[] = [
  mistral("mistral-large-2512", "Mistral Large 3", 262_144, 262_144, usd(0.5, 1.5), "none", ["mistral-large-latest", "mistral-large-3", "mistral-large-3:675b", "mistralai/mistral-large-2512"]),
  mistral("mistral-large-2411", "Mistral Large 2.1", 131_072, 16_384, usd(2, 6), "none", ["mistralai/mistral-large-2411"]),
  mistral("mistral-medium-2604", "Mistral Medium (2604)", 262_144, 262_144, usd(1.5, 7.5), "adaptive", []),
  mistral("mistral-medium-2508", "Mistral Medium 3.1", 262_144, 262_144, usd(0.4, 2), "none", ["mistral-medium-latest", "mistralai/mistral-medium-3.1"], false),
  mistral("mistral-small-2603", "Mistral Small (2603)", 256_000, 256_000, usd(0.15, 0.6), "adaptive", ["mistral-small-latest"]),
  mistral("mistral-small-2506", "Mistral Small 3.2", 128_000, 16_384, usd(0.1, 0.3), "none", ["mistral-small3.2", "mistral-small3.2:24b", "mistralai/mistral-small-3.2-24b-instruct"]),
  mistral("mistral-nemo", "Mistral NeMo", 128_000, 128_000, usd(0.15, 0.15), "none", ["open-mistral-nemo"]),
  mistral("codestral-2508", "Codestral (2508)", 256_000, 4_096, usd(0.3, 0.9), "none", ["codestral-latest", "mistralai/codestral-2508"]),
  mistral("codestral-22b", "Codestral 22B", 32_768, 32_768, undefined, "none", ["codestral", "codestral:22b"]),
  mistral("devstral-2512", "Devstral 2", 262_144, 262_144, usd(0.4, 2), "none", ["devstral-latest", "devstral-medium-latest", "devstral-2", "devstral-2:123b", "mistralai/devstral-2512"]),
  mistral("devstral-small-2507", "Devstral Small 1.1", 128_000, 128_000, usd(0.1, 0.3), "none", ["devstral", "devstral:24b", "devstral-small-2505", "mistralai/devstral-small", "mistralai/Devstral-Small-2507"]),
  mistral("devstral-small-2512", "Devstral Small 2", 256_000, 256_000, undefined, "none", ["labs-devstral-small-2512", "devstral-small-2", "devstral-small-2:24b"]),
];
