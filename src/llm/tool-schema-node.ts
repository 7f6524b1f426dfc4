// One JSON Schema node copied into a form every provider's validator takes, keeping its meaning:
// Anthropic checks input_schema against draft 2020-12 and refuses the whole request for one
// invalid keyword value; OpenAI refuses an array schema without `items`; Ollama decodes tool
// parameters into fixed Go structs, so a property that is `true`, a `type` that is not a string
// (or a list of them) or a `description` that is not a string fails the request with a 400.
// A keyword whose value is not of its draft's kind is left out (it was never a valid
// constraint); `true` becomes `{}` and `false` `{not: {}}` (the same schemas, written out);
// draft-04's boolean exclusiveMinimum/Maximum becomes the number form.
//
// The copy is bounded: a schema nested past `maxDepth`, or made of more parts than the budget
// allows, throws TooLarge, so neither a hostile server's 10,000-deep schema nor an object
// graph that refers to itself can exhaust the stack or the heap. Nothing here follows a `$ref`.

export class TooLarge extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = "TooLarge";
  }
}

export interface Budget {
  readonly maxDepth: number;
  /** parts (objects, arrays, and the values in enums, defaults and examples) still allowed */
  nodes: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** keywords whose value is one subschema */
const ONE = new Set(["items", "not", "contains", "propertyNames", "if", "then", "else", "additionalItems", "contentSchema"]);
/** keywords whose value is one subschema, where `true` and `false` are the usual way to write it */
const ONE_BOOLEAN = new Set(["additionalProperties", "unevaluatedProperties", "unevaluatedItems"]);
/** keywords whose value is a non-empty list of subschemas */
const LIST = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** keywords whose value maps names to subschemas */
const MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const STRING = new Set(["description", "title", "format", "pattern", "$ref", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "contentEncoding", "contentMediaType"]);
const NUMBER = new Set(["minimum", "maximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"]);
const BOOLEAN = new Set(["uniqueItems", "readOnly", "writeOnly", "deprecated"]);
/** meaningless to a model and refused or ignored by some servers */
const DROPPED = new Set(["$schema", "$vocabulary"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function spend(budget: Budget, depth: number): void {
  if (depth > budget.maxDepth) throw new TooLarge(`nested more than ${budget.maxDepth} levels deep`);
  if (--budget.nodes < 0) throw new TooLarge("made of too many parts");
}

/** A JSON value (an enum member, a default, an example) copied within the budget. */
function copyData(value: unknown, budget: Budget, depth: number): Json | undefined {
  spend(budget, depth);
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "object") return undefined;
  if (Array.isArray(value)) return value.map((v) => copyData(v, budget, depth + 1) ?? null);
  const out: { [key: string]: Json } = {};
  for (const k of Object.keys(value)) {
    const c = copyData((value as Record<string, unknown>)[k], budget, depth + 1);
    if (c !== undefined) out[k] = c;
  }
  return out;
}

function typeOf(value: unknown): Json | undefined {
  if (typeof value === "string") return TYPES.has(value) ? value : undefined;
  if (!Array.isArray(value)) return undefined;
  const types = [...new Set(value.filter((t): t is string => typeof t === "string" && TYPES.has(t)))];
  return types.length > 0 ? types : undefined;
}

function names(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = [...new Set(value.filter((n): n is string => typeof n === "string"))];
  return out.length > 0 ? out : undefined;
}

/** `items` in its pre-2020 list form says one schema per position; the model gets their union. */
function itemsOf(value: unknown, budget: Budget, depth: number): Json | undefined {
  if (!Array.isArray(value)) return schemaNode(value, budget, depth);
  const members = value.map((v) => schemaNode(v, budget, depth + 1));
  return members.length === 0 ? undefined : members.length === 1 ? members[0] : { anyOf: members };
}

/** One subschema, valid for every provider; throws TooLarge past the budget. */
export function schemaNode(value: unknown, budget: Budget, depth: number): SchemaObject {
  if (value === true) return {};
  if (value === false) return { not: {} };
  spend(budget, depth);
  if (!isObject(value)) return {};
  const out: SchemaObject = {};
  const next = depth + 1;
  // Object.keys, not entries: a server's 100,000-property map costs a quarter of the time
  for (const key of Object.keys(value)) {
    const v = value[key];
    let c: Json | undefined;
    if (DROPPED.has(key)) continue;
    else if (key === "items") c = itemsOf(v, budget, next);
    else if (ONE.has(key)) c = v === undefined ? undefined : schemaNode(v, budget, next);
    else if (ONE_BOOLEAN.has(key)) c = typeof v === "boolean" ? v : isObject(v) ? schemaNode(v, budget, next) : undefined;
    else if (LIST.has(key)) c = Array.isArray(v) && v.length > 0 ? v.map((m) => schemaNode(m, budget, next)) : undefined;
    else if (MAP.has(key)) c = isObject(v) ? mapOf(v, budget, next) : undefined;
    else if (key === "type") c = typeOf(v);
    else if (key === "required") c = names(v);
    else if (key === "enum") c = Array.isArray(v) && v.length > 0 ? copyData(v, budget, next) : undefined;
    else if (key === "dependentRequired") c = isObject(v) ? dependentRequired(copyData(v, budget, next) as SchemaObject) : undefined;
    else if (STRING.has(key)) c = typeof v === "string" ? v : undefined;
    else if (NUMBER.has(key)) c = typeof v === "number" && Number.isFinite(v) ? v : undefined;
    else if (BOOLEAN.has(key)) c = typeof v === "boolean" ? v : undefined;
    else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") c = exclusiveBound(value, key);
    else c = copyData(v, budget, next);
    if (c !== undefined) out[key] = c;
  }
  // draft-04's boolean form moved the bound itself into the exclusive keyword
  if (value.exclusiveMinimum === true) delete out.minimum;
  if (value.exclusiveMaximum === true) delete out.maximum;
  if (isArrayType(out.type) && out.items === undefined && out.prefixItems === undefined) out.items = {};
  return out;
}

function dependentRequired(copy: SchemaObject): SchemaObject {
  const out: SchemaObject = {};
  for (const name of Object.keys(copy)) {
    const list = copy[name];
    if (Array.isArray(list)) out[name] = list.filter((n) => typeof n === "string");
  }
  return out;
}

function mapOf(value: Record<string, unknown>, budget: Budget, depth: number): SchemaObject {
  const out: SchemaObject = {};
  for (const name of Object.keys(value)) out[name] = schemaNode(value[name], budget, depth);
  return out;
}

/** The 2020-12 (number) form of an exclusive bound; draft-04's `true` takes the bound beside it. */
function exclusiveBound(node: Record<string, unknown>, key: "exclusiveMinimum" | "exclusiveMaximum"): number | undefined {
  const v = node[key];
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  const bound = node[key === "exclusiveMinimum" ? "minimum" : "maximum"];
  return v === true && typeof bound === "number" && Number.isFinite(bound) ? bound : undefined;
}

function isArrayType(type: Json | undefined): boolean {
  return type === "array" || (Array.isArray(type) && type.includes("array"));
}
