// The catalog as the model resolver reads it: the figures for an id as any provider serves it,
// and which built-in provider sells it first-party (so a bare vendor id like "claude-sonnet-5-5"
// or "gpt-4.1" needs no prefix). Only exact ids and listed aliases name an owner: a loose match
// ("qwen3-coder:30b" for Qwen3 Coder) gives figures, never a provider.
import { CATALOG, catalogModelInfo, lookupModel, type CatalogEntry } from "./catalog.js";
import type { ModelInfo } from "./types.js";

/** The entries a built-in provider sells, for its model list. */
export function catalogModels(): readonly CatalogEntry[] {
  return CATALOG.filter((e) => e.vendor !== undefined);
}

/** The catalog's figures for `id` as `provider` serves it (free when the provider is not the vendor). */
export function catalogEntry(id: string, provider: string): ModelInfo | undefined {
  const match = lookupModel(id);
  if (!match) return undefined;
  return catalogModelInfo(match.entry, provider, { id, free: match.entry.vendor !== provider });
}

/** The built-in provider that sells this id, if one does. */
export function catalogOwner(id: string): string | undefined {
  const match = lookupModel(id);
  return match && (match.how === "exact" || match.how === "alias") ? match.entry.vendor : undefined;
}
