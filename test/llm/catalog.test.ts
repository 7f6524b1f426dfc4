// The built-in catalog: consistent facts, and ids as every kind of server spells them matched to
// the right entry, saying how.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CATALOG, CATALOG_CHECKED, catalogModelInfo, lookupModel, looseKey, looseKeyClashes } from "../../src/llm/catalog.js";
import { BUILTIN_MODELS } from "../../src/llm/models.js";
import { repoRoot } from "../support/tmp.js";

test("every entry is sound: positive limits, output within the window, prices not negative, ids unique", () => {
  const ids = new Set<string>();
  for (const e of CATALOG) {
    assert.ok(!ids.has(e.id), `duplicate id ${e.id}`);
    ids.add(e.id);
    assert.ok(Number.isInteger(e.contextWindow) && e.contextWindow >= 8192, e.id);
    assert.ok(Number.isInteger(e.maxOutputTokens) && e.maxOutputTokens > 0 && e.maxOutputTokens <= e.contextWindow, e.id);
    if (e.maxInputTokens !== undefined) assert.ok(e.maxInputTokens < e.contextWindow, e.id);
    if (e.pricing) for (const v of Object.values(e.pricing)) assert.ok(v >= 0 && v < 1000, `${e.id} price ${v}`);
    if (e.pricing) assert.ok(e.pricing.cacheRead <= e.pricing.input, `${e.id}: a cache read costs no more than input`);
  }
  for (const family of ["openai", "anthropic", "google", "deepseek", "qwen", "llama", "mistral"]) assert.ok(CATALOG.some((e) => e.family === family), family);
});

test("no two entries answer to the same loosened name", () => {
  assert.deepEqual(looseKeyClashes(), []);
  assert.deepEqual(looseKeyClashes([...CATALOG, { ...CATALOG[0], id: "impostor", aliases: [CATALOG[0].id.toUpperCase()] }]).length, 1, "the check can fail");
});

test("each family's file says when its figures were checked and where they come from", () => {
  const dir = join(repoRoot, "src/llm/catalog");
  for (const f of readdirSync(dir).filter((n) => n !== "types.ts")) {
    const head = readFileSync(join(dir, f), "utf8").split("\n").filter((l) => l.startsWith("//")).join("\n");
    assert.match(head, /2026-11-26/, `${f} is dated`);
    assert.match(head, /models\.dev|\/api\/show|issue 1|model card/i, `${f} names its sources`);
  }
  assert.equal(CATALOG_CHECKED, "2026-11-26");
});

const CASES: [string, string, string][] = [
  // id as served, catalog id, how
  ["gpt-4.1", "gpt-4.1", "exact"],
  ["GPT-4.1", "gpt-4.1", "exact"],
  ["openai/gpt-4.1", "gpt-4.1", "normalized"],
  ["gpt-4o-2024-08-06", "gpt-4o", "normalized"],
  ["gpt-4o-mini", "gpt-4o-mini", "exact"],
  ["o4-mini", "o4-mini", "exact"],
  ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "normalized"],
  ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "normalized"],
  ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5", "normalized"],
  ["google/gemini-2.5-pro", "gemini-2.5-pro", "normalized"],
  ["gemini-2.5-flash", "gemini-2.5-flash", "exact"],
  ["deepseek-chat", "deepseek-chat", "exact"],
  ["deepseek/deepseek-r1-0528", "deepseek-r1", "alias"],
  ["deepseek-r1:8b", "deepseek-r1-distill", "alias"],
  ["deepseek-r1:latest", "deepseek-r1", "normalized"],
  ["qwen3-coder:30b", "qwen3-coder-30b-a3b", "alias"],
  ["qwen3-coder", "qwen3-coder-30b-a3b", "alias"],
  ["qwen3-coder:latest", "qwen3-coder-30b-a3b", "normalized"],
  ["qwen3-coder:30b-a3b-q4_K_M", "qwen3-coder-30b-a3b", "normalized"],
  ["qwen/qwen3-coder", "qwen3-coder-480b-a35b", "alias"],
  ["router/qwen/qwen3-coder", "qwen3-coder-480b-a35b", "normalized"],
  ["Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder-30b-a3b", "alias"],
  ["qwen/qwen3-coder:free", "qwen3-coder-30b-a3b", "normalized"],
  ["qwen3:8b", "qwen3", "alias"],
  ["qwen3:30b", "qwen3-30b-a3b-2507", "alias"],
  ["qwen2.5-coder:7b-instruct-q8_0", "qwen2.5-coder", "normalized"],
  ["qwen/qwen-2.5-coder-32b-instruct", "qwen2.5-coder", "alias"],
  ["llama3.1:8b", "llama-3.1", "alias"],
  ["llama3.1:405b-instruct-q4_K_M", "llama-3.1", "normalized"],
  ["../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3.1", "normalized"],
  ["Meta-Llama-3.1-70B-Instruct-IQ3_XS.gguf", "llama-3.1", "normalized"],
  ["llama3.2:11b", "llama-3.2", "family"],
  ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", "alias"],
  ["unsloth/Llama-3.3-70B-Instruct-GGUF", "llama-3.3-70b", "normalized"],
  ["llama3.2:latest", "llama-3.2", "normalized"],
  ["devstral:24b", "devstral-small-2507", "alias"],
  ["mistralai/devstral-2512", "devstral-2512", "alias"],
  ["codestral:22b", "codestral-22b", "alias"],
  ["mistral-large-latest", "mistral-large-2512", "alias"],
  ["gpt-oss:20b", "gpt-oss-20b", "alias"],
];

for (const [served, id, how] of CASES) {
  test(`lookup ${served} -> ${id} (${how})`, () => {
    const m = lookupModel(served);
    assert.ok(m, `${served} found`);
    assert.equal(m.entry.id, id);
    assert.equal(m.how, how);
  });
}

test("ids the catalog does not know are not guessed into another model", () => {
  for (const id of ["my-finetune", "", "   ", "gpt-6", "claude-sonnet-9", "qwen9:7b", "mistral-tiny-9999", "llama", "phi4:14b", "gemma3:27b", "llama-3.1-nemotron:51b", "deepseek-coder-v2:16b"]) assert.equal(lookupModel(id), undefined, id);
});

test("the loose form drops what does not change the model", () => {
  assert.equal(looseKey("meta-llama/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"), looseKey("llama3.1:8b"));
  assert.equal(looseKey("anthropic/claude-opus-4.5"), looseKey("claude-opus-4-5"));
  assert.equal(looseKey("qwen3-coder:30b-a3b-q4_K_M"), looseKey("qwen3-coder:30b-a3b"));
  assert.notEqual(looseKey("qwen3-coder:30b"), looseKey("qwen3-coder:480b"));
  assert.notEqual(looseKey("gpt-4o"), looseKey("gpt-4o-mini"));
});

test("as a ModelInfo: the served id kept, GPT-5's window is its prompt limit, local runs are free", () => {
  const coder = lookupModel("qwen3-coder:30b")!.entry;
  const local = catalogModelInfo(coder, "box", { id: "qwen3-coder:30b", free: true });
  assert.deepEqual(local, { id: "qwen3-coder:30b", provider: "box", name: "Qwen3-Coder 30B-A3B", contextWindow: 262_144, maxOutputTokens: 65_536, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, thinking: "none" });
  assert.deepEqual(catalogModelInfo(coder, "alibaba").pricing, { input: 0.45, output: 2.25, cacheRead: 0, cacheWrite: 0 });
  const gpt5 = catalogModelInfo(lookupModel("gpt-5")!.entry, "openai");
  assert.equal(gpt5.contextWindow, 272_000);
  assert.equal(gpt5.thinking, "adaptive");
  assert.equal(catalogModelInfo(lookupModel("llama3.1")!.entry, "router").pricing.input, 0, "no first-party price: zero, not a guess");
});

test("the Claude models of ModelRegistry come from the catalog, unchanged", () => {
  const claude = CATALOG.filter((e) => e.family === "anthropic").map((e) => catalogModelInfo(e, "anthropic"));
  assert.deepEqual(BUILTIN_MODELS, claude);
  const sonnet = BUILTIN_MODELS.find((m) => m.id === "claude-sonnet-4-5")!;
  assert.deepEqual(sonnet.pricing, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
});
