// Gemini models. Checked 2026-11-26 against models.dev (anomalyco/models.dev at f3fc692, July 2026:
// providers/google/models, models/google), which agrees with pi-ai 0.58.4's catalog for the 2.x and
// 3 models both list. Prices are Google's base tier: 2.5 Pro and the 3.x Pro models cost more for
// prompts over 200k tokens. Cache writes are billed as storage per hour, not per token: 0 here.
// Gemini 2.5 takes a thinking budget; Gemini 3 takes a thinking level.
import { usd, type CatalogEntry } from "./types.js";

const gemini = (id: string, name: string, maxOutputTokens: number, pricing: CatalogEntry["pricing"], thinking: CatalogEntry["thinking"]): CatalogEntry => ({
  id,
  name,
  family: "google",
  contextWindow: 1_048_576,
  maxOutputTokens,
  pricing,
  thinking,
});

export const GOOGLE_MODELS: readonly CatalogEntry[] = [
  gemini("gemini-2.0-flash", "Gemini 2.0 Flash", 8_192, usd(0.1, 0.4, 0.025), "none"),
  gemini("gemini-2.0-flash-lite", "Gemini 2.0 Flash-Lite", 8_192, usd(0.075, 0.3), "none"),
  gemini("gemini-2.5-pro", "Gemini 2.5 Pro", 65_536, usd(1.25, 10, 0.125), "budget"),
  gemini("gemini-2.5-flash", "Gemini 2.5 Flash", 65_536, usd(0.3, 2.5, 0.03), "budget"),
  gemini("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 65_536, usd(0.1, 0.4, 0.01), "budget"),
  gemini("gemini-3-pro-preview", "Gemini 3 Pro (preview)", 65_536, usd(2, 12, 0.2), "adaptive"),
  gemini("gemini-3-flash-preview", "Gemini 3 Flash (preview)", 65_536, usd(0.5, 3, 0.05), "adaptive"),
  gemini("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)", 65_536, usd(2, 12, 0.2), "adaptive"),
  gemini("gemini-3.1-flash-lite", "Gemini 3.1 Flash-Lite", 65_536, usd(0.25, 1.5, 0.025), "adaptive"),
  gemini("gemini-3.5-flash", "Gemini 3.5 Flash", 65_536, usd(1.5, 9, 0.15), "adaptive"),
];
