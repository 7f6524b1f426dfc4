// pith's built-in catalog of common models (window, output limit, prices, how they think), dated
// facts with their sources in each family's file under ./catalog/, and the lookup that finds the
// entry for an id as any provider serves it: "gpt-4.1", "openai/gpt-4.1", "router/qwen/qwen3-coder",
// "qwen3-coder:30b", "claude-sonnet-4-5-20250929", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf".
// The catalog ranks below what the user's settings and the server itself say (discovery).
import { ANTHROPIC_MODELS } from "./catalog/anthropic.js";
import { DEEPSEEK_MODELS } from "./catalog/deepseek.js";
import { GOOGLE_MODELS } from "./catalog/google.js";
import { LLAMA_MODELS } from "./catalog/llama.js";
import { MISTRAL_MODELS } from "./catalog/mistral.js";
import { OPENAI_MODELS } from "./catalog/openai.js";
import { QWEN_MODELS } from "./catalog/qwen.js";
import type { CatalogEntry } from "./catalog/types.js";
import type { ModelInfo } from "./types.js";

export type { CatalogEntry } from "./catalog/types.js";

/** The date the figures were last checked against their sources. */
export const CATALOG_CHECKED = "2026-11-26";

export const CATALOG: readonly CatalogEntry[] = [...ANTHROPIC_MODELS, ...OPENAI_MODELS, ...GOOGLE_MODELS, ...DEEPSEEK_MODELS, ...QWEN_MODELS, ...LLAMA_MODELS, ...MISTRAL_MODELS];

export interface CatalogMatch {
  entry: CatalogEntry;
  /**
   * exact: the id is the entry's; alias: one of the entry's other names; normalized: after
   * dropping what does not change the model (a provider prefix, an Ollama tag, a date, a
   * quantization, "-instruct"); family: after dropping the size too (all sizes share the figures)
   */
  how: "exact" | "alias" | "normalized" | "family";
  /** the form of the id that matched */
  matched: string;
}

// OpenRouter's routing variants of one model
const VARIANT = /:(latest|free|nitro|floor|online|extended|thinking|beta)$/;
const QUANT = /-(i?q\d[\w-]*|fp?16|bf16|fp8|int[48]|awq|gptq|mlx[\w-]*|\d+bit|gguf)$/;
// a size at the end: "-8b", "-1-5b" (1.5b), "30b-a3b"; after a dash or a letter ("coder30b"), never
// eating a version ("llama3-2-11b" is 3.2 at 11b)
const SIZE = /(-|(?<=[a-z]))\d+(-\d)?[bm](-?a\d+(-\d)?b)?$/;

/**
 * The form of an id that ignores what does not change the model: case, a provider or repository
 * prefix, a routing variant or :latest, a date, a .gguf file name and its quantization,
 * "-instruct" / "-it" / "-chat", and how versions are written (llama3.1, llama-3.1, 4.5, 4-5).
 */
export function looseKey(id: string): string {
  let k = id.trim().toLowerCase();
  k = k.slice(k.lastIndexOf("/") + 1);
  k = k.replace(/\.gguf$/, "").replace(VARIANT, "");
  k = k.replace(/@\d{8}$/, "").replace(/-\d{4}-\d{2}-\d{2}$/, "").replace(/-\d{8}$/, "");
  k = k.replace(/[:_]/g, "-");
  for (let before = ""; before !== k; ) {
    before = k;
    k = k.replace(QUANT, "");
  }
  // "-latest" stays: "codestral-latest" (Mistral's API) is not "codestral" (Ollama's 22B)
  k = k.replace(/-(instruct|it|chat)(?=-|$)/g, "");
  k = k.replace(/^meta-(?=llama)/, "");
  k = k.replace(/([a-z])-(\d)/g, "$1$2");
  k = k.replace(/(\d)\.(\d)/g, "$1-$2");
  return k;
}

interface Index {
  exact: Map<string, CatalogEntry>;
  alias: Map<string, CatalogEntry>;
  loose: Map<string, CatalogEntry>;
}

function buildIndex(entries: readonly CatalogEntry[]): Index {
  const index: Index = { exact: new Map(), alias: new Map(), loose: new Map() };
  for (const e of entries) {
    index.exact.set(e.id.toLowerCase(), e);
    for (const a of e.aliases ?? []) index.alias.set(a.toLowerCase(), e);
  }
  // only names without a provider prefix make loose keys: "qwen/qwen3-coder" names the 480B,
  // while a bare "qwen3-coder" is Ollama's 30B
  for (const e of entries) {
    for (const name of [e.id, ...(e.aliases ?? [])]) {
      if (name.includes("/")) continue;
      const key = looseKey(name);
      if (!index.loose.has(key)) index.loose.set(key, e);
    }
  }
  return index;
}

const INDEX = buildIndex(CATALOG);

/** The entries that share a loose key with another entry (a catalog that is ambiguous; tests keep this empty). */
export function looseKeyClashes(entries: readonly CatalogEntry[] = CATALOG): string[] {
  const owner = new Map<string, string>();
  const clashes: string[] = [];
  for (const e of entries) {
    for (const name of [e.id, ...(e.aliases ?? [])]) {
      if (name.includes("/")) continue;
      const key = looseKey(name);
      const other = owner.get(key);
      if (other !== undefined && other !== e.id) clashes.push(`${key}: ${other} and ${e.id}`);
      owner.set(key, e.id);
    }
  }
  return clashes;
}

/** The catalog entry for an id served by any provider, and how it matched; undefined if none. */
export function lookupModel(id: string): CatalogMatch | undefined {
  const lower = id.trim().toLowerCase();
  if (!lower) return undefined;
  const exact = INDEX.exact.get(lower);
  if (exact) return { entry: exact, how: "exact", matched: exact.id };
  const alias = INDEX.alias.get(lower);
  if (alias) return { entry: alias, how: "alias", matched: lower };
  // "router/qwen/qwen3-coder": try "qwen/qwen3-coder", then "qwen3-coder"
  const segments = lower.split("/");
  for (let i = 1; i < segments.length; i++) {
    const rest = segments.slice(i).join("/");
    const e = INDEX.exact.get(rest) ?? INDEX.alias.get(rest);
    if (e) return { entry: e, how: "normalized", matched: rest };
  }
  const key = looseKey(lower);
  const loose = INDEX.loose.get(key);
  if (loose) return { entry: loose, how: "normalized", matched: key };
  // "llama3.1:405b-instruct-q4_K_M" -> "llama3-1": every size of the family has the same figures
  const family = key.replace(SIZE, "");
  const byFamily = family && family !== key ? INDEX.loose.get(family) : undefined;
  if (byFamily) return { entry: byFamily, how: "family", matched: family };
  return undefined;
}

export interface CatalogModelOptions {
  /** the id as the provider serves it (default: the catalog's id) */
  id?: string;
  /** a local server: nothing to pay, whatever the vendor's API charges */
  free?: boolean;
}

const FREE: ModelInfo["pricing"] = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/**
 * The model as pith uses it. The window is the prompt limit where the vendor states one apart
 * (GPT-5: 272k of 400k): compaction must keep the prompt under it, and the reply has its own limit.
 */
export function catalogModelInfo(entry: CatalogEntry, provider: string, options: CatalogModelOptions = {}): ModelInfo {
  return {
    id: options.id ?? entry.id,
    provider,
    name: entry.name,
    contextWindow: entry.maxInputTokens ?? entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens,
    pricing: options.free || !entry.pricing ? FREE : entry.pricing,
    thinking: entry.thinking,
  };
}
