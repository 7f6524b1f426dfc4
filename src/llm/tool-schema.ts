// A tool's parameters schema in the form every provider takes. Built-in tools' schemas come out
// as they went in; an MCP server's is whatever JSON Schema the server wrote, and one keyword a
// provider refuses fails every request of the session, not just calls of that tool:
// - Anthropic: input_schema must be `type: "object"` with no anyOf/oneOf/allOf at the top, and
//   valid draft 2020-12 throughout;
// - OpenAI (Responses and Chat Completions, strict off): `type: "object"` with no
//   oneOf/anyOf/allOf/enum/not at the top, and `items` on every array schema;
// - Ollama: parameters decoded into fixed structs (see tool-schema-node.ts).
// So the top level becomes `{type: "object", properties, required?}`: a top-level allOf is merged
// into it, a top-level anyOf/oneOf becomes the union of its alternatives' properties (required:
// what every alternative requires) with the alternatives named in the description; a name in
// `required` that `properties` lacks gets an unconstrained entry. A schema too large or too deep
// to copy safely goes as `{type: "object", properties: {}}`, and the description says so.
// Done here, at the provider boundary, because the rules are the APIs'; the result is kept per
// schema object, so a tool list is fitted once, not once a request (and goes byte for byte the
// same way every time, which the prompt cache needs).
import { schemaNode, TooLarge, type Budget, type SchemaObject } from "./tool-schema-node.js";
import type { ToolSpec } from "./types.js";

/** Past these, a schema is not sent: deeper than any real tool's, and more tokens than a tool list should cost. */
export const SCHEMA_LIMITS = { maxDepth: 48, maxNodes: 10_000, maxChars: 100_000 } as const;

export interface FittedSchema {
  schema: { type: "object"; properties: SchemaObject; [key: string]: unknown };
  /** said after the tool's description: the alternatives of a top-level anyOf/oneOf, or why no schema went */
  note?: string;
}

type Json = SchemaObject[string];

const isObject = (v: unknown): v is SchemaObject => typeof v === "object" && v !== null && !Array.isArray(v);
const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((n): n is string => typeof n === "string") : []);

/** The branch a local `$ref` at the top names (`#/$defs/X`, `#/definitions/X`), one hop, else the branch itself. */
function resolved(branch: SchemaObject, root: SchemaObject): SchemaObject {
  const ref = branch.$ref;
  if (typeof ref !== "string") return branch;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const target = m ? (root[m[1]] as SchemaObject | undefined)?.[m[2].replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  if (!isObject(target)) return branch;
  const { $ref: _ref, ...rest } = branch;
  return { ...target, ...rest };
}

/** `a` and `b` both hold for a property the top level and a branch (or two branches) describe. */
function combine(a: Json | undefined, b: Json, keyword: "allOf" | "anyOf"): Json {
  if (a === undefined || JSON.stringify(a) === JSON.stringify(b)) return b;
  const members = isObject(a) && Array.isArray(a[keyword]) && Object.keys(a).length === 1 ? (a[keyword] as Json[]) : [a];
  return members.some((m) => JSON.stringify(m) === JSON.stringify(b)) ? { [keyword]: members } : { [keyword]: [...members, b] };
}

function mergeAllOf(root: SchemaObject, branches: SchemaObject[]): void {
  const properties = root.properties as SchemaObject;
  const required = new Set(stringList(root.required));
  for (const branch of branches) {
    for (const [name, s] of Object.entries(isObject(branch.properties) ? branch.properties : {})) properties[name] = combine(properties[name], s, "allOf");
    for (const name of stringList(branch.required)) required.add(name);
    if (branch.additionalProperties === false && root.additionalProperties === undefined) root.additionalProperties = false;
  }
  if (required.size > 0) root.required = [...required];
}

/** The union of the alternatives; returns the note that names them. */
function mergeAlternatives(root: SchemaObject, branches: SchemaObject[]): string | undefined {
  const properties = root.properties as SchemaObject;
  const own = new Set(Object.keys(properties));
  const fromBranches: SchemaObject = {};
  let common: Set<string> | undefined;
  const forms: string[] = [];
  for (const branch of branches) {
    const props = isObject(branch.properties) ? branch.properties : {};
    for (const [name, s] of Object.entries(props)) if (!own.has(name)) fromBranches[name] = combine(fromBranches[name], s, "anyOf");
    const req = stringList(branch.required);
    common = common === undefined ? new Set(req) : new Set(req.filter((n) => common!.has(n)));
    const named = [...new Set([...req, ...Object.keys(props)])].map((n) => (req.includes(n) ? `${n} (required)` : n));
    const ref = typeof branch.$ref === "string" ? `the schema at ${branch.$ref}` : "no arguments of its own";
    forms.push(named.length > 0 ? named.join(", ") : ref);
  }
  Object.assign(properties, fromBranches);
  const required = new Set([...stringList(root.required), ...(common ?? [])]);
  if (required.size > 0) root.required = [...required];
  return forms.length > 1 ? `Its arguments take one of these forms: ${forms.map((f, i) => `(${i + 1}) ${f}`).join("; ")}.` : undefined;
}

/** The sanitized root as the top level every provider takes. */
function topLevel(root: SchemaObject): FittedSchema {
  const notes: string[] = [];
  root.type = "object";
  if (!isObject(root.properties)) root.properties = {};
  const allOf = root.allOf;
  delete root.allOf;
  if (Array.isArray(allOf)) mergeAllOf(root, allOf.filter(isObject).map((b) => resolved(b, root)));
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = root[key];
    delete root[key];
    if (!Array.isArray(branches)) continue;
    const note = mergeAlternatives(root, branches.filter(isObject).map((b) => resolved(b, root)));
    if (note) notes.push(note);
  }
  // refused at the top by OpenAI, and without meaning for a set of named arguments
  delete root.not;
  delete root.enum;
  delete root.const;
  const properties = root.properties as SchemaObject;
  for (const name of stringList(root.required)) if (!(name in properties)) properties[name] = {};
  return { schema: root as FittedSchema["schema"], ...(notes.length > 0 ? { note: notes.join(" ") } : {}) };
}

/** A server's schema made acceptable to every provider, meaning kept where it can be. */
export function fitToolSchema(schema: unknown): FittedSchema {
  const budget: Budget = { maxDepth: SCHEMA_LIMITS.maxDepth, nodes: SCHEMA_LIMITS.maxNodes };
  try {
    const fitted = topLevel(schemaNode(schema, budget, 0));
    const chars = JSON.stringify(fitted.schema).length;
    if (chars > SCHEMA_LIMITS.maxChars) throw new TooLarge(`${chars} characters long`);
    return fitted;
  } catch (err) {
    if (!(err instanceof TooLarge)) throw err;
    return { schema: { type: "object", properties: {} }, note: `(This tool's parameter schema was not sent: it is ${err.why}. Pass the arguments its description names.)` };
  }
}

const fittedBySchema = new WeakMap<object, FittedSchema>();

/** The tools as every provider is told them: each schema fitted once, and kept. */
export function toolsForProviders(tools: readonly ToolSpec[]): ToolSpec[] {
  return tools.map((t) => {
    let fitted = fittedBySchema.get(t.inputSchema);
    if (!fitted) {
      fitted = fitToolSchema(t.inputSchema);
      fittedBySchema.set(t.inputSchema, fitted);
    }
    return { name: t.name, description: fitted.note ? (t.description ? `${t.description}\n\n${fitted.note}` : fitted.note) : t.description, inputSchema: fitted.schema };
  });
}
