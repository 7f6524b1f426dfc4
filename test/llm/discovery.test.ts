// Discovery over HTTP against fake servers on 127.0.0.1 that answer with real bodies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { discoverModels, serverRoot } from "../../src/llm/discovery/discover.js";
import { credentialsFor } from "../../src/llm/discovery/http.js";
import type { DiscoveryResult, DiscoveryTarget } from "../../src/llm/discovery/types.js";
import * as S from "../support/discovery-samples.js";
import { startFakeOllama } from "../support/fake-ollama.js";
import { startJsonServer, type JsonServer } from "../support/fake-json-server.js";

type Hooks = { after(fn: () => Promise<void> | void): void };

async function serve(t: Hooks, routes: Parameters<typeof startJsonServer>[0]): Promise<JsonServer> {
  const server = await startJsonServer(routes);
  t.after(() => server.close());
  return server;
}

function ok(r: DiscoveryResult): Extract<DiscoveryResult, { status: "ok" }> {
  assert.equal(r.status, "ok", JSON.stringify(r));
  return r as Extract<DiscoveryResult, { status: "ok" }>;
}

const compat = (server: JsonServer, extra: Partial<DiscoveryTarget> = {}): DiscoveryTarget => ({ api: "openai-completions", baseUrl: `${server.url}/v1`, ...extra });

test("vLLM: the windows from /v1/models, with the key sent to its own origin", async (t) => {
  const server = await serve(t, { "GET /v1/models": { body: S.VLLM_MODELS } });
  const r = ok(await discoverModels(compat(server, { apiKey: "vllm-key", headers: { "x-org": "lab" } })));
  assert.equal(r.server, "vllm");
  assert.deepEqual(r.models.map((m) => [m.id, m.contextWindow]), [["Qwen/Qwen2.5-Coder-32B-Instruct", 32768], ["sql-lora", 32768]]);
  assert.equal(server.requests[0].headers.authorization, "Bearer vllm-key");
  assert.equal(server.requests[0].headers["x-org"], "lab");
});

test("OpenRouter: windows, output limits and prices per million", async (t) => {
  const server = await serve(t, { "GET /api/v1/models": { body: S.OPENROUTER_MODELS } });
  const r = ok(await discoverModels({ api: "openai-completions", baseUrl: `${server.url}/api/v1` }));
  assert.equal(r.server, "openrouter");
  const coder = r.models.find((m) => m.id === "qwen/qwen3-coder")!;
  assert.equal(coder.contextWindow, 262144);
  assert.equal(coder.maxOutputTokens, 65536);
  assert.deepEqual(coder.pricing, { input: 0.22, output: 1, cacheRead: 0.022 });
});

test("LM Studio: the native /api/v1/models gives the loaded window; an older one falls back to /api/v0/models", async (t) => {
  const v1 = await serve(t, { "GET /v1/models": { body: S.LMSTUDIO_OPENAI_MODELS }, "GET /api/v1/models": { body: S.LMSTUDIO_V1_MODELS } });
  const r = ok(await discoverModels(compat(v1)));
  assert.equal(r.server, "lmstudio");
  assert.deepEqual(
    r.models.map((m) => [m.id, m.contextWindow, m.maxContextWindow]),
    [
      ["google/gemma-4-26b-a4b", 4096, 262144],
      ["deepseek-r1", undefined, 131072],
      ["text-embedding-nomic-embed-text-v1.5", undefined, undefined],
    ],
  );
  const v0 = await serve(t, {
    "GET /v1/models": { body: { data: S.LMSTUDIO_V0_MODELS.data.map((m) => ({ id: m.id, object: "model", owned_by: "organization_owner" })), object: "list" } },
    "GET /api/v0/models": { body: S.LMSTUDIO_V0_MODELS },
  });
  const r0 = ok(await discoverModels(compat(v0)));
  assert.equal(r0.models.find((m) => m.id === "qwen2.5-7b-instruct")?.contextWindow, 8192);
  assert.deepEqual(v0.requests.map((q) => q.path), ["/v1/models", "/api/v1/models", "/api/v0/models"]);
});

test("llama.cpp: /props gives the window; without /props (404) the training window is used", async (t) => {
  const withProps = await serve(t, { "GET /v1/models": { body: S.LLAMACPP_MODELS }, "GET /props": { body: S.LLAMACPP_PROPS } });
  const r = ok(await discoverModels(compat(withProps)));
  assert.equal(r.server, "llamacpp");
  assert.deepEqual(r.models[0], { id: "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", maxContextWindow: 131072, vision: false, contextWindow: 16384, windowFrom: "props default_generation_settings.n_ctx" });
  const noProps = await serve(t, { "GET /v1/models": { body: S.LLAMACPP_MODELS } });
  const r2 = ok(await discoverModels(compat(noProps)));
  assert.equal(r2.models[0].contextWindow, 131072);
  assert.equal(r2.models[0].windowFrom, "meta.n_ctx_train (no /props)");
});

test("llama.cpp router: /props is asked only for loaded models, never loading one", async (t) => {
  const server = await serve(t, {
    "GET /v1/models": { body: S.LLAMACPP_ROUTER_MODELS },
    "GET /props": { answer: (_b, q) => (q.get("model") === "ggml-org/gemma-3-4b-it-GGUF:Q4_K_M" ? { body: { default_generation_settings: { n_ctx: 4096 } } } : { status: 400, body: { error: "model is not loaded" } }) },
  });
  const r = ok(await discoverModels(compat(server)));
  assert.deepEqual(r.models.map((m) => [m.id, m.contextWindow]), [["ggml-org/gemma-3-4b-it-GGUF:Q4_K_M", 4096], ["Qwen3-8B-Q4_K_M", undefined]]);
  const props = server.requests.filter((q) => q.path === "/props");
  assert.equal(props.length, 1);
  assert.equal(props[0].query.get("autoload"), "false");
});

test("Ollama: /api/tags then /api/show per model; a num_ctx parameter wins; one failing show keeps the others", async (t) => {
  const server = await startFakeOllama({
    models: [
      { name: "qwen3:8b", arch: "qwen3", contextLength: 40960, capabilities: ["completion", "tools", "thinking"] },
      { name: "llama3.1:8b", contextLength: 131072, numCtx: 16384, capabilities: ["completion", "tools"] },
      { name: "qwen3-coder:30b", arch: "qwen3moe", contextLength: 262144, capabilities: ["completion", "tools"], contextLengthInTags: true },
    ],
  });
  t.after(() => server.close());
  const r = ok(await discoverModels({ api: "ollama", baseUrl: server.url, apiKey: "k" }));
  assert.equal(r.server, "ollama");
  assert.deepEqual(r.models.find((m) => m.id === "qwen3:8b"), { id: "qwen3:8b", contextWindow: 40960, windowFrom: "model_info context_length", thinking: true, tools: true, vision: false });
  assert.deepEqual(r.models.find((m) => m.id === "llama3.1:8b"), { id: "llama3.1:8b", contextWindow: 16384, windowFrom: "parameters num_ctx", maxContextWindow: 131072, thinking: false, tools: true, vision: false });
  assert.equal(r.models.find((m) => m.id === "qwen3-coder:30b")?.contextWindow, 262144);
  const shows = server.requests.filter((q) => q.path === "/api/show").map((q) => q.body.model).sort();
  assert.deepEqual(shows, ["llama3.1:8b", "qwen3:8b"], "a listing that carries the window and capabilities needs no /api/show");
  assert.ok(server.requests.every((q) => q.headers.authorization === "Bearer k"));

  // a listing with a model /api/show does not know
  server.setModels([{ name: "qwen3:8b", contextLength: 40960 }]);
  const tagsOnly = await serve(t, {
    "GET /api/tags": { body: { models: [{ name: "ghost:1b" }, { name: "real:1b" }] } },
    "POST /api/show": { answer: (b) => (b.model === "real:1b" ? { body: S.OLLAMA_SHOW_LLAVA } : { status: 404, body: { error: `model '${b.model}' not found` } }) },
  });
  const r2 = ok(await discoverModels({ api: "ollama", baseUrl: tagsOnly.url }));
  assert.deepEqual(r2.models.map((m) => [m.id, m.contextWindow]), [["ghost:1b", undefined], ["real:1b", 8192]]);
});

test("a hung server is bounded by the timeout, before headers and in the middle of the body", async (t) => {
  const server = await serve(t, { "GET /v1/models": { hang: true }, "GET /api/tags": { body: {}, hangBody: true } });
  const t0 = Date.now();
  const r = await discoverModels(compat(server), { timeoutMs: 150 });
  assert.equal(r.status, "unreachable");
  assert.equal(r.status === "unreachable" && r.failure, "timeout");
  assert.match(r.status === "unreachable" ? r.reason : "", /did not answer within 150 ms/);
  const r2 = await discoverModels({ api: "ollama", baseUrl: server.url }, { timeoutMs: 150 });
  assert.equal(r2.status === "unreachable" && r2.failure, "timeout");
  assert.ok(Date.now() - t0 < 5000, "both gave up long before any default timeout");
});

test("a 401 is reported with its status, not thrown", async (t) => {
  const server = await serve(t, { "GET /v1/models": { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } } });
  const r = await discoverModels(compat(server, { apiKey: "wrong" }));
  assert.equal(r.status, "unreachable");
  if (r.status !== "unreachable") return;
  assert.equal(r.failure, "auth");
  assert.equal(r.httpStatus, 401);
  assert.match(r.reason, /401.*Incorrect API key/);
});

test("nothing listening, bad JSON, a body too large: reported, never thrown", async (t) => {
  const down = await startJsonServer();
  const url = down.url;
  await down.close();
  const r = await discoverModels({ api: "ollama", baseUrl: url });
  assert.equal(r.status === "unreachable" && r.failure, "network");
  assert.match(r.status === "unreachable" ? r.reason : "", /ECONNREFUSED/);
  const bad = await serve(t, { "GET /v1/models": { raw: "<html>oops</html>" } });
  const r2 = await discoverModels(compat(bad));
  assert.equal(r2.status === "unreachable" && r2.failure, "bad_body");
  const { requestJson } = await import("../../src/llm/discovery/http.js");
  const big = await serve(t, { "GET /big": { raw: "x".repeat(5000) } });
  const r3 = await requestJson({ api: "ollama", baseUrl: big.url }, `${big.url}/big`, { timeoutMs: 1000, maxBytes: 1000 });
  assert.equal(!r3.ok && r3.failure, "bad_body");
});

test("the key never goes to another origin: a redirect is not followed, and other hosts get no credentials", async (t) => {
  const elsewhere = await serve(t, { "GET /v1/models": { body: S.VLLM_MODELS } });
  const server = await serve(t, { "GET /v1/models": { status: 302, headers: { location: `${elsewhere.url}/v1/models` } } });
  const r = await discoverModels(compat(server, { apiKey: "secret" }));
  assert.equal(r.status === "unreachable" && r.failure, "redirect");
  assert.equal(elsewhere.requests.length, 0);
  const target: DiscoveryTarget = { api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1", apiKey: "secret", headers: { "x-h": "1" } };
  assert.deepEqual(credentialsFor(target, "http://127.0.0.1:8080/props"), { "x-h": "1", authorization: "Bearer secret" });
  assert.deepEqual(credentialsFor(target, "http://127.0.0.1:8081/props"), {});
  assert.deepEqual(credentialsFor(target, "https://127.0.0.1:8080/props"), {});
  assert.deepEqual(credentialsFor(target, "not a url"), {});
});

test("anthropic has no discovery; server roots drop /v1", async () => {
  assert.equal((await discoverModels({ api: "anthropic", baseUrl: "https://api.anthropic.com" })).status, "unsupported");
  assert.equal(serverRoot("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
  assert.equal(serverRoot("http://127.0.0.1:1234"), "http://127.0.0.1:1234");
});
