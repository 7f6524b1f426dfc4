// OpenAI models. Checked 2026-11-26 against models.dev (anomalyco/models.dev at f3fc692, July
// 2026: providers/openai/models/*.toml), which agrees with pi-ai 0.58.4's generated catalog
// (node_modules/@mariozechner/pi-ai) for every model both list; where they differ (gpt-4.1-nano's
// cached input 0.025 vs 0.03) models.dev, the newer, is used. gpt-oss's figures: Ollama /api/show
// (gptoss.context_length 131072) for the window, Groq's listing on models.dev (65,536) for output.
// GPT-5.4 and 5.5 cost more above 272k prompt tokens (5.4: not listed; 5.5: 10 / 45 / 1.00): the
// prices here are the base tier. Models newer than July 2026 are not listed: no stored source
// could confirm them.
import { usd, type CatalogEntry } from "./types.js";

const gpt = (id: string, name: string, contextWindow: number, maxOutputTokens: number, pricing: CatalogEntry["pricing"], thinking: CatalogEntry["thinking"], extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id,
  name,
  family: "openai",
  vendor: "openai",
  contextWindow,
  maxOutputTokens,
  pricing,
  thinking,
  ...extra,
});

/** GPT-5 family: a 400k window of which at most 272k is prompt. */
const gpt5 = (id: string, name: string, pricing: CatalogEntry["pricing"]): CatalogEntry => gpt(id, name, 400_000, 128_000, pricing, "adaptive", { maxInputTokens: 272_000 });

export const OPENAI_MODELS: readonly CatalogEntry[] = [
  gpt("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, usd(2, 8, 0.5), "none"),
  gpt("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, usd(0.4, 1.6, 0.1), "none"),
  gpt("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, usd(0.1, 0.4, 0.025), "none"),
  gpt("gpt-4o", "GPT-4o", 128_000, 16_384, usd(2.5, 10, 1.25), "none"),
  gpt("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, usd(0.15, 0.6, 0.075), "none"),
  gpt("o1", "o1", 200_000, 100_000, usd(15, 60, 7.5), "adaptive"),
  gpt("o3", "o3", 200_000, 100_000, usd(2, 8, 0.5), "adaptive"),
  gpt("o3-mini", "o3-mini", 200_000, 100_000, usd(1.1, 4.4, 0.55), "adaptive"),
  gpt("o3-pro", "o3-pro", 200_000, 100_000, usd(20, 80), "adaptive"),
  gpt("o4-mini", "o4-mini", 200_000, 100_000, usd(1.1, 4.4, 0.275), "adaptive"),
  gpt5("gpt-5", "GPT-5", usd(1.25, 10, 0.125)),
  gpt5("gpt-5-mini", "GPT-5 mini", usd(0.25, 2, 0.025)),
  gpt5("gpt-5-nano", "GPT-5 nano", usd(0.05, 0.4, 0.005)),
  gpt5("gpt-5-codex", "GPT-5 Codex", usd(1.25, 10, 0.125)),
  gpt5("gpt-5.1", "GPT-5.1", usd(1.25, 10, 0.125)),
  gpt5("gpt-5.1-codex", "GPT-5.1 Codex", usd(1.25, 10, 0.125)),
  gpt5("gpt-5.1-codex-mini", "GPT-5.1 Codex mini", usd(0.25, 2, 0.025)),
  gpt5("gpt-5.1-codex-max", "GPT-5.1 Codex Max", usd(1.25, 10, 0.125)),
  gpt5("gpt-5.2", "GPT-5.2", usd(1.75, 14, 0.175)),
  gpt5("gpt-5.2-codex", "GPT-5.2 Codex", usd(1.75, 14, 0.175)),
  gpt5("gpt-5.3-codex", "GPT-5.3 Codex", usd(1.75, 14, 0.175)),
  gpt5("gpt-5.4-mini", "GPT-5.4 mini", usd(0.75, 4.5, 0.075)),
  gpt5("gpt-5.4-nano", "GPT-5.4 nano", usd(0.2, 1.25, 0.02)),
  gpt("gpt-5.4", "GPT-5.4", 1_050_000, 128_000, usd(2.5, 15, 0.25), "adaptive", { maxInputTokens: 922_000 }),
  gpt("gpt-5.5", "GPT-5.5", 1_050_000, 128_000, usd(5, 30, 0.5), "adaptive", { maxInputTokens: 922_000 }),
  // open weights: no first-party API, so no price
  gpt("gpt-oss-20b", "gpt-oss 20B", 131_072, 65_536, undefined, "adaptive", { vendor: undefined, openWeights: true, aliases: ["gpt-oss:20b", "openai/gpt-oss-20b"] }),
  gpt("gpt-oss-120b", "gpt-oss 120B", 131_072, 65_536, undefined, "adaptive", { vendor: undefined, openWeights: true, aliases: ["gpt-oss:120b", "openai/gpt-oss-120b"] }),
];
