// Conversation framing on an OpenAI-compatible server (prefix caching is automatic there): the
// summary request's messages begin with the agent's last request's, byte for byte, with the same
// tools, then the reply and the ask.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeOpenAI, textReply, type FakeOpenAI } from "../support/fake-openai.js";
import { bigText, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

let oai: FakeOpenAI;
before(async () => {
  oai = await startFakeOpenAI();
});
after(async () => {
  await oai.close();
});

test("openai-completions: the summary request is the last agent request with the reply and the ask after it", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  oai.setModels([{ id: "coder", object: "model", owned_by: "vllm", max_model_len: 60_000 }]);
  writeSettings(home, { providers: { vllm: { api: "openai-completions", baseUrl: oai.baseURL } }, compaction: { keepRecentTokens: 200, prepareAt: 0 } });
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd, model: "vllm/coder" });
  oai.enqueue(textReply("first answer"));
  await d.peer.runPrompt(s.sessionId, bigText("ONE"), 30_000);
  oai.enqueue(textReply("second answer"));
  await d.peer.runPrompt(s.sessionId, bigText("TWO"), 30_000);
  const chats = oai.requests.filter((r) => r.path === "/v1/chat/completions");
  const agent = chats[chats.length - 1];
  oai.enqueue(textReply("OPENAI SUMMARY"));
  const result = await d.peer.request("compact", { sessionId: s.sessionId });
  assert.match(result.summary, /OPENAI SUMMARY/);
  const summary = oai.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)!;
  assert.notEqual(summary, agent);
  assert.equal(JSON.stringify(summary.body.tools), JSON.stringify(agent.body.tools));
  assert.ok(JSON.stringify(summary.body.messages).startsWith(JSON.stringify(agent.body.messages).slice(0, -1)), "the agent's messages first, byte for byte");
  const rest = (summary.body.messages as { role: string; content: unknown }[]).slice(agent.body.messages.length);
  assert.deepEqual(rest.map((m) => m.role), ["assistant", "user"]);
  assert.match(JSON.stringify(rest[1].content), /Do not call any tool/);
  d.endStdin();
  await d.waitExit();
});
