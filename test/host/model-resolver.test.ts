// Model names: provider/id split at the first "/" that names a provider, bare ids where one
// provider knows them, and the window's source in the order the issue sets (settings, discovered,
// catalog, default).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DiscoveredModel } from "../../src/llm/discovery/index.js";
import { ModelResolver } from "../../src/host/models/model-resolver.js";
import { resolveProviders } from "../../src/llm/provider-config.js";
import { HostError } from "../../src/host/host-error.js";

const env = { ANTHROPIC_API_KEY: "sk-ant", ROUTER_KEY: "rk" };
const providers = resolveProviders(
  {
    local: { api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1" },
    box: { api: "ollama", baseUrl: "http://127.0.0.1:11434" },
    router: { api: "openai-completions", baseUrl: "https://openrouter.ai/api/v1", apiKeyEnv: "ROUTER_KEY" },
    broken: { api: "openai-completions" },
  },
  env,
);
const discovered: Record<string, DiscoveredModel[]> = { box: [{ id: "qwen3:8b", contextWindow: 40_960 }, { id: "shared" }], local: [{ id: "shared", contextWindow: 8192 }] };
const resolver = new ModelResolver({
  providers,
  settings: { models: [{ id: "qwen3-coder", provider: "local", contextWindow: 32_768 }] },
  discovered: (p) => discovered[p],
});

function reasonOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof HostError, String(err));
    assert.equal(err.code, -32602);
    return (err.data as { reason?: unknown }).reason;
  }
  assert.fail("expected an error");
}

test("provider/id is split at the first slash that names a provider; the rest is the id", () => {
  const m = resolver.resolve("router/qwen/qwen3-coder");
  assert.deepEqual([m.provider, m.id, m.api], ["router", "qwen/qwen3-coder", "openai-completions"]);
  assert.equal(resolver.resolve("anthropic/claude-sonnet-5-5").id, "claude-sonnet-5-5");
});

test("a bare id works where one provider knows it (settings, catalog, discovery); two is AmbiguousModel", () => {
  assert.equal(resolver.resolve("qwen3-coder").provider, "local");
  assert.equal(resolver.resolve("claude-sonnet-5-5").provider, "anthropic");
  assert.equal(resolver.resolve("qwen3:8b").provider, "box");
  assert.equal(reasonOf(() => resolver.resolve("shared")), "AmbiguousModel");
});

test("an unknown provider or a bare id nobody knows is UnknownModel; a provider whose server listed nothing yet takes any id", () => {
  assert.equal(reasonOf(() => resolver.resolve("nowhere/x")), "UnknownModel");
  assert.equal(reasonOf(() => resolver.resolve("gpt-nothing")), "UnknownModel");
  const any = new ModelResolver({ providers, settings: {}, discovered: () => undefined }).resolve("local/brand-new-model");
  assert.equal(any.windowSource, "default");
  assert.ok(any.contextWindow > 0 && any.contextWindow <= 32_768);
});

test("an id a server's list does not hold is UnknownModel with the nearest it does; one in settings is taken", () => {
  try {
    resolver.resolve("box/qwen3:7b");
    assert.fail("expected UnknownModel");
  } catch (err) {
    assert.deepEqual((err as HostError).data, { reason: "UnknownModel", model: "box/qwen3:7b", candidates: ["box/qwen3:8b", "box/shared"] });
  }
  assert.equal(resolver.resolve("local/qwen3-coder").windowSource, "settings", "a model the user described is theirs to name");
});

test("a provider whose key variable is unset is NoApiKey naming the variable; a misconfigured one says so", () => {
  const noKeys = new ModelResolver({ providers: resolveProviders({}, {}), settings: {}, discovered: () => undefined });
  try {
    noKeys.resolve("anthropic/claude-sonnet-5-5");
    assert.fail("expected NoApiKey");
  } catch (err) {
    assert.deepEqual((err as HostError).data, { reason: "NoApiKey", model: "anthropic/claude-sonnet-5-5", provider: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" });
  }
  assert.equal(reasonOf(() => resolver.resolve("broken/x")), "ProviderMisconfigured");
});

test("window sources: settings over discovered over catalog over the default", () => {
  assert.equal(resolver.resolve("qwen3-coder").windowSource, "settings");
  const d = resolver.resolve("box/qwen3:8b");
  assert.deepEqual([d.contextWindow, d.windowSource], [40_960, "discovered"]);
  assert.equal(resolver.resolve("claude-sonnet-5-5").windowSource, "catalog");
});

test("nameOf gives the bare id where it is unique and provider/id otherwise; list says which have a key", () => {
  assert.equal(resolver.nameOf({ provider: "anthropic", id: "claude-sonnet-5-5" }), "claude-sonnet-5-5");
  assert.equal(resolver.nameOf({ provider: "box", id: "shared" }), "box/shared");
  assert.equal(resolver.nameOf({ provider: "router", id: "qwen/qwen3-coder" }), "router/qwen/qwen3-coder");
  const list = resolver.list();
  assert.ok(list.some((m) => m.provider === "box" && m.id === "qwen3:8b" && m.hasKey));
  assert.ok(list.some((m) => m.provider === "anthropic" && m.hasKey));
  assert.ok(!list.some((m) => m.provider === "broken"));
});

test("a built-in's key never goes to another provider: only the entry's own variable is read", () => {
  const p = resolveProviders({ local: { api: "anthropic", baseUrl: "http://127.0.0.1:9" } }, { ANTHROPIC_API_KEY: "secret" });
  assert.equal(p.get("local")?.apiKey, undefined);
  assert.equal(p.get("anthropic")?.apiKey, "secret");
  const over = resolveProviders({ anthropic: { api: "anthropic", baseUrl: "http://127.0.0.1:9" } }, { ANTHROPIC_API_KEY: "secret" });
  assert.deepEqual([over.get("anthropic")?.apiKey, over.get("anthropic")?.baseUrl], ["secret", "http://127.0.0.1:9"]);
});
