// The agent's last request as sent, and when conversation framing may send it again: only while
// the context still starts with it, for the same model, and while its cache is likely warm.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LastRequest, WARM_FOR_MS } from "../../src/host/compaction/last-request.js";
import type { ModelInfo, Provider, StreamEvent, StreamRequest } from "../../src/llm/types.js";
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";

const MODEL: ModelInfo = { id: "m", provider: "anthropic", api: "anthropic", contextWindow: 100_000, maxOutputTokens: 4000, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, thinking: "none" };
const reply = (content: AssistantMessage["content"]): AssistantMessage =>
  ({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", stopReason: "stop", timestamp: 0, usage: { input: 1, output: 2, cacheRead: 300, cacheWrite: 0, totalTokens: 303, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 } } }) as AssistantMessage;

function fakeProvider(answer: AssistantMessage): Provider & { seen: StreamRequest[] } {
  const seen: StreamRequest[] = [];
  return {
    name: "fake",
    seen,
    async *stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
      seen.push(request);
      yield { type: "done", message: answer };
    },
  };
}

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 0 });

test("the summary request is the recorded one with the rest of the context and the ask after it; the reply's tool call is not run, its text is the summary", async () => {
  let now = 1000;
  const last = new LastRequest(() => now);
  const answer = reply([{ type: "text", text: "NOTES" }, { type: "toolCall", id: "t1", name: "bash", arguments: { command: "rm -rf /" } }]);
  const provider = fakeProvider(answer);
  const wrapped = last.wrap(provider);
  const sent = [user("one")];
  for await (const _ of wrapped.stream({ model: MODEL, systemPrompt: "SYS", messages: sent, tools: [{ name: "bash", description: "d", inputSchema: {} }], maxTokens: 999, thinkingLevel: "high", signal: new AbortController().signal })) void _;
  const context = [...sent, reply([{ type: "text", text: "answer" }])];
  const port = last.conversationPort(context, MODEL, provider);
  assert.ok(port);
  const usages: number[] = [];
  const text = await port.summarize({ kind: "history", systemPrompt: "", prompt: "ASK", maxTokens: 10, onUsage: (u) => usages.push(u.cacheRead) }, new AbortController().signal);
  assert.equal(text, "NOTES");
  assert.deepEqual(usages, [300]);
  const req = provider.seen[1];
  assert.equal(req.systemPrompt, "SYS");
  assert.equal(req.maxTokens, 999, "the agent's output limit (thinking budgets depend on it)");
  assert.equal(req.thinkingLevel, "high");
  assert.equal(req.tools.length, 1);
  assert.equal(req.cachePrefix, 1);
  assert.deepEqual(req.messages.slice(0, 2), context);
  assert.equal(req.messages[2].role, "user");

  assert.equal(last.conversationPort(context, { ...MODEL, id: "other" }, provider), undefined, "another model");
  assert.equal(last.conversationPort([user("else"), context[1]], MODEL, provider), undefined, "another context");
  assert.equal(last.conversationPort(sent, MODEL, provider), undefined, "no reply after it");
  now += WARM_FOR_MS + 1;
  assert.equal(last.conversationPort(context, MODEL, provider), undefined, "the cache has likely gone cold");
  now -= WARM_FOR_MS + 1;
  last.forget();
  assert.equal(last.conversationPort(context, MODEL, provider), undefined, "forgotten at a compaction");
});
