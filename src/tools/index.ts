// The coding tools the agent offers the model, with Pi's names and parameters (a session file's
// tool calls must mean the same to both programs), and the glue the agent needs around them.
import { z } from "zod";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { findTool } from "./find.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { readTool } from "./read.js";
import { ToolError, type Tool, type ToolContext, type ToolOutput } from "./types.js";
import { writeTool } from "./write.js";

export type { Tool, ToolContext, ToolOutput } from "./types.js";

/** All seven coding tools, in the order they are offered to the model. */
export function createCodingTools(): Tool[] {
  return [readTool, bashTool, editTool, writeTool, grepTool, findTool, lsTool] as Tool[];
}

export function toolByName(name: string, tools: readonly Tool[] = createCodingTools()): Tool | undefined {
  return tools.find((t) => t.name === name);
}

const schemaCache = new WeakMap<Tool, { type: "object"; [key: string]: unknown }>();

/** The JSON schema for the Anthropic API's `input_schema` (the shape the model may send). */
export function toolInputSchema(tool: Tool): { type: "object"; [key: string]: unknown } {
  // every session's agent asks for these; they never change
  let cached = schemaCache.get(tool);
  if (!cached) schemaCache.set(tool, (cached = computeInputSchema(tool)));
  return cached;
}

function computeInputSchema(tool: Tool): { type: "object"; [key: string]: unknown } {
  const schema = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  dropSafeIntegerBounds(schema);
  if (schema.type !== "object") throw new Error(`tool ${tool.name}: schema is not an object schema`);
  return schema as { type: "object"; [key: string]: unknown };
}

/**
 * The model's arguments checked against the tool's schema. Invalid arguments become a ToolError
 * listing what is wrong, for the model to correct on its next turn.
 */
export function parseToolArgs<P>(tool: Tool<P>, args: unknown): P {
  const result = tool.schema.safeParse(args);
  if (result.success) return result.data;
  throw new ToolError(`Invalid arguments for ${tool.name}:\n${z.prettifyError(result.error)}`);
}

/** parseToolArgs then execute: what the agent loop calls per tool call (it catches the throws). */
export async function runTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  return tool.execute(parseToolArgs(tool, args), ctx);
}

/** z.int() adds ±2^53-1 bounds; they say nothing to the model and only cost tokens. */
function dropSafeIntegerBounds(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
  if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
  for (const v of Object.values(o)) dropSafeIntegerBounds(v);
}
