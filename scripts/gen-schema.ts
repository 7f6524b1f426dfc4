// Writes protocol/schema.json: the JSON Schema of every method's params and result, every
// event's params, the server requests and the error codes, generated from the zod schemas in
// protocol/. Output is deterministic (keys sorted, 2-space indent, trailing newline).
// It also writes PROTOCOL.md's scope table from the method table (scope-table.ts).
// Usage: npm run schema            (writes the files)
//        npm run schema -- --check (exits 1 if a file on disk differs)
//        --out FILE                (another path for the schema, for tests)
//        --doc FILE                (another path for PROTOCOL.md, for tests)
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import * as P from "../protocol/index.js";
import { withScopeTable } from "./scope-table.js";

const DEFAULT_OUT = fileURLToPath(new URL("../protocol/schema.json", import.meta.url));
const DEFAULT_DOC = fileURLToPath(new URL("../protocol/PROTOCOL.md", import.meta.url));

// Shared schemas go to the document's $defs once and are referenced as #/$defs/<id>.
const shared: Record<string, z.ZodType> = {
  TextContent: P.TextContent,
  ImageContent: P.ImageContent,
  ThinkingContent: P.ThinkingContent,
  ToolCall: P.ToolCall,
  ImageInput: P.ImageInput,
  Usage: P.Usage,
  UserMessage: P.UserMessage,
  AssistantMessage: P.AssistantMessage,
  ToolResultMessage: P.ToolResultMessage,
  BashExecutionMessage: P.BashExecutionMessage,
  CustomMessage: P.CustomMessage,
  BranchSummaryMessage: P.BranchSummaryMessage,
  CompactionSummaryMessage: P.CompactionSummaryMessage,
  AgentMessage: P.AgentMessage,
  CompactionResult: P.CompactionResult,
  SessionState: P.SessionState,
  SessionOpened: P.SessionOpened,
  RunError: P.RunError,
  ErrorTree: P.ErrorTree,
};
const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(shared)) registry.add(schema, { id });

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const defs: Record<string, Json> = {};

function canonical(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

/** One schema, its $defs hoisted into the document's (a clash between io modes is an error). */
function toSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { io, metadata: registry, unrepresentable: "throw" }) as { [key: string]: Json };
  delete out.$schema;
  const local = out.$defs as Record<string, Json> | undefined;
  delete out.$defs;
  for (const [id, def] of Object.entries(local ?? {})) {
    if (id in defs && canonical(defs[id]) !== canonical(def)) throw new Error(`$defs/${id} differs between uses (${io}); give the variants separate ids`);
    defs[id] = def;
  }
  return out;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}

export function buildSchemaDocument(): Json {
  const methods: Record<string, Json> = {};
  for (const name of P.METHOD_NAMES) {
    const m = P.methods[name];
    // a client sends params (defaults may be omitted) and receives results
    methods[name] = { params: toSchema(m.params, "input"), result: toSchema(m.result, "output") };
  }
  const events: Record<string, Json> = {};
  for (const name of P.EVENT_NAMES) events[name] = { params: toSchema(P.events[name], "output") };
  const serverRequests: Record<string, Json> = {};
  for (const name of P.SERVER_REQUEST_NAMES) {
    const r = P.serverRequests[name];
    // the server sends params, the client answers with the result
    serverRequests[name] = { params: toSchema(r.params, "output"), result: toSchema(r.result, "input") };
  }
  const errors: Record<string, Json> = {};
  for (const name of Object.keys(P.ErrorCodes) as P.ErrorCodeName[]) {
    const entry: { [key: string]: Json } = { code: P.ErrorCodes[name], description: P.ErrorDescriptions[name] };
    const data = (P.ErrorData as Partial<Record<P.ErrorCodeName, z.ZodType>>)[name];
    if (data) entry.data = toSchema(data, "output");
    errors[name] = entry;
  }
  return sortKeys({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "pith JSON-RPC protocol",
    description: "Generated from protocol/*.ts by scripts/gen-schema.ts; do not edit. See protocol/PROTOCOL.md.",
    protocolVersion: P.PROTOCOL_VERSION,
    methods,
    events,
    serverRequests,
    errors,
    $defs: defs,
  });
}

export function renderSchema(): string {
  return `${JSON.stringify(buildSchemaDocument(), null, 2)}\n`;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

function main(): void {
  const out = option("--out", DEFAULT_OUT);
  const docPath = option("--doc", DEFAULT_DOC);
  const text = renderSchema();
  const doc = readOrNull(docPath);
  const docText = doc === null ? null : withScopeTable(doc);
  if (process.argv.includes("--check")) {
    const current = readOrNull(out);
    let ok = true;
    if (current !== text) {
      console.error(`${out} is ${current === null ? "missing" : "stale"}: run \`npm run schema\` and commit the result`);
      ok = false;
    }
    if (doc === null || docText !== doc) {
      console.error(`${docPath}: ${doc === null ? "missing" : "the scope table is stale"}: run \`npm run schema\` and commit the result`);
      ok = false;
    }
    if (!ok) process.exit(1);
    console.log(`${out} and ${docPath}'s scope table are up to date`);
    return;
  }
  writeFileSync(out, text);
  console.log(`wrote ${out} (${text.length} bytes)`);
  if (docText !== null && docText !== doc) {
    writeFileSync(docPath, docText);
    console.log(`wrote ${docPath}'s scope table`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
