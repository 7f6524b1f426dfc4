// A fitted tool schema (tool-schema.ts) as Ollama can use it. Ollama decodes each property into a
// fixed struct that keeps type, description, enum, items, properties, required and anyOf, and
// silently drops everything else, `$ref` and `oneOf` among it: a property that says
// `{"$ref": "#/$defs/Label"}` reaches the model as a property of no type at all (MCP servers built on
// pydantic write their nested models exactly so). So local `$ref`s are replaced by what they name,
// up to REF_DEPTH references deep (a recursive definition stops there, as `{}`), and `oneOf`
// becomes `anyOf` (the model is told the same choices). The expansion is bounded: past
// NODE_BUDGET parts the schema goes as fitted, unexpanded.
import type { SchemaObject } from "./tool-schema-node.js";

const REF_DEPTH = 4;
const NODE_BUDGET = 10_000;

type Json = SchemaObject[string];

class OverBudget extends Error {}

const isObject = (v: unknown): v is SchemaObject => typeof v === "object" && v !== null && !Array.isArray(v);

interface Walk {
  defs: SchemaObject;
  nodes: number;
}

function target(ref: string, walk: Walk): SchemaObject | undefined {
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const found = m ? (walk.defs[m[1]] as SchemaObject | undefined)?.[m[2].replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  return isObject(found) ? found : undefined;
}

function expand(node: Json, walk: Walk, refs: number): Json {
  if (Array.isArray(node)) return node.map((m) => expand(m, walk, refs));
  if (!isObject(node)) return node;
  if (--walk.nodes < 0) throw new OverBudget();
  let source = node;
  let depth = refs;
  if (typeof source.$ref === "string") {
    const { $ref, ...rest } = source;
    const named = target($ref as string, walk);
    if (!named || depth >= REF_DEPTH) return expand(rest, walk, depth);
    source = { ...named, ...rest };
    depth++;
  }
  const out: SchemaObject = {};
  for (const key of Object.keys(source)) {
    if (key === "$defs" || key === "definitions") continue;
    const v = source[key];
    const name = key === "oneOf" && !("anyOf" in source) ? "anyOf" : key;
    out[name] = key === "properties" && isObject(v) ? mapOf(v, walk, depth) : isSchemaKey(key) ? expand(v, walk, depth) : v;
  }
  return out;
}

function mapOf(map: SchemaObject, walk: Walk, refs: number): SchemaObject {
  const out: SchemaObject = {};
  for (const name of Object.keys(map)) out[name] = expand(map[name], walk, refs);
  return out;
}

const SCHEMA_KEYS = new Set(["items", "anyOf", "oneOf", "allOf", "prefixItems", "additionalProperties", "not"]);
const isSchemaKey = (key: string) => SCHEMA_KEYS.has(key);

const expanded = new WeakMap<object, Record<string, unknown>>();

/** The parameters Ollama is sent for a fitted schema (computed once per schema object). */
export function ollamaParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const known = expanded.get(schema);
  if (known) return known;
  let out: Record<string, unknown> = schema;
  const hasDefs = isObject(schema.$defs) || isObject(schema.definitions);
  if (hasDefs || JSON.stringify(schema).includes('"oneOf"')) {
    try {
      out = expand(schema as SchemaObject, { defs: schema as SchemaObject, nodes: NODE_BUDGET }, 0) as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof OverBudget)) throw err;
    }
  }
  expanded.set(schema, out);
  return out;
}
