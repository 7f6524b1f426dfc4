// The shape of a catalog entry: facts about one model as its vendor publishes them.
import type { ModelInfo } from "../types.js";

type CatalogFamily = "openai" | "anthropic" | "google" | "deepseek" | "qwen" | "llama" | "mistral";

export interface CatalogEntry {
  /** the vendor's id */
  id: string;
  name: string;
  family: CatalogFamily;
  /** the built-in provider that serves it first-party ("openai", "anthropic"), when pith has one */
  vendor?: string;
  /** other names the same model is served under: Ollama tags, OpenRouter slugs, Hugging Face repos */
  aliases?: readonly string[];
  /** the whole window, prompt and reply */
  contextWindow: number;
  /** a separate limit on the prompt, where the vendor states one (GPT-5: 272k of a 400k window) */
  maxInputTokens?: number;
  maxOutputTokens: number;
  /** the vendor's own list price, USD per million tokens; absent where no first-party API sells it */
  pricing?: ModelInfo["pricing"];
  thinking: ModelInfo["thinking"];
  /** weights anyone can run (Ollama, vLLM, llama.cpp, LM Studio) */
  openWeights?: boolean;
}

/** Builds the pricing object: input, output, cache read, cache write (0 where the vendor has none). */
export const usd = (input: number, output: number, cacheRead = 0, cacheWrite = 0): ModelInfo["pricing"] => ({ input, output, cacheRead, cacheWrite });
