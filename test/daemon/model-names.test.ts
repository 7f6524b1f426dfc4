// Model names through the real daemon, offline: nothing asked for an unknown model is silently
// replaced by the scripted demo any more (createSession, setModel, --model), a provider without
// its key says which variable to set, and listModels says where each window comes from.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RpcError, runPith, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

async function reason(p: Promise<unknown>): Promise<{ code: number; data: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RpcError, String(err));
    return { code: err.code, data: err.data as Record<string, unknown> };
  }
  assert.fail("expected an error");
}

test("offline: unknown, ambiguous and keyless models are -32602 with a reason; no model asked for is the demo", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, {
    providers: { one: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1" }, two: { api: "ollama", baseUrl: "http://127.0.0.1:9" } },
    models: [
      { id: "shared", provider: "one" },
      { id: "shared", provider: "two" },
    ],
  });
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  assert.deepEqual(await reason(d.peer.request("createSession", { cwd, model: "gpt-nothing" })), { code: -32602, data: { reason: "UnknownModel", model: "gpt-nothing" } });
  assert.equal((await reason(d.peer.request("createSession", { cwd, model: "nowhere/x" }))).data.reason, "UnknownModel");
  const ambiguous = await reason(d.peer.request("createSession", { cwd, model: "shared" }));
  assert.deepEqual(ambiguous.data, { reason: "AmbiguousModel", model: "shared", candidates: ["one/shared", "two/shared"] });
  const keyless = await reason(d.peer.request("createSession", { cwd, model: "claude-sonnet-5-5" }));
  assert.deepEqual(keyless.data, { reason: "NoApiKey", model: "claude-sonnet-5-5", provider: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" });

  const demo = await d.peer.request("createSession", { cwd });
  assert.equal(demo.state.model.id, "scripted");
  assert.equal((await reason(d.peer.request("setModel", { sessionId: demo.sessionId, model: "gpt-nothing" }))).data.reason, "UnknownModel");
  const local = await d.peer.request("setModel", { sessionId: demo.sessionId, model: "one/brand-new" });
  assert.deepEqual(local.model, { id: "brand-new", provider: "one", contextWindow: 32_768 });

  const { models } = await d.peer.request("listModels", {});
  const row = (p: string, id: string) => models.find((m) => m.provider === p && m.id === id);
  assert.deepEqual([row("one", "shared")?.hasKey, row("anthropic", "claude-sonnet-5-5")?.hasKey, row("anthropic", "claude-sonnet-5-5")?.windowSource], [true, false, "catalog"]);
  d.endStdin();
  await d.waitExit();
});

test("--model names an unknown model: the headless run fails with the reason, not the demo", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const r = await runPith(["--mode", "json", "--model", "gpt-nothing", "hi"], { home, cwd });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /unknown model gpt-nothing/);
  assert.doesNotMatch(r.stdout, /scripted/);
});
