// An MCP server's tool (a 64-character name with "-", a schema with what servers write and
// providers refuse) through each provider's real SDK to the fake servers on 127.0.0.1: each
// request carries the tool in its API's form, with a schema that API accepts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AnthropicProvider } from "../../src/llm/anthropic.js";
import { OllamaProvider } from "../../src/llm/ollama.js";
import { OpenAICompletionsProvider } from "../../src/llm/openai-completions.js";
import { OpenAIResponsesProvider } from "../../src/llm/openai-responses.js";
import { fitToolSchema } from "../../src/llm/tool-schema.js";
import type { Provider, ToolSpec } from "../../src/llm/types.js";
import { startFakeAnthropic, textReply as anthropicText } from "../support/fake-anthropic.js";
import { ollamaText, startFakeOllama } from "../support/fake-ollama.js";
import { startFakeOpenAI, textReply as openaiText } from "../support/fake-openai.js";
import { user } from "../support/messages.js";
import { collect, testModel } from "../support/stream-collect.js";

type After = { after(fn: () => Promise<void> | void): void };

const NAME = `mcp__issue-tracker__${"create_issue_with_labels_and_assignee_".repeat(2)}`.slice(0, 64);

const MCP_TOOL: ToolSpec = {
  name: NAME,
  description: "Creates an issue.",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    title: "CreateIssueArgs",
    additionalProperties: false,
    $defs: { Label: { type: "string", enum: ["bug", "feature"] } },
    properties: {
      title: { type: "string", description: "One line", default: "", examples: ["Crash on start"] },
      labels: { type: "array", description: "no items given" },
      assignee: { type: ["string", "null"], format: "email" },
      label: { $ref: "#/$defs/Label" },
      meta: true,
      priority: { oneOf: [{ const: 1 }, { const: 2 }] },
      body: { type: "object", properties: { text: { type: "string" }, attachments: { type: "array" } } },
    },
    required: ["title", "project"],
    anyOf: [{ required: ["title"] }, { required: ["label"] }],
  },
};
const BUILTIN: ToolSpec = { name: "read", description: "Reads a file.", inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };

/** What the APIs refuse in a tool's parameters (Anthropic, OpenAI with strict off, Ollama's Go structs), and what Ollama would drop unread. */
function refusals(schema: Record<string, any>, api: "ollama" | "other"): string[] {
  const out: string[] = [];
  if (schema.type !== "object") out.push("top: type is not object");
  for (const k of ["anyOf", "oneOf", "allOf", "enum", "not"]) if (k in schema) out.push(`top: ${k}`);
  for (const n of schema.required ?? []) if (!(n in (schema.properties ?? {}))) out.push(`top: required ${n} is not a property`);
  const walk = (node: unknown, at: string): void => {
    if (typeof node === "boolean") return void out.push(`${at}: a boolean schema (Ollama cannot decode it)`);
    if (typeof node !== "object" || node === null) return;
    const s = node as Record<string, any>;
    if ("$schema" in s) out.push(`${at}: $schema`);
    const types = [s.type ?? []].flat();
    if (types.includes("array") && !("items" in s)) out.push(`${at}: array schema missing items`);
    if (s.type !== undefined && !types.every((t: unknown) => typeof t === "string")) out.push(`${at}: type is not a string`);
    if (s.description !== undefined && typeof s.description !== "string") out.push(`${at}: description is not a string`);
    if (api === "ollama" && at !== "parameters") for (const k of ["$ref", "oneOf"]) if (k in s) out.push(`${at}: ${k}, which Ollama drops`);
    for (const [name, sub] of Object.entries(s.properties ?? {})) walk(sub, `${at}.${name}`);
    for (const k of ["anyOf", "oneOf", "allOf"]) for (const [i, sub] of (s[k] ?? []).entries()) walk(sub, `${at}.${k}[${i}]`);
    if (s.items !== undefined) walk(s.items, `${at}.items`);
  };
  walk(schema, "parameters");
  return out;
}

function checkTools(sent: { name: string; description: string; schema: Record<string, any> }[], api: "ollama" | "other" = "other"): void {
  assert.equal(sent.length, 2);
  const [mcp, builtin] = sent;
  assert.equal(mcp.name, NAME);
  assert.equal(NAME.length, 64);
  assert.match(mcp.name, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.deepEqual(refusals(mcp.schema, api), []);
  assert.deepEqual(mcp.schema.properties.labels, { type: "array", description: "no items given", items: {} });
  if (api === "ollama") {
    assert.deepEqual(mcp.schema.properties.label, { type: "string", enum: ["bug", "feature"] }, "the $ref replaced by what it names");
    assert.deepEqual(mcp.schema.properties.priority, { anyOf: [{ const: 1 }, { const: 2 }] });
    assert.equal(mcp.schema.$defs, undefined);
  } else {
    assert.deepEqual(mcp.schema, JSON.parse(JSON.stringify(fitToolSchema(MCP_TOOL.inputSchema).schema)));
    assert.deepEqual(mcp.schema.properties.label, { $ref: "#/$defs/Label" }, "a $ref inside goes as written, beside its $defs");
  }
  assert.equal(mcp.schema.additionalProperties, false);
  assert.equal(mcp.description, "Creates an issue.\n\nIts arguments take one of these forms: (1) title (required); (2) label (required).");
  assert.deepEqual(builtin, { name: "read", description: "Reads a file.", schema: BUILTIN.inputSchema });
}

async function send(provider: Provider, model = testModel()): Promise<void> {
  const { error } = await collect(provider, { messages: [user("file an issue")], tools: [MCP_TOOL, BUILTIN] }, model);
  assert.equal(error, undefined);
}

test("Anthropic Messages: tools[] of {name, description, input_schema}, the last with the cache breakpoint", async (t: After) => {
  const server = await startFakeAnthropic();
  t.after(() => server.close());
  server.enqueue(anthropicText("ok"));
  await send(new AnthropicProvider({ apiKey: "test-key", baseURL: server.url, idleTimeoutMs: 2000 }));
  const tools = server.requests[0].body.tools as Record<string, any>[];
  assert.deepEqual(Object.keys(tools[0]).sort(), ["description", "input_schema", "name"]);
  assert.deepEqual(tools[1].cache_control, { type: "ephemeral" });
  checkTools(tools.map((x) => ({ name: x.name, description: x.description, schema: x.input_schema })));
});

test("OpenAI Responses: tools[] of {type: function, name, description, parameters, strict: false}", async (t: After) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.enqueue(openaiText("ok"));
  await send(new OpenAIResponsesProvider({ name: "openai", apiKey: "test-key", baseURL: server.baseURL, idleTimeoutMs: 2000 }));
  const tools = server.requests[0].body.tools as Record<string, any>[];
  for (const x of tools) assert.deepEqual([x.type, x.strict], ["function", false], "never strict: a server's schema is not written for it");
  checkTools(tools.map((x) => ({ name: x.name, description: x.description, schema: x.parameters })));
});

test("Chat Completions: tools[] of {type: function, function: {name, description, parameters}}, no strict", async (t: After) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.enqueue(openaiText("ok"));
  await send(new OpenAICompletionsProvider({ name: "local", apiKey: "test-key", baseURL: server.baseURL, idleTimeoutMs: 2000 }));
  const tools = server.requests[0].body.tools as Record<string, any>[];
  for (const x of tools) assert.deepEqual([x.type, Object.keys(x.function).sort()], ["function", ["description", "name", "parameters"]]);
  checkTools(tools.map((x) => ({ name: x.function.name, description: x.function.description, schema: x.function.parameters })));
});

test("Ollama /api/chat: tools[] of {type: function, function: {name, description, parameters}}", async (t: After) => {
  const server = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, arch: "qwen3" }] });
  t.after(() => server.close());
  server.enqueue(ollamaText("ok"));
  await send(new OllamaProvider({ name: "box", baseURL: server.url, idleTimeoutMs: 2000 }), testModel({ id: "qwen3:8b", provider: "box" }));
  const tools = server.chatRequests[0].body.tools as Record<string, any>[];
  for (const x of tools) assert.deepEqual([x.type, Object.keys(x.function).sort()], ["function", ["description", "name", "parameters"]]);
  checkTools(tools.map((x) => ({ name: x.function.name, description: x.function.description, schema: x.function.parameters })), "ollama");
});
