// OpenAI-compatible servers through the real daemon with the real `openai` SDK: vLLM's window from
// its model list, a prompt with a tool call, an overflow (vLLM's body) recovered by compacting and
// retrying, a session that moves Anthropic -> OpenAI-compatible -> Anthropic, and a summarizer on
// another provider than the session's.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import * as anthropic from "../support/fake-anthropic.js";
import { startFakeOpenAI, textReply, toolCallReply, type FakeOpenAI } from "../support/fake-openai.js";
import { agentEnd, bigText, byType, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let oai: FakeOpenAI;
let claude: anthropic.FakeAnthropic;
before(async () => {
  oai = await startFakeOpenAI();
  claude = await anthropic.startFakeAnthropic();
});
after(async () => {
  await oai.close();
  await claude.close();
});

const chats = (from: number) => oai.requests.slice(from).filter((r) => r.path === "/v1/chat/completions");

test("vLLM: the window from max_model_len; a tool call; an overflow in vLLM's words is compacted and retried", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeFileSync(join(cwd, "a.txt"), "the answer is 42\n");
  oai.setModels([{ id: "qwen3-coder", object: "model", owned_by: "vllm", max_model_len: 24_000 }]);
  writeSettings(home, { providers: { vllm: { api: "openai-completions", baseUrl: oai.baseURL, apiKeyEnv: "VLLM_KEY" } }, compaction: { keepRecentTokens: 1000 } });
  const d = startRpcDaemon(t, { home, cwd, env: { VLLM_KEY: "vllm-secret-0123" } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: "vllm/qwen3-coder" });
  assert.equal(s.state.contextWindow, 24_000);
  let from = oai.requests.length;
  oai.enqueue(toolCallReply("read", { path: "a.txt" }), textReply("It says 42."));
  const run = await d.peer.runPrompt(s.sessionId, "what does a.txt say?", 30_000);
  assert.equal(agentEnd(run.events).stopReason, "stop");
  const sent = chats(from);
  assert.equal(sent.length, 2);
  assert.equal(sent[0]!.headers.authorization, "Bearer vllm-secret-0123", "the provider's own key");
  assert.match(JSON.stringify(sent[1]!.body.messages), /the answer is 42/);
  assert.ok(sent.every((r) => r.body.max_tokens <= 24_000), "max_tokens within the window");

  // history, then a window the server enforces below what it reported: vLLM's overflow body
  for (let i = 0; i < 3; i++) assert.equal(agentEnd((await d.peer.runPrompt(s.sessionId, bigText(`PART-${i}`, 1500), 30_000)).events).stopReason, "stop");
  oai.setContextLimit(6000, "vllm");
  t.after(() => oai.setContextLimit(undefined));
  from = oai.requests.length;
  const over = await d.peer.runPrompt(s.sessionId, "and now?", 30_000);
  assert.equal(agentEnd(over.events).stopReason, "stop", JSON.stringify(byType(over.events, "error")));
  // the overflow is recovered by a compaction first (a threshold one may follow: the window learned is small)
  assert.equal(byType(over.events, "compaction_start")[0]?.reason, "overflow");
  const state = await d.peer.request("getState", { sessionId: s.sessionId });
  assert.ok(state.contextWindow <= 6000, `learned ${state.contextWindow}`);
  d.endStdin();
  await d.waitExit();
});

test("a session moves Anthropic -> OpenAI-compatible -> Anthropic; the summarizer may be another provider's model", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  oai.setModels([]);
  writeSettings(home, { providers: { local: { api: "openai-completions", baseUrl: oai.baseURL } }, compaction: { model: "local/summarizer-8b", keepRecentTokens: 500 } });
  const d = startRpcDaemon(t, { home, cwd, fake: claude });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: "claude-sonnet-4-5" });
  claude.enqueue(anthropic.thinkingReply("let me think", "sig-abc", "Claude here."));
  assert.equal(agentEnd((await d.peer.runPrompt(s.sessionId, bigText("FIRST", 800), 30_000)).events).stopReason, "stop");

  await d.peer.request("setModel", { sessionId: s.sessionId, model: "local/qwen3-coder" });
  let from = oai.requests.length;
  oai.enqueue(toolCallReply("ls", { path: "." }, { id: "call_abc|fc_1" }), textReply("Local here."));
  assert.equal(agentEnd((await d.peer.runPrompt(s.sessionId, "list the files", 30_000)).events).stopReason, "stop");
  const toLocal = chats(from)[0]!.body.messages as { role: string; content: unknown; reasoning_content?: unknown }[];
  assert.doesNotMatch(JSON.stringify(toLocal), /sig-abc|let me think/, "Claude's signed thinking is not sent to another provider");
  assert.match(JSON.stringify(toLocal), /Claude here\./);

  await d.peer.request("setModel", { sessionId: s.sessionId, model: "anthropic/claude-sonnet-4-5" });
  const back = claude.requests.length;
  claude.enqueue(anthropic.textReply("Back on Claude."));
  assert.equal(agentEnd((await d.peer.runPrompt(s.sessionId, "still there?", 30_000)).events).stopReason, "stop");
  const toClaude = JSON.stringify(claude.requests[back]!.body.messages);
  assert.match(toClaude, /Local here\./);
  for (const id of [...toClaude.matchAll(/"(?:id|tool_use_id)":"([^"]+)"/g)].map((m) => m[1]!)) assert.match(id, /^[a-zA-Z0-9_-]{1,64}$/, `a tool id Anthropic takes: ${id}`);
  assert.match(toClaude, /sig-abc/, "Claude's own thinking goes back to Claude");

  // a manual compaction: the summary is written by the local model, not Claude
  from = oai.requests.length;
  const claudeBefore = claude.requests.length;
  oai.enqueue(textReply("## Goal\nSUMMARY-BY-LOCAL"));
  const c = await d.peer.request("compact", { sessionId: s.sessionId });
  assert.match(JSON.stringify(c), /SUMMARY-BY-LOCAL/);
  // (the turn cut in two is summarized in two requests)
  const summarizer = chats(from);
  assert.ok(summarizer.length >= 1, "the summary came from the local server");
  assert.ok(summarizer.every((r) => r.body.model === "summarizer-8b"), JSON.stringify(summarizer.map((r) => r.body.model)));
  assert.equal(claude.requests.length, claudeBefore, "no summary request to Claude");
  d.endStdin();
  await d.waitExit();
  await drainFake(claude);
});
