// Models you can use first, through the real daemon and binary with a local OpenAI-compatible
// server (the fake) that lists its models: listModels and `pith models` put the usable ones
// first and mark the ones that need a key; a typo under that server is -32602 UnknownModel with
// the nearest names it does serve; a run refused before any model is asked (a typo, a missing
// key) leaves no session behind, while one that reached the provider keeps the user's prompt.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { authError, startFakeOpenAI, type FakeOpenAI } from "../support/fake-openai.js";
import { agentEnd, RpcError, runPith, startRpcDaemon, textOf, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

let oai: FakeOpenAI;
before(async () => {
  oai = await startFakeOpenAI();
  oai.setModels([
    { id: "qwen3-coder", object: "model", owned_by: "vllm", max_model_len: 24_000 },
    { id: "llama-3.1-8b", object: "model", owned_by: "vllm", max_model_len: 8_192 },
  ]);
});
after(() => oai.close());

async function refusal(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RpcError, String(err));
    assert.equal(err.code, -32602);
    return err.data as Record<string, unknown>;
  }
  assert.fail("expected -32602");
}

test("listModels: usable first; a typo is UnknownModel with candidates; refused creations leave no session, a failed run keeps the prompt", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { providers: { local: { api: "openai-completions", baseUrl: oai.baseURL } } });
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();

  const { models } = await d.peer.request("listModels", {});
  const firstKeyless = models.findIndex((m) => m.hasKey === false);
  assert.ok(firstKeyless > 0, "some catalog models need a key");
  assert.ok(models.slice(firstKeyless).every((m) => m.hasKey === false), "every model that needs a key comes after the usable ones");
  assert.deepEqual(models.slice(0, 2).map((m) => [m.provider, m.id, m.contextWindow]), [["local", "qwen3-coder", 24_000], ["local", "llama-3.1-8b", 8_192]], "the server's own models lead");

  assert.deepEqual(await refusal(d.peer.request("createSession", { cwd, model: "local/qwen3-codr" })), { reason: "UnknownModel", model: "local/qwen3-codr", candidates: ["local/qwen3-coder", "local/llama-3.1-8b"] });
  assert.equal((await refusal(d.peer.request("createSession", { cwd, model: "claude-sonnet-5-5" }))).reason, "NoApiKey");
  assert.deepEqual((await d.peer.request("listSessions", {})).sessions, [], "no session is left by a refused creation");

  const s = await d.peer.request("createSession", { cwd, model: "local/qwen3-coder" });
  assert.equal((await refusal(d.peer.request("setModel", { sessionId: s.sessionId, model: "local/llama3.1-8b" }))).candidates?.toString(), "local/llama-3.1-8b,local/qwen3-coder");
  oai.enqueue(authError());
  const run = await d.peer.runPrompt(s.sessionId, "keep me", 20_000);
  const end = agentEnd(run.events);
  assert.equal(end.stopReason, "error");
  assert.match(end.error?.message ?? "", new RegExp(`^provider local at ${oai.baseURL.replace(/[.]/g, "\\.")} refused the request \\(401\\): Incorrect API key.*\`pith models\``));
  const { messages } = await d.peer.request("getMessages", { sessionId: s.sessionId });
  assert.equal(textOf(messages[0]), "keep me", "the prompt that reached the provider is kept, to retry");
  assert.equal((await d.peer.request("listSessions", {})).sessions.length, 1);
  d.endStdin();
  await d.waitExit();
});

test("pith models lists what can be used first, then what needs a key; pith -p refused up front leaves no session", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { providers: { local: { api: "openai-completions", baseUrl: oai.baseURL } } });
  const r = await runPith(["models"], { home, cwd });
  assert.equal(r.code, 0, r.stderr);
  const [usable, keyless] = r.stdout.split("\nneed a key:\n");
  assert.match(usable!, /models you can use:\n {4}qwen3-coder\s+24000 tokens {2}\(discovered\)\n {4}llama-3\.1-8b\s+8192 tokens {2}\(discovered\)\n/);
  assert.doesNotMatch(usable!, /claude-/);
  assert.match(keyless!, /claude-sonnet-5-5\s+\d+ tokens {2}\(catalog\) {2}needs ANTHROPIC_API_KEY\n/);

  const typo = await runPith(["-p", "--model", "local/qwen3-codr", "hi"], { home, cwd });
  assert.notEqual(typo.code, 0);
  assert.match(typo.stderr, /unknown model local\/qwen3-codr: .*did you mean local\/qwen3-coder/);
  const noKey = await runPith(["-p", "--model", "claude-sonnet-5-5", "hi"], { home, cwd });
  assert.notEqual(noKey.code, 0);
  assert.match(noKey.stderr, /set ANTHROPIC_API_KEY/);
  const list = await runPith(["list"], { home, cwd });
  assert.doesNotMatch(list.stdout, /msgs/, `no session was left: ${list.stdout}`);
});
