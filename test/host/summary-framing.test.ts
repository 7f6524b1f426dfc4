// Which framing a summary uses: conversation where the provider caches a repeated prefix and the
// session's own model writes it; transcript for the scripted provider, Ollama, another model, or
// when the setting says so.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compactionSettings } from "../../src/compaction/index.js";
import { framingOf } from "../../src/host/compaction/context-budget.js";
import type { ModelInfo } from "../../src/llm/types.js";

const model = (over: Partial<ModelInfo>): ModelInfo => ({ id: "m", provider: "p", contextWindow: 100_000, maxOutputTokens: 4000, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, thinking: "none", ...over });

test("conversation where the provider caches; transcript for scripted, ollama, another model, or by setting", () => {
  const s = compactionSettings();
  for (const api of ["anthropic", "openai-responses", "openai-completions"] as const) assert.equal(framingOf(s, model({ api }), model({ api })), "conversation", api);
  assert.equal(framingOf(s, model({ api: "ollama" }), model({ api: "ollama" })), "transcript");
  assert.equal(framingOf(s, model({ provider: "scripted" }), model({ provider: "scripted" })), "transcript", "the scripted provider speaks no API");
  assert.equal(framingOf(s, model({ api: "anthropic" }), model({ api: "anthropic", id: "other" })), "transcript", "another model");
  assert.equal(framingOf({ ...s, summaryFraming: "transcript" }, model({ api: "anthropic" }), model({ api: "anthropic" })), "transcript");
  assert.equal(framingOf({ ...s, summaryFraming: "conversation" }, model({ api: "anthropic" }), model({ api: "anthropic", id: "other" })), "transcript", "never another model's cache");
});
