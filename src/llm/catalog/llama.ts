// Meta Llama models. Checked 2026-11-26. Windows: Ollama's /api/show (llama3.1:8b
// `llama.context_length` 131072, public samples) and Meta's model cards for the other 3.x models
// (131,072; Llama 3: 8,192). Meta publishes no separate output limit for Llama 3.x: generation is
// bounded by the window (the provider caps max_tokens to the room left). Llama 4 from models.dev
// (anomalyco/models.dev at f3fc692, models/meta: Scout 3.5M, Maverick 1M, output 16,384); hosts
// serve much less (OpenRouter 327,680 for Scout, Groq 131,072), which discovery reports. Meta sells
// no first-party API: no prices.
import type { CatalogEntry } from "./types.js";

const llama = (id: string, name: string, contextWindow: number, maxOutputTokens: number, aliases: string[]): CatalogEntry => ({
  id,
  name,
  family: "llama",
  aliases,
  contextWindow,
  maxOutputTokens,
  thinking: "none",
  openWeights: true,
});

export const LLAMA_MODELS: readonly CatalogEntry[] = [
  llama("llama-3", "Llama 3", 8_192, 8_192, ["llama3", "llama3:8b", "llama3:70b", "meta-llama/llama-3-8b-instruct", "meta-llama/llama-3-70b-instruct"]),
  llama("llama-3.1", "Llama 3.1", 131_072, 131_072, ["llama3.1", "llama3.1:8b", "llama3.1:70b", "llama3.1:405b", "meta-llama/llama-3.1-8b-instruct", "meta-llama/llama-3.1-70b-instruct", "meta-llama/llama-3.1-405b-instruct"]),
  llama("llama-3.2", "Llama 3.2", 131_072, 131_072, ["llama3.2", "llama3.2:1b", "llama3.2:3b", "meta-llama/llama-3.2-1b-instruct", "meta-llama/llama-3.2-3b-instruct"]),
  llama("llama-3.3-70b", "Llama 3.3 70B", 131_072, 131_072, ["llama3.3", "llama3.3:70b", "meta-llama/llama-3.3-70b-instruct", "llama-3.3-70b-versatile"]),
  llama("llama-4-scout", "Llama 4 Scout", 3_500_000, 16_384, ["llama4:scout", "meta-llama/llama-4-scout", "llama-4-scout-17b-16e-instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct"]),
  llama("llama-4-maverick", "Llama 4 Maverick", 1_000_000, 16_384, ["llama4:maverick", "meta-llama/llama-4-maverick", "llama-4-maverick-17b-128e-instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct"]),
];
