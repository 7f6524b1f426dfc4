// The pure discovery parsers against real bodies of each server (test/support/discovery-samples.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseOllamaShow, parseOllamaTags, parametersNumCtx, showContextLength } from "../../src/llm/discovery/parse-ollama.js";
import { llamaCppLoadedIds, parseLlamaCppProps, parseLmStudioModels, parseOpenAiModels, serverKindOf } from "../../src/llm/discovery/parse-openai.js";
import * as S from "../support/discovery-samples.js";

test("vLLM: max_model_len is the window", () => {
  assert.equal(serverKindOf(S.VLLM_MODELS), "vllm");
  assert.deepEqual(parseOpenAiModels(S.VLLM_MODELS), [
    { id: "Qwen/Qwen2.5-Coder-32B-Instruct", contextWindow: 32768, windowFrom: "max_model_len" },
    { id: "sql-lora", contextWindow: 32768, windowFrom: "max_model_len" },
  ]);
});

test("OpenRouter: context_length, the top provider's output limit, prices per token turned into per million", () => {
  assert.equal(serverKindOf(S.OPENROUTER_MODELS), "openrouter");
  const [coder, gpt4o] = parseOpenAiModels(S.OPENROUTER_MODELS);
  assert.deepEqual(coder, { id: "qwen/qwen3-coder", contextWindow: 262144, windowFrom: "context_length", maxOutputTokens: 65536, pricing: { input: 0.22, output: 1, cacheRead: 0.022 }, tools: true, thinking: false, vision: false });
  assert.equal(gpt4o.maxOutputTokens, 16384);
  assert.deepEqual(gpt4o.pricing, { input: 2.5, output: 10, cacheRead: 1.25 });
  assert.equal(gpt4o.vision, true);
});

test("LM Studio: the compatible list has no windows; the native lists give the loaded window and the maximum", () => {
  assert.equal(serverKindOf(S.LMSTUDIO_OPENAI_MODELS), "lmstudio");
  assert.deepEqual(parseOpenAiModels(S.LMSTUDIO_OPENAI_MODELS).map((m) => m.contextWindow), [undefined, undefined, undefined]);
  assert.deepEqual(parseLmStudioModels(S.LMSTUDIO_V1_MODELS), [
    { id: "google/gemma-4-26b-a4b", contextWindow: 4096, windowFrom: "loaded_instances.config.context_length", maxContextWindow: 262144, vision: true, tools: true, thinking: true },
    { id: "deepseek-r1", maxContextWindow: 131072, vision: false, tools: true, thinking: true },
  ]);
  assert.deepEqual(parseLmStudioModels(S.LMSTUDIO_V0_MODELS), [
    { id: "qwen2.5-7b-instruct", contextWindow: 8192, windowFrom: "loaded_context_length", maxContextWindow: 32768 },
    { id: "meta-llama-3.1-8b-instruct", maxContextWindow: 131072 },
  ]);
});

test("llama.cpp: n_ctx_train is only the training window; /props gives the slot's window; router mode lists what is loaded", () => {
  assert.equal(serverKindOf(S.LLAMACPP_MODELS), "llamacpp");
  assert.deepEqual(parseOpenAiModels(S.LLAMACPP_MODELS), [{ id: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", maxContextWindow: 131072, vision: false }]);
  assert.equal(parseLlamaCppProps(S.LLAMACPP_PROPS), 16384);
  assert.equal(parseLlamaCppProps({ n_ctx: 8192 }), 8192);
  assert.equal(parseLlamaCppProps({}), undefined);
  assert.equal(serverKindOf(S.LLAMACPP_ROUTER_MODELS), "llamacpp");
  assert.deepEqual(llamaCppLoadedIds(S.LLAMACPP_ROUTER_MODELS), ["ggml-org/gemma-3-4b-it-GGUF:Q4_K_M"]);
});

test("a plain OpenAI-compatible list (OpenAI itself, Groq's context_window, Mistral's max_context_length)", () => {
  assert.equal(serverKindOf({ object: "list", data: [{ id: "gpt-4.1", object: "model", created: 1744316542, owned_by: "system" }] }), "openai-compatible");
  assert.deepEqual(parseOpenAiModels({ data: [{ id: "gpt-4.1", object: "model", owned_by: "system" }] }), [{ id: "gpt-4.1" }]);
  assert.deepEqual(parseOpenAiModels({ data: [{ id: "llama-3.3-70b-versatile", object: "model", owned_by: "Meta", context_window: 131072, max_completion_tokens: 32768 }] }), [
    { id: "llama-3.3-70b-versatile", contextWindow: 131072, windowFrom: "context_window", maxOutputTokens: 32768 },
  ]);
  assert.deepEqual(parseOpenAiModels({ data: [{ id: "codestral-2508", max_context_length: 256000 }] }), [{ id: "codestral-2508", contextWindow: 256000, windowFrom: "max_context_length" }]);
});

test("bodies that are not what they should be give no models, never an exception", () => {
  for (const body of [null, 42, "x", [], { data: "nope" }, { data: [null, 1, { id: 3 }, { id: "" }] }, { models: {} }]) {
    assert.deepEqual(parseOpenAiModels(body), []);
    assert.deepEqual(parseLmStudioModels(body), []);
    assert.deepEqual(parseOllamaTags(body), []);
    assert.equal(parseLlamaCppProps(body), undefined);
  }
  assert.deepEqual(parseOpenAiModels({ data: [{ id: "m", max_model_len: -5, context_length: "NaN" }] }), [{ id: "m" }]);
  assert.deepEqual(parseOpenAiModels({ data: [{ id: "m", context_length: "65536" }] }), [{ id: "m", contextWindow: 65536, windowFrom: "context_length" }]);
});

test("Ollama /api/tags: names, and the window when a newer server lists it", () => {
  assert.deepEqual(parseOllamaTags(S.OLLAMA_TAGS), [{ id: "deepseek-r1:latest" }, { id: "llama3.2:latest" }]);
  assert.deepEqual(parseOllamaTags({ models: [{ name: "qwen3:8b", details: { context_length: 40960 }, capabilities: ["completion", "thinking"] }] }), [{ id: "qwen3:8b", contextLength: 40960, capabilities: ["completion", "thinking"] }]);
});

test("Ollama /api/show: <arch>.context_length chosen by general.architecture, a num_ctx parameter wins, capabilities read", () => {
  assert.deepEqual(parseOllamaShow("llava:latest", S.OLLAMA_SHOW_LLAVA), { id: "llava:latest", contextWindow: 8192, windowFrom: "model_info context_length", thinking: false, tools: false, vision: true });
  assert.deepEqual(parseOllamaShow("qwen3:30b", S.OLLAMA_SHOW_QWEN3_MOE), { id: "qwen3:30b", contextWindow: 32768, windowFrom: "parameters num_ctx", maxContextWindow: 262144, thinking: true, tools: true, vision: false });
  assert.equal(showContextLength({ "qwen3.context_length": 40960, "qwen3.rope.scaling.original_context_length": 4096 }), 40960, "no architecture key: the one <arch>.context_length");
  assert.equal(showContextLength({ "a.context_length": 1, "b.context_length": 2 }), undefined, "two candidates and no architecture: unknown");
  assert.equal(parametersNumCtx("num_ctx 999999\n"), 999999);
  assert.equal(parseOllamaShow("x", { parameters: "num_ctx 999999", model_info: { "general.architecture": "llama", "llama.context_length": 8192 } }).contextWindow, 8192, "num_ctx above the model's window is cut to it, as Ollama does");
  assert.deepEqual(parseOllamaShow("x", "garbage"), { id: "x" });
});
