// The catalog as the resolver reads it: an entry for an id as any provider serves it, and which
// built-in provider sells it (so a bare vendor id like "claude-sonnet-5-5" needs no prefix).
import { BUILTIN_MODELS } from "./models.js";
import type { ModelInfo } from "./types.js";

export function catalogModels(): readonly ModelInfo[] {
  return BUILTIN_MODELS;
}

export function catalogEntry(id: string): ModelInfo | undefined {
  return BUILTIN_MODELS.find((m) => m.id === id);
}

/** The built-in provider that sells this id, if one does. */
export function catalogOwner(id: string): string | undefined {
  return catalogEntry(id)?.provider;
}
