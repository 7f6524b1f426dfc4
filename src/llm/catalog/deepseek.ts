// DeepSeek models. Checked 2026-11-26 against models.dev (anomalyco/models.dev at f3fc692, July
// 2026): providers/deepseek for the API (which gives deepseek-chat and deepseek-reasoner the same
// figures as V4 Flash: 1M window, 384k output, $0.14 / $0.28, cache hits $0.0028), models/deepseek
// for R1; V3, V3.1 and V3.2 as OpenRouter and Ollama's cloud serve them (163,840). The R1 distills
// Ollama serves as deepseek-r1:1.5b … 70b take their base models' window (Qwen2.5, Llama 3.1,
// Qwen3-8B: 131,072), not checked against /api/show here: discovery reads it from the server.
import { usd, type CatalogEntry } from "./types.js";

const ds = (id: string, name: string, contextWindow: number, maxOutputTokens: number, pricing: CatalogEntry["pricing"], thinking: CatalogEntry["thinking"], aliases?: string[]): CatalogEntry => ({
  id,
  name,
  family: "deepseek",
  contextWindow,
  maxOutputTokens,
  pricing,
  thinking,
  openWeights: true,
  ...(aliases ? { aliases } : {}),
});

export const DEEPSEEK_MODELS: readonly CatalogEntry[] = [
  ds("deepseek-chat", "DeepSeek Chat (API)", 1_000_000, 384_000, usd(0.14, 0.28, 0.0028), "none"),
  // always reasons; the API takes no thinking setting for it
  ds("deepseek-reasoner", "DeepSeek Reasoner (API)", 1_000_000, 384_000, usd(0.14, 0.28, 0.0028), "none"),
  ds("deepseek-v4-flash", "DeepSeek V4 Flash", 1_000_000, 384_000, usd(0.14, 0.28, 0.0028), "adaptive", ["deepseek/deepseek-v4-flash"]),
  ds("deepseek-v4-pro", "DeepSeek V4 Pro", 1_000_000, 384_000, usd(0.435, 0.87, 0.003625), "adaptive", ["deepseek/deepseek-v4-pro"]),
  ds("deepseek-v3", "DeepSeek V3", 163_840, 16_384, undefined, "none", ["deepseek-v3:671b", "deepseek-v3-0324", "deepseek/deepseek-chat-v3-0324", "deepseek-ai/DeepSeek-V3"]),
  ds("deepseek-v3.1", "DeepSeek V3.1", 163_840, 32_768, undefined, "adaptive", ["deepseek-v3.1:671b", "deepseek/deepseek-chat-v3.1", "deepseek-ai/DeepSeek-V3.1"]),
  ds("deepseek-v3.2", "DeepSeek V3.2", 163_840, 65_536, undefined, "adaptive", ["deepseek/deepseek-v3.2"]),
  ds("deepseek-r1", "DeepSeek R1", 128_000, 32_768, undefined, "adaptive", ["deepseek-r1:671b", "deepseek-r1-0528", "deepseek/deepseek-r1", "deepseek/deepseek-r1-0528", "deepseek-ai/DeepSeek-R1"]),
  ds("deepseek-r1-distill", "DeepSeek R1 distilled (1.5B-70B)", 131_072, 32_768, undefined, "adaptive", [
    "deepseek-r1:1.5b",
    "deepseek-r1:7b",
    "deepseek-r1:8b",
    "deepseek-r1:14b",
    "deepseek-r1:32b",
    "deepseek-r1:70b",
  ]),
];
