// Each server's real error bodies, through the real `openai` SDK (from the fake server on
// 127.0.0.1) and pith's classification: overflow with the sizes the body names, transient with
// retry-after, auth, fatal. The bodies are copied from where they were reported (`source`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { overflowSizes } from "../../src/llm/error-patterns.js";
import { normalizeErrorBody } from "../../src/llm/openai-client.js";
import { OpenAICompletionsProvider } from "../../src/llm/openai-completions.js";
import { OpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import type { ErrorClass } from "../../src/llm/types.js";
import { OVERFLOW_SERVERS, overflowError, startFakeOpenAI, statesSizes, streamError, type Scenario } from "../support/fake-openai.js";
import { user } from "../support/messages.js";
import { collect, testModel } from "../support/stream-collect.js";

interface Case {
  server: string;
  source: string;
  status: number;
  /** the body as the server sends it (a string is sent as is) */
  body: unknown;
  /** sent inside a 200 stream instead of as an HTTP error */
  inStream?: boolean;
  expect: { errorClass: ErrorClass; tokens?: number; maximum?: number; retryAfterMs?: number };
  headers?: Record<string, string>;
}

const CASES: Case[] = [
  {
    server: "OpenAI (Chat Completions)",
    source: "crewAIInc/crewAI-examples#121",
    status: 400,
    body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    expect: { errorClass: "overflow", tokens: 8227, maximum: 8192 },
  },
  {
    server: "OpenAI (with the completion counted)",
    source: "mckaywrigley/chatbot-ui#102",
    status: 400,
    body: { error: { message: "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    expect: { errorClass: "overflow", tokens: 4120, maximum: 4097 },
  },
  {
    server: "OpenAI (Responses API)",
    source: "james-6-23/codex2api#415, the-open-agent/openagent#2344",
    status: 400,
    body: { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" } },
    expect: { errorClass: "overflow" },
  },
  {
    server: "vLLM (before 0.10: the error object at the top level)",
    source: "vllm-project/vllm#20409",
    status: 400,
    body: { object: "error", message: "This model's maximum context length is 16384 tokens. However, you requested 19591 tokens (9591 in the messages, 10000 in the completion). Please reduce the length of the messages or completion. None", type: "BadRequestError", param: null, code: 400 },
    expect: { errorClass: "overflow", tokens: 19591, maximum: 16384 },
  },
  {
    server: "vLLM (no breakdown)",
    source: "THUDM/LongBench#104",
    status: 400,
    body: { object: "error", message: "This model's maximum context length is 131072 tokens. However, you requested 351430 tokens. Please reduce the length of the messages or completion.", type: "BadRequestError", param: null, code: 400 },
    expect: { errorClass: "overflow", tokens: 351430, maximum: 131072 },
  },
  {
    server: "vLLM 0.10+ (max_tokens counted into the window)",
    source: "andrewcho-dev/opsconductor-ng vLLM_transition/TOKEN_LIMIT_FIX.md",
    status: 400,
    body: { error: { message: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None", type: "BadRequestError", param: null, code: 400 } },
    expect: { errorClass: "overflow", tokens: 10778, maximum: 4096 },
  },
  {
    server: "llama.cpp llama-server (HTTP 400 since ggml-org/llama.cpp#16486)",
    source: "oobabooga/textgen#7257",
    status: 400,
    body: { error: { code: 400, message: "the request exceeds the available context size. try increasing the context size or enable context shift", type: "exceed_context_size_error", n_prompt_tokens: 14429, n_ctx: 8192 } },
    expect: { errorClass: "overflow", tokens: 14429, maximum: 8192 },
  },
  {
    server: "llama.cpp llama-server (2026 wording)",
    source: "llmmllab/llmmllab-api#69, ggml-org/llama.cpp#19774",
    status: 400,
    body: { error: { code: 400, message: "request (25837 tokens) exceeds the available context size (25088 tokens), try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 25837, n_ctx: 25088 } },
    expect: { errorClass: "overflow", tokens: 25837, maximum: 25088 },
  },
  {
    server: "llama.cpp llama-server (inside a 200 stream, before #16486)",
    source: "body: ggml-org/llama.cpp#15780; framing (a chunk carrying an error key): unslothai/unsloth#9390",
    status: 200,
    inStream: true,
    body: { code: 500, message: "the request exceeds the available context size. try increasing the context size or enable context shift", type: "exceed_context_size_error", n_prompt_tokens: 1407, n_ctx: 256 },
    expect: { errorClass: "overflow", tokens: 1407, maximum: 256 },
  },
  {
    server: "llama.cpp llama-server (the window filled while generating)",
    source: "ggml-org/llama.cpp#19774",
    status: 500,
    body: { error: { code: 500, message: "Context size has been exceeded.", type: "server_error" } },
    expect: { errorClass: "overflow" },
  },
  {
    server: "OpenRouter",
    source: "topoteretes/cognee#1061",
    status: 400,
    body: { error: { message: 'This endpoint\'s maximum context length is 16384 tokens. However, you requested about 94307 tokens (94307 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.', code: 400, metadata: { provider_name: null } } },
    expect: { errorClass: "overflow", tokens: 94307, maximum: 16384 },
  },
  {
    server: "OpenRouter (passing on an upstream server's overflow)",
    source: "ai-christianson/RA.Aid#41",
    status: 502,
    body: {
      error: {
        message: 'ConnectionError: {"object":"error","message":"This model\'s maximum context length is 16000 tokens. However, you requested 17165 tokens (13069 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}',
        code: 502,
        metadata: { provider_name: "DeepInfra", raw: { error_type: "validation_error" } },
      },
    },
    expect: { errorClass: "overflow", tokens: 17165, maximum: 16000 },
  },
  {
    server: "DeepSeek",
    source: "NoFxAiOS/nofx#1278",
    status: 400,
    body: { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 141980 tokens (133980 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.", type: "invalid_request_error", param: null, code: "invalid_request_error" } },
    expect: { errorClass: "overflow", tokens: 141980, maximum: 131072 },
  },
  {
    server: "Groq",
    source: "letta-ai/letta#1963, OpenHands/OpenHands#1902",
    status: 400,
    body: { error: { message: "Please reduce the length of the messages or completion.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    expect: { errorClass: "overflow" },
  },
  {
    server: "Gemini (OpenAI-compatible endpoint: an array of errors)",
    source: "message: google-gemini/gemini-cli#4118; the array body: ymichael/open-codex#15 (where an older SDK read it as '400 status code (no body)')",
    status: 400,
    body: [{ error: { code: 400, message: "The input token count (132478) exceeds the maximum number of tokens allowed (131072).", status: "INVALID_ARGUMENT" } }],
    expect: { errorClass: "overflow", tokens: 132478, maximum: 131072 },
  },
  {
    server: "LM Studio (`error` is a string)",
    source: "Gitlawb/openclaude#353",
    status: 400,
    body: { error: "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input." },
    expect: { errorClass: "overflow", tokens: 13055, maximum: 4096 },
  },
  {
    server: "LM Studio (older wording)",
    source: "message: cline/cline#3664 (LM Studio 0.3.15 log); the string `error` shape as above",
    status: 400,
    body: { error: "Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input." },
    expect: { errorClass: "overflow", tokens: 10136, maximum: 7866 },
  },
  {
    server: "Mistral",
    source: "message as overflow tables of other clients record it (citing docs.mistral.ai/resources/known-limitations); body shape: aurelio-labs/semantic-router#297",
    status: 400,
    body: { object: "error", message: "Prompt contains 300000 tokens, too large for model with 131072 maximum context length", type: "invalid_request_error", param: null, code: null },
    expect: { errorClass: "overflow", tokens: 300000, maximum: 131072 },
  },
  // -- not overflows, though some talk about tokens --
  {
    server: "OpenAI rate limit (tokens per minute)",
    source: "OpenAI's 429 body; retry-after as OpenAI sends it",
    status: 429,
    headers: { "retry-after": "8" },
    body: { error: { message: "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000. Please try again in 8s.", type: "tokens", param: null, code: "rate_limit_exceeded" } },
    expect: { errorClass: "transient", retryAfterMs: 8000 },
  },
  {
    server: "a server that says retry-after-ms",
    source: "the header the openai SDK itself honours first",
    status: 503,
    headers: { "retry-after-ms": "1500", "retry-after": "9" },
    body: { error: { message: "The server is overloaded.", type: "server_error", code: null } },
    expect: { errorClass: "transient", retryAfterMs: 1500 },
  },
  {
    server: "OpenAI out of quota (a 429 no retry fixes)",
    source: "OpenAI's insufficient_quota body",
    status: 429,
    body: { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", param: null, code: "insufficient_quota" } },
    expect: { errorClass: "fatal" },
  },
  {
    server: "OpenAI bad key",
    source: "OpenAI's 401 body",
    status: 401,
    body: { error: { message: "Incorrect API key provided: sk-fake.", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
    expect: { errorClass: "auth" },
  },
  {
    server: "Groq, a field it does not take",
    source: "janhq/jan#8136",
    status: 400,
    body: { error: { message: "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]", type: "invalid_request_error" } },
    expect: { errorClass: "fatal" },
  },
  {
    server: "OpenRouter out of credit",
    source: "can1357/oh-my-pi#9569",
    status: 402,
    body: { error: { message: "This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only afford 12000.", code: 402 } },
    expect: { errorClass: "fatal" },
  },
];

function scenarioOf(c: Case): Scenario {
  if (c.inStream) return streamError(c.body as never);
  return { kind: "http_error", status: c.status, body: c.body, headers: c.headers };
}

test("every server's real error body, through the real SDK, is classified with the sizes it names", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const provider = new OpenAICompletionsProvider({ apiKey: "k", baseURL: server.baseURL });
  for (const c of CASES) {
    server.enqueue(scenarioOf(c));
    const { error } = await collect(provider, { messages: [user("hi")] });
    const label = `${c.server} (${c.source})`;
    assert.ok(error, `${label}: an error`);
    assert.equal(error.errorClass, c.expect.errorClass, `${label}: ${error.message}`);
    if (c.expect.tokens !== undefined || c.expect.maximum !== undefined) assert.deepEqual(error.overflow, { tokens: c.expect.tokens, maximum: c.expect.maximum }, label);
    if (c.expect.retryAfterMs !== undefined) assert.equal(error.retryAfterMs, c.expect.retryAfterMs, label);
    assert.ok(!/^\d{3} /.test(error.message), `${label}: the body's own words are the message, not the SDK's "${error.message}"`);
  }
});

test("the same bodies through the Responses provider", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const provider = new OpenAIResponsesProvider({ apiKey: "k", baseURL: server.baseURL });
  for (const c of CASES.filter((x) => !x.inStream)) {
    server.enqueue(scenarioOf(c));
    const { error } = await collect(provider, { messages: [user("hi")] }, testModel({ id: "gpt-fake" }));
    assert.equal(error?.errorClass, c.expect.errorClass, `${c.server}: ${error?.message}`);
  }
});

test("a server with a window refuses a long prompt its own way, and each way reads as an overflow", async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  const provider = new OpenAICompletionsProvider({ apiKey: "k", baseURL: server.baseURL });
  for (const name of OVERFLOW_SERVERS) {
    server.setContextLimit(100, name);
    const { error } = await collect(provider, { messages: [user("x".repeat(2000))], maxTokens: 50 });
    assert.equal(error?.errorClass, "overflow", `${name}: ${error?.message}`);
    if (statesSizes(name)) assert.equal(error?.overflow?.maximum, 100, `${name}: the window`);
    server.setContextLimit(undefined);
    assert.equal((await collect(provider, { messages: [user("short")] })).final.stopReason, "stop", `${name}: no limit, no refusal`);
  }
  assert.deepEqual(overflowError("vllm-max-tokens", 130, 100, 50).status, 400);
});

test("sizes in the phrasings that only appear in messages", () => {
  assert.deepEqual(overflowSizes("prompt is too long: 219898 tokens > 200000 maximum"), { tokens: 219898, maximum: 200000 });
  assert.deepEqual(overflowSizes("input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648"), { tokens: 209136, maximum: 204648 });
  assert.deepEqual(overflowSizes("Your request exceeded model token limit: 262144 (requested: 300000)"), { tokens: 300000, maximum: 262144 });
  assert.deepEqual(overflowSizes("Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"), { tokens: 15028, maximum: 7424 });
  assert.equal(overflowSizes("Please reduce the length of the messages or completion."), undefined);
});

test("error bodies in other shapes are reshaped to OpenAI's before the SDK reads them", () => {
  assert.equal(normalizeErrorBody('[{"error":{"code":400,"message":"m"}}]'), '{"error":{"code":400,"message":"m"}}');
  assert.equal(normalizeErrorBody('{"object":"error","message":"m","code":400}'), '{"error":{"object":"error","message":"m","code":400}}');
  assert.equal(normalizeErrorBody('{"detail":"Not Found"}'), '{"error":{"message":"Not Found"}}');
  assert.equal(normalizeErrorBody('{"error":"a string"}'), '{"error":"a string"}');
  assert.equal(normalizeErrorBody("Bad Gateway"), "Bad Gateway");
});
