// The tool schema every provider is sent: each rule, the built-ins untouched, hostile sizes bounded.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ollamaParameters } from "../../src/llm/ollama-tool-schema.js";
import { fitToolSchema, SCHEMA_LIMITS, toolsForProviders } from "../../src/llm/tool-schema.js";
import { toolSpecsOf } from "../../src/agent/tool-calls.js";
import { createCodingTools } from "../../src/tools/index.js";

test("the built-in tools' specs come out exactly as they went in, byte for byte", () => {
  const specs = toolSpecsOf(createCodingTools());
  const sent = toolsForProviders(specs);
  assert.equal(sent.length, 7);
  for (let i = 0; i < specs.length; i++) {
    assert.equal(JSON.stringify(sent[i]), JSON.stringify(specs[i]), specs[i].name);
  }
});

test("$schema goes, everywhere; the top level is an object with properties", () => {
  const { schema, note } = fitToolSchema({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { a: { $schema: "x", type: "string" } } });
  assert.deepEqual(schema, { type: "object", properties: { a: { type: "string" } } });
  assert.equal(note, undefined);
  assert.deepEqual(fitToolSchema({ type: "object" }).schema, { type: "object", properties: {} });
  assert.deepEqual(fitToolSchema({ type: ["object", "null"], properties: [] }).schema, { type: "object", properties: {} }, "a nullable top, a PHP-style empty list of properties");
  assert.deepEqual(fitToolSchema(null).schema, { type: "object", properties: {} });
});

test("a required name properties lacks gets an unconstrained entry; non-names are left out", () => {
  const { schema } = fitToolSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a", "ghost", 3, "a"] });
  assert.deepEqual(schema, { type: "object", properties: { a: { type: "string" }, ghost: {} }, required: ["a", "ghost"] });
});

test("a top-level anyOf/oneOf becomes the union of its alternatives, required what all require, the forms named in the note", () => {
  const { schema, note } = fitToolSchema({
    type: "object",
    properties: { verbose: { type: "boolean" } },
    oneOf: [
      { properties: { id: { type: "integer" }, mode: { const: "fast" } }, required: ["id", "mode"] },
      { properties: { name: { type: "string" }, mode: { const: "slow" } }, required: ["name", "mode"] },
    ],
  });
  assert.deepEqual(schema, {
    type: "object",
    properties: { verbose: { type: "boolean" }, id: { type: "integer" }, mode: { anyOf: [{ const: "fast" }, { const: "slow" }] }, name: { type: "string" } },
    required: ["mode"],
  });
  assert.equal(note, "Its arguments take one of these forms: (1) id (required), mode (required); (2) name (required), mode (required).");
  // alternatives that only say which properties are needed, the shape MCP servers often use
  const byRequired = fitToolSchema({ type: "object", properties: { id: { type: "string" }, path: { type: "string" } }, anyOf: [{ required: ["id"] }, { required: ["path"] }] });
  assert.deepEqual(byRequired.schema, { type: "object", properties: { id: { type: "string" }, path: { type: "string" } } });
  assert.equal(byRequired.note, "Its arguments take one of these forms: (1) id (required); (2) path (required).");
});

test("a top-level allOf is merged (a local $ref followed one hop); not, enum and const at the top go", () => {
  const { schema, note } = fitToolSchema({
    $defs: { Base: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    allOf: [{ $ref: "#/$defs/Base" }, { properties: { id: { minLength: 1 }, n: { type: "number" } }, required: ["n"] }],
    not: { required: ["x"] },
    enum: [{}],
  });
  assert.deepEqual(schema, {
    $defs: { Base: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    type: "object",
    properties: { id: { allOf: [{ type: "string" }, { minLength: 1 }] }, n: { type: "number" } },
    required: ["id", "n"],
  });
  assert.equal(note, undefined);
});

test("nested: boolean schemas written out, arrays get items, invalid keyword values left out, draft-04 exclusive bounds in 2020-12 form", () => {
  const { schema } = fitToolSchema({
    type: "object",
    properties: {
      any: true,
      none: false,
      list: { type: "array", description: "no items given" },
      maybe: { type: ["string", "null"], format: "uri", default: null, examples: ["https://x"] },
      bad: { type: { not: "a type" }, description: 42, required: "yes", enum: "a", minimum: "0", title: "kept" },
      tuple: { type: "array", items: [{ type: "string" }, { type: "number" }] },
      n: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 10 },
      ref: { $ref: "#/$defs/Thing" },
      open: { type: "object", additionalProperties: false, properties: { x: { anyOf: [true, { type: "string" }] } } },
    },
    $defs: { Thing: { type: "string" } },
  });
  assert.deepEqual(schema.properties, {
    any: {},
    none: { not: {} },
    list: { type: "array", description: "no items given", items: {} },
    maybe: { type: ["string", "null"], format: "uri", default: null, examples: ["https://x"] },
    bad: { title: "kept" },
    tuple: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
    n: { type: "number", exclusiveMinimum: 0, maximum: 10 },
    ref: { $ref: "#/$defs/Thing" },
    open: { type: "object", additionalProperties: false, properties: { x: { anyOf: [{}, { type: "string" }] } } },
  });
});

function nested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) node = { type: "object", properties: { inner: node } };
  return node;
}

test("a 10,000-deep schema, a 100,000-property one and an object graph that contains itself are not sent, quickly, and the description says so", () => {
  const cyclic: Record<string, unknown> = { type: "object", properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, { type: "string" }])) };
  const long = { type: "object", properties: { a: { type: "string", description: "x".repeat(SCHEMA_LIMITS.maxChars) } } };
  for (const [what, schema] of [["deep", nested(10_000)], ["cyclic", cyclic], ["wide", wide], ["long", long]] as const) {
    const started = performance.now();
    const [spec] = toolsForProviders([{ name: "mcp__s__t", description: "Does t.", inputSchema: schema }]);
    const ms = performance.now() - started;
    assert.ok(ms < 500, `${what}: ${ms.toFixed(1)} ms`);
    assert.deepEqual(spec.inputSchema, { type: "object", properties: {} }, what);
    assert.match(spec.description, /^Does t\.\n\n\(This tool's parameter schema was not sent: it is (nested more than 48 levels deep|made of too many parts|\d+ characters long)\./, what);
  }
  assert.deepEqual(fitToolSchema(nested(20)).note, undefined, "a schema of ordinary depth is sent");
});

test("a schema is fitted once per schema object: the same result every request", () => {
  const inputSchema = { type: "object", oneOf: [{ required: ["a"] }, { required: ["b"] }] };
  const first = toolsForProviders([{ name: "t", description: "", inputSchema }])[0];
  const second = toolsForProviders([{ name: "t", description: "", inputSchema }])[0];
  assert.equal(first.inputSchema, second.inputSchema);
  assert.equal(first.description, "Its arguments take one of these forms: (1) a (required); (2) b (required).");
});

test("Ollama: local $refs replaced by what they name (a recursive one stops after 4), oneOf sent as anyOf, $defs left out", () => {
  const fitted = fitToolSchema({
    type: "object",
    $defs: { Node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/Node" } } }, Kind: { oneOf: [{ const: "a" }, { const: "b" }] } },
    properties: { tree: { $ref: "#/$defs/Node", description: "the root" }, kind: { $ref: "#/$defs/Kind" }, lost: { $ref: "#/$defs/Missing", description: "kept" } },
  }).schema;
  const sent = ollamaParameters(fitted) as { properties: Record<string, any>; $defs?: unknown };
  assert.equal(sent.$defs, undefined);
  assert.deepEqual(sent.properties.kind, { anyOf: [{ const: "a" }, { const: "b" }] });
  assert.deepEqual(sent.properties.lost, { description: "kept" });
  let node = sent.properties.tree;
  assert.equal(node.description, "the root");
  for (let level = 1; level < 4; level++) {
    assert.deepEqual(node.properties.name, { type: "string" }, `level ${level}`);
    node = node.properties.child;
  }
  assert.deepEqual(node, { type: "object", properties: { name: { type: "string" }, child: {} } }, "the fourth reference is the last one followed");
  assert.equal(ollamaParameters(fitted), sent, "computed once per schema");
  const builtin = toolSpecsOf(createCodingTools())[0].inputSchema;
  assert.equal(ollamaParameters(builtin), builtin, "a schema without $defs or oneOf goes as it is");
});

test("Ollama: references that would multiply past the budget leave the schema unexpanded", () => {
  // each definition names the next from 100 properties: 100^4 parts if expanded 4 references deep
  const props = (next: string) => Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`p${j}`, { $ref: `#/$defs/${next}` }]));
  const defs = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`D${i}`, { type: "object", properties: props(`D${i + 1}`) }]));
  const fitted = fitToolSchema({ type: "object", $defs: defs, properties: { root: { $ref: "#/$defs/D0" } } }).schema;
  const started = performance.now();
  const sent = ollamaParameters(fitted);
  assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  assert.equal(sent, fitted, "sent as fitted");
});
