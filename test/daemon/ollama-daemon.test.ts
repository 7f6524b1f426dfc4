// Ollama through the real daemon: the window comes from the server (/api/show) and goes back as
// num_ctx, a prompt with a tool call works, and a prompt the server cut without a word (its
// reported prompt_eval_count far below what was sent) is detected: an error event says so, the
// window is learned and a compaction runs before the next model call.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeOllama, ollamaText, ollamaToolCalls, type FakeOllama } from "../support/fake-ollama.js";
import { runCutPrompt } from "../support/cut-prompt.js";
import { agentEnd, byType, runPith, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

let ollama: FakeOllama;
before(async () => {
  ollama = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, capabilities: ["completion", "tools"] }] });
});
after(async () => {
  await ollama.close();
});

test("Ollama: the discovered window is the model's and num_ctx; a tool call runs; listModels says where the window came from", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeFileSync(join(cwd, "a.txt"), "the answer is 42\n");
  writeSettings(home, { providers: { box: { api: "ollama", baseUrl: ollama.url } } });
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: "box/qwen3:8b" });
  assert.deepEqual([s.state.model.provider, s.state.model.id, s.state.contextWindow], ["box", "qwen3:8b", 40_960]);
  const first = ollama.chatRequests.length;
  ollama.enqueue(ollamaToolCalls([{ name: "read", arguments: { path: "a.txt" } }]), ollamaText("It says 42."));
  const run = await d.peer.runPrompt(s.sessionId, "what does a.txt say?", 30_000);
  assert.equal(agentEnd(run.events).stopReason, "stop");
  const sent = ollama.chatRequests.slice(first);
  assert.equal(sent.length, 2);
  assert.ok(sent.every((r) => r.body.options.num_ctx === 40_960), JSON.stringify(sent.map((r) => r.body.options)));
  assert.match(JSON.stringify(sent[1]!.body.messages), /the answer is 42/, "the tool's result went back to the model");
  const { models } = await d.peer.request("listModels", {});
  const row = models.find((m) => m.provider === "box" && m.id === "qwen3:8b");
  assert.deepEqual([row?.contextWindow, row?.windowSource, row?.hasKey], [40_960, "discovered", true]);
  d.endStdin();
  await d.waitExit();
});

test("Ollama: a silently cut prompt is detected, the window learned, and the context compacted before the next call", async (t) => {
  const { d, sessionId, events, requestsBefore: before } = await runCutPrompt(t, ollama);
  const run = { events };
  assert.equal(agentEnd(run.events).stopReason, "stop");
  const cut = byType(run.events, "error").find((e) => (e.data as { truncated?: boolean } | undefined)?.truncated);
  assert.ok(cut, `no truncation error: ${JSON.stringify(byType(run.events, "error"))}`);
  assert.equal(cut.code, -32014);
  const data = cut.data as { class: string; reportedTokens: number; estimatedTokens: number };
  assert.equal(data.class, "overflow");
  assert.equal(data.reportedTokens, 2000);
  assert.ok(data.estimatedTokens > 2000 / 0.7, JSON.stringify(data));
  const started = byType(run.events, "compaction_start");
  assert.deepEqual(started.map((e) => e.reason), ["overflow"]);
  const state = await d.peer.request("getState", { sessionId });
  assert.equal(state.contextWindow, 2048, "the window the report implies: what it kept plus the reply");
  // the summary request went to the server too, and nothing after the cut reply was a model call on the cut context
  assert.ok(ollama.chatRequests.length > before + 1);
  d.endStdin();
  await d.waitExit();
});

test("pith models: each provider's key and server, each model's window and its source", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { providers: { box: { api: "ollama", baseUrl: ollama.url }, gone: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1" } } });
  const r = await runPith(["models"], { home, cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /box {2}\(ollama, http:\/\/127\.0\.0\.1:\d+\)\n {2}key: none needed\n {2}server: reachable \(ollama\): 1 model/);
  assert.match(r.stdout, /box\/qwen3:8b\s+40960 tokens {2}\(discovered\)|qwen3:8b\s+40960 tokens {2}\(discovered\)/);
  assert.match(r.stdout, /gone .*\n {2}key: none needed\n {2}server: unreachable: /);
  assert.match(r.stdout, /anthropic .*\n {2}key: ANTHROPIC_API_KEY is not set/);
  const json = await runPith(["models", "--json"], { home, cwd });
  const parsed = JSON.parse(json.stdout) as { providers: { name: string; server: { status: string } | null }[]; models: { provider: string; id: string; windowSource: string }[] };
  assert.equal(parsed.providers.find((p) => p.name === "box")?.server?.status, "ok");
  assert.equal(parsed.models.find((m) => m.provider === "box")?.windowSource, "discovered");
});
