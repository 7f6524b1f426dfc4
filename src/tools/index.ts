// The coding tools the agent offers the model, with Pi's names and parameters (a session file's
// tool calls must mean the same to both programs), and the glue the agent needs around them.
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { findTool } from "./find.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { readTool } from "./read.js";
import type { Tool, ToolContext, ToolOutput } from "./types.js";
import { writeTool } from "./write.js";

export type { Tool, ToolContext, ToolOutput } from "./types.js";

/** All seven coding tools, in the order they are offered to the model. */
export function createCodingTools(): Tool[] {
  return [readTool, bashTool, editTool, writeTool, grepTool, findTool, lsTool] as Tool[];
}

export function toolByName(name: string, tools: readonly Tool[] = createCodingTools()): Tool | undefined {
  return tools.find((t) => t.name === name);
}

/** The JSON schema every provider is told (the Anthropic API's `input_schema` shape). */
export function toolInputSchema(tool: Tool): { type: "object"; [key: string]: unknown } {
  return tool.inputSchema;
}

/**
 * The model's arguments checked against the tool's schema. Invalid arguments become a ToolError
 * listing what is wrong, for the model to correct on its next turn.
 */
export function parseToolArgs<P>(tool: Tool<P>, args: unknown): P {
  return tool.parse(args);
}

/** parseToolArgs then execute: what the agent loop calls per tool call (it catches the throws). */
export async function runTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  return tool.execute(parseToolArgs(tool, args), ctx);
}
