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

/** The tool's check of the arguments, then execute: one call as the agent loop makes it (it catches the throws). */
export async function runTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  return tool.execute(tool.parse(args), ctx);
}
