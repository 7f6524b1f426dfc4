// Sessions move between providers (issue 23, item 5): a history made by one API is converted at
// send time for another, and stored entries are never rewritten. Histories here are made by the
// real providers against the fake servers, then sent to the other side through the real SDKs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnthropicProvider } from "../../src/llm/anthropic.js";
import { toApiMessages } from "../../src/llm/convert.js";
import { ModelRegistry } from "../../src/llm/models.js";
import { toCompletionsMessages } from "../../src/llm/openai-completions-convert.js";
import { OpenAICompletionsProvider } from "../../src/llm/openai-completions.js";
import { toResponsesInput } from "../../src/llm/openai-responses-convert.js";
import { OpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import { safeToolId } from "../../src/llm/tool-ids.js";
import type { AgentMessage, ToolResultMessage } from "../../src/messages/types.js";
import { reply as anthropicReply, startFakeAnthropic } from "../support/fake-anthropic.js";
import { reply, startFakeOpenAI } from "../support/fake-openai.js";
import { assistant, call, result, user } from "../support/messages.js";
import { collect, testModel } from "../support/stream-collect.js";

const SAFE_ANTHROPIC_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const claude = new ModelRegistry().resolve("claude-sonnet-5-5");
const gpt = testModel({ id: "gpt-fake", provider: "openai", thinking: "adaptive" });

function imageResult(toolCallId: string): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "screenshot", content: [{ type: "text", text: "the screen:" }, { type: "image", data: "aW1n", mimeType: "image/png" }], isError: false, timestamp: 5 };
}

test("tool ids: unchanged when valid, the same rewrite for a call and its result, a hash when too long", () => {
  assert.equal(safeToolId("toolu_01A09q90qw90lq917835lq9", 40), "toolu_01A09q90qw90lq917835lq9");
  assert.equal(safeToolId("call|1", 64), "call_1");
  const long = `call_${"a".repeat(30)}|fc_${"b".repeat(50)}`;
  const once = safeToolId(long, 40);
  assert.equal(once, safeToolId(long, 40), "deterministic");
  assert.equal(once.length, 40);
  assert.match(once, /^[A-Za-z0-9_-]+$/);
  assert.notEqual(safeToolId(`${long}x`, 40), once, "ids that share a long prefix stay apart");
  // to Anthropic: two long ids a gateway made, alike in their first 64 characters, stay two calls
  const prefix = `gw-${"0".repeat(70)}`;
  const reply = { ...assistant("", [call(`${prefix}-1`, "read", {}), call(`${prefix}-2`, "read", {})]), api: "openai-completions", provider: "gateway" };
  const { messages } = toApiMessages([user("go"), reply, result(`${prefix}-1`, "read", "A"), result(`${prefix}-2`, "read", "B")]);
  const ids = (messages[1].content as { id: string }[]).map((b) => b.id);
  assert.equal(new Set(ids).size, 2, `distinct ids: ${ids.join(", ")}`);
  for (const id of ids) assert.match(id, SAFE_ANTHROPIC_ID);
  assert.deepEqual((messages[2].content as { tool_use_id: string }[]).map((b) => b.tool_use_id), ids);
});

test("an Anthropic-made history (signed thinking, toolu_ ids, images) goes to both OpenAI APIs", async (t) => {
  const anthropic = await startFakeAnthropic();
  const openai = await startFakeOpenAI();
  t.after(() => Promise.all([anthropic.close(), openai.close()]));
  // a real Anthropic reply: signed thinking, then a tool call with a toolu_ id
  anthropic.enqueue(
    anthropicReply([
      { type: "thinking", thinking: "I need a screenshot.", signature: "sig-anthropic-xyz" },
      { type: "tool_use", name: "screenshot", input: { region: "all" }, id: "toolu_01HjkLmn" },
    ]),
  );
  const claudeTurn = await collect(new AnthropicProvider({ apiKey: "k", baseURL: anthropic.url }), { messages: [user("what is on screen?")] }, claude);
  assert.equal(claudeTurn.final.stopReason, "toolUse");
  const history: AgentMessage[] = [
    { role: "user", content: [{ type: "text", text: "what is on screen?" }, { type: "image", data: "dXNlcg==", mimeType: "image/jpeg" }], timestamp: 1 },
    claudeTurn.final,
    imageResult("toolu_01HjkLmn"),
    user("and now?"),
  ];

  const completions = new OpenAICompletionsProvider({ name: "local", apiKey: "k", baseURL: openai.baseURL });
  await collect(completions, { messages: history });
  const chat = openai.requests[0].body.messages;
  assert.deepEqual(chat.map((m: { role: string }) => m.role), ["system", "user", "assistant", "tool", "user"]);
  assert.deepEqual(chat[1].content[1], { type: "image_url", image_url: { url: "data:image/jpeg;base64,dXNlcg==" } });
  assert.deepEqual(chat[2], { role: "assistant", content: null, tool_calls: [{ id: "toolu_01HjkLmn", type: "function", function: { name: "screenshot", arguments: '{"region":"all"}' } }] });
  assert.ok(!JSON.stringify(chat).includes("sig-anthropic-xyz") && !JSON.stringify(chat).includes("I need a screenshot"), "Anthropic's thinking stays behind");
  assert.deepEqual(chat[3], { role: "tool", tool_call_id: "toolu_01HjkLmn", content: "the screen:" });
  // the tool's image follows in the user turn, before the user's next words
  assert.deepEqual(chat[4].content, [
    { type: "text", text: "The image(s) the tool call(s) above returned:" },
    { type: "image_url", image_url: { url: "data:image/png;base64,aW1n" } },
    { type: "text", text: "and now?" },
  ]);

  const responses = new OpenAIResponsesProvider({ name: "openai", apiKey: "k", baseURL: openai.baseURL });
  await collect(responses, { messages: history }, gpt);
  const input = openai.requests[1].body.input;
  assert.deepEqual(input.map((i: { type?: string; role?: string }) => i.type ?? i.role), ["user", "function_call", "function_call_output", "user"]);
  assert.deepEqual(input[1], { type: "function_call", call_id: "toolu_01HjkLmn", name: "screenshot", arguments: '{"region":"all"}' });
  assert.deepEqual(input[2].output, [
    { type: "input_text", text: "the screen:" },
    { type: "input_image", image_url: "data:image/png;base64,aW1n", detail: "auto" },
  ]);
  assert.ok(!JSON.stringify(input).includes("sig-anthropic-xyz"), "no Anthropic signature is sent to OpenAI");
});

test("an OpenAI-made history (encrypted reasoning, call_|fc_ ids, reasoning_content, long server ids) goes back to Anthropic", async (t) => {
  const anthropic = await startFakeAnthropic();
  const openai = await startFakeOpenAI();
  t.after(() => Promise.all([anthropic.close(), openai.close()]));
  openai.enqueue(reply([{ type: "reasoning", text: "Think first.", encrypted: "gAAAA-enc" }, { type: "tool_call", name: "read", arguments: { path: "a.ts" }, id: "call_Abc123" }]));
  const fromResponses = await collect(new OpenAIResponsesProvider({ apiKey: "k", baseURL: openai.baseURL }), { messages: [user("read a")] }, gpt);
  const vllmId = `chatcmpl-tool-${"f".repeat(32)}.weird|id/with:chars${"x".repeat(40)}`;
  openai.enqueue(reply([{ type: "reasoning", text: "Now b." }, { type: "tool_call", name: "read", arguments: { path: "b.ts" }, id: vllmId }]));
  const fromCompletions = await collect(new OpenAICompletionsProvider({ name: "local", apiKey: "k", baseURL: openai.baseURL }), { messages: [user("read b")] });
  const responsesId = (fromResponses.final.content[1] as { id: string }).id;
  assert.equal(responsesId, "call_Abc123|fc_fake1_1");
  const history: AgentMessage[] = [user("read a"), fromResponses.final, result(responsesId, "read", "A"), user("read b"), fromCompletions.final, result(vllmId, "read", "B"), user("compare")];
  const before = JSON.stringify(history);

  await collect(new AnthropicProvider({ apiKey: "k", baseURL: anthropic.url }), { messages: history }, claude);
  const sent = anthropic.requests[0].body.messages;
  const blocks = sent.flatMap((m: { content: { type: string }[] }) => m.content);
  assert.ok(!blocks.some((b: { type: string }) => b.type === "thinking" || b.type === "redacted_thinking"), "OpenAI's reasoning has no Anthropic signature: dropped");
  const uses = blocks.filter((b: { type: string }) => b.type === "tool_use") as { id: string }[];
  const results = blocks.filter((b: { type: string }) => b.type === "tool_result") as { tool_use_id: string }[];
  assert.equal(uses.length, 2);
  for (const u of uses) assert.match(u.id, SAFE_ANTHROPIC_ID);
  assert.deepEqual(results.map((r) => r.tool_use_id), uses.map((u) => u.id), "each result still answers its call");
  assert.equal(JSON.stringify(history), before, "the stored history is not rewritten");

  // and back to OpenAI: each API gets its own reasoning back, the other's dropped
  const chat = toCompletionsMessages("", history, "local").messages;
  assert.equal((chat[4] as unknown as Record<string, unknown>).reasoning_content, "Now b.");
  assert.equal((chat[4] as { tool_calls: { id: string }[] }).tool_calls[0].id, vllmId, "the server's own id goes back unchanged");
  assert.equal((chat[1] as { tool_calls: { id: string }[] }).tool_calls[0].id, "call_Abc123_fc_fake1_1");
  const input = toResponsesInput(history, { provider: "openai", model: "gpt-fake" }).input;
  assert.equal(input.filter((i) => i.type === "reasoning").length, 1);
  const foreign = input.find((i) => i.type === "function_call" && i.name === "read" && i.arguments.includes("b.ts"));
  assert.ok(foreign?.type === "function_call" && foreign.call_id.length <= 64 && /^[A-Za-z0-9_-]+$/.test(foreign.call_id), JSON.stringify(foreign));
});

test("a history cut short: orphan results dropped, unanswered calls answered, a steering message moved after the results, empty aborted replies left out", () => {
  const messages: AgentMessage[] = [
    user("a"),
    assistant("", [call("c1", "bash", { command: "x" }), call("c2", "bash", { command: "y" })]),
    result("c1", "bash", "one"),
    user("steer: also check z"),
    result("ghost", "bash", "orphan"),
    { ...assistant(""), stopReason: "aborted" },
    user("b"),
  ];
  const chat = toCompletionsMessages("", messages, "anthropic");
  assert.deepEqual(chat.messages.map((m) => [m.role, m.role === "tool" ? m.content : undefined]), [
    ["user", undefined],
    ["assistant", undefined],
    ["tool", "one"],
    ["tool", "No result was recorded for this call (the run was interrupted)."],
    ["user", undefined],
  ]);
  assert.equal(chat.messages[4].content, "steer: also check z\n\nb");
  assert.ok(!JSON.stringify(chat.messages).includes("ghost"), "the orphan result is gone");
  assert.deepEqual(chat.notes.sort(), ["answered 1 tool call(s) that had no recorded result", "dropped a tool result for ghost, which answers no call of the turn before", "left out an empty aborted assistant message"]);
  const responses = toResponsesInput(messages, { provider: "openai", model: "gpt" });
  assert.deepEqual(responses.input.map((i) => ("type" in i && i.type) || ("role" in i && i.role)), ["user", "function_call", "function_call", "function_call_output", "function_call_output", "user", "user"]);
});

test("a Responses reply cut off while reasoning: the reasoning item nothing followed is not sent back", () => {
  const item = JSON.stringify({ id: "rs_1", type: "reasoning", summary: [], encrypted_content: "enc" });
  const aborted: AgentMessage = { ...assistant(""), api: "openai-responses", provider: "openai", model: "gpt", stopReason: "aborted", content: [{ type: "thinking", thinking: "", thinkingSignature: item }] };
  const { input, notes } = toResponsesInput([user("a"), aborted, user("b")], { provider: "openai", model: "gpt" });
  assert.deepEqual(input, [
    { role: "user", content: "a" },
    { role: "user", content: "b" },
  ]);
  assert.ok(notes.includes("dropped a reasoning item that nothing followed"), notes.join("; "));
});
