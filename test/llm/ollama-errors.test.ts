// Ollama's error answers, as its server sends them, and what pith makes of each. The bodies are
// Ollama's own texts (ollama/ollama at fb30760, Aug 2026: server/routes.go, llm/llama_server.go,
// docs/api/errors.mdx; v0.13.0 runner/ollamarunner/runner.go for the older runner).
import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyOllamaHttpError, classifyOllamaStreamError, ollamaErrorText } from "../../src/llm/ollama-errors.js";
import { readLines } from "../../src/llm/ndjson.js";

const ctx = { baseURL: "http://127.0.0.1:11434", model: "qwen3:8b" };

const HTTP_CASES: { name: string; status: number; body: string; errorClass: string; type?: string; overflow?: { tokens?: number; maximum?: number } }[] = [
  { name: "model not pulled (routes.go handleScheduleError)", status: 404, body: '{"error":"model \\"qwen3:8b\\" not found, try pulling it first"}', errorClass: "fatal", type: "model_not_found" },
  {
    name: "llama-server overflow passed through as text (truncate: false)",
    status: 400,
    body: JSON.stringify({ error: '{"error":{"code":400,"message":"request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9412,"n_ctx":8192}}' }),
    errorClass: "overflow",
    overflow: { tokens: 9412, maximum: 8192 },
  },
  { name: "older llama-server overflow wording", status: 400, body: '{"error":"the request exceeds the available context size, try increasing it"}', errorClass: "overflow" },
  { name: "ollamarunner errorInputTooLong (v0.12+, truncate: false)", status: 400, body: '{"error":"the input length exceeds the context length"}', errorClass: "overflow" },
  {
    name: "llama_server.go prompt longer than the window, context shift off",
    status: 400,
    body: '{"error":"the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length"}',
    errorClass: "overflow",
  },
  { name: "MLX runner", status: 500, body: `{"error":"input length (70000 tokens) exceeds the model's maximum context length (65536 tokens)"}`, errorClass: "overflow", overflow: { tokens: 70000, maximum: 65536 } },
  { name: "a model that cannot think, asked to", status: 400, body: '{"error":"\\"llama3.1:8b\\" does not support thinking"}', errorClass: "fatal", type: "thinking_unsupported" },
  { name: "a model without tools, given tools", status: 400, body: '{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}', errorClass: "fatal", type: "tools_unsupported" },
  { name: "the queue is full (ErrMaxQueue)", status: 503, body: '{"error":"server busy, please try again.  maximum pending requests exceeded"}', errorClass: "transient" },
  { name: "the runner died", status: 500, body: '{"error":"llama runner process has terminated: exit status 2"}', errorClass: "transient" },
  { name: "not enough memory: a retry cannot help", status: 500, body: '{"error":"model requires more system memory (21.4 GiB) than is available (7.2 GiB)"}', errorClass: "fatal", type: "out_of_memory" },
  { name: "cloud model without sign-in", status: 401, body: '{"error":"unauthorized","signin_url":"https://ollama.com/connect?name=box"}', errorClass: "auth" },
  { name: "a cloud model upstream down", status: 502, body: '{"error":"bad gateway"}', errorClass: "transient" },
  { name: "rate limited", status: 429, body: '{"error":"too many requests"}', errorClass: "transient" },
  { name: "a proxy's HTML page", status: 502, body: "<html><body>502 Bad Gateway</body></html>", errorClass: "transient" },
  { name: "missing body", status: 400, body: '{"error":"missing request body"}', errorClass: "fatal" },
];

for (const c of HTTP_CASES) {
  test(`HTTP ${c.status}: ${c.name}`, () => {
    const e = classifyOllamaHttpError(c.status, c.body, ctx);
    assert.equal(e.errorClass, c.errorClass, e.message);
    assert.equal(e.status, c.status);
    if (c.type) assert.equal(e.type, c.type);
    if (c.overflow) assert.deepEqual(e.overflow, c.overflow);
  });
}

test("the retry-after of a 429 or 503 is kept", () => {
  const e = classifyOllamaHttpError(503, '{"error":"server busy"}', ctx, new Headers({ "retry-after": "3" }));
  assert.equal(e.retryAfterMs, 3000);
});

test("errors sent mid-stream (docs/api/errors.mdx) are transient unless they say overflow", () => {
  assert.equal(classifyOllamaStreamError({ error: "an error was encountered while running the model" }).errorClass, "transient");
  assert.equal(classifyOllamaStreamError({ error: "the input length exceeds the context length", status: 400 }).errorClass, "overflow");
  assert.equal(classifyOllamaStreamError({ error: { message: "odd" } }).errorClass, "transient");
});

test("ollamaErrorText reads both {error: string} and {error: {message}}", () => {
  assert.equal(ollamaErrorText('{"error":"boom"}'), "boom");
  assert.equal(ollamaErrorText('{"error":{"message":"nested"}}'), "nested");
  assert.equal(ollamaErrorText("plain text\n"), "plain text");
  assert.equal(ollamaErrorText(""), "(empty body)");
});

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === "string" ? new TextEncoder().encode(p) : p;
}

test("readLines: lines across chunks, a character split between chunks, CRLF, blank lines, no final newline", async () => {
  const euro = new TextEncoder().encode("€");
  const lines: string[] = [];
  for await (const l of readLines(chunks('{"a":', '1}\n\n{"b":"', euro.subarray(0, 1), euro.subarray(1), '"}\r\n', '{"c":3}'))) lines.push(l);
  assert.deepEqual(lines, ['{"a":1}', '{"b":"€"}', '{"c":3}']);
});

test("readLines: a line over the limit is refused, not buffered", async () => {
  await assert.rejects(async () => {
    for await (const _ of readLines(chunks("x".repeat(600), "y".repeat(600)), 1000));
  }, /longer than 1000 characters/);
});
