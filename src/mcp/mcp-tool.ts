// An MCP server's tool as one of the agent's: the model's name for it (tool-names.ts), the
// server's description and JSON Schema, and the effects its annotations declare. Only
// `readOnlyHint: true` makes it read-only; anything else (no annotations, destructiveHint false,
// openWorldHint) counts as unknown effects, so "ask" asks and "readonly" refuses: a server's
// word that a tool only reads is the one thing that lets it run without a question.
import type { Tool } from "../tools/types.js";
import { ToolError } from "../tools/types.js";
import type { ServerConnection, ServerTool } from "./server-connection.js";
import { toolOutputOf } from "./tool-result.js";

/** A server's description goes into every request: this much of it, at most. */
const MAX_DESCRIPTION_CHARS = 4000;

function description(tool: ServerTool, server: string): string {
  const text = tool.description.length > MAX_DESCRIPTION_CHARS ? `${tool.description.slice(0, MAX_DESCRIPTION_CHARS)}…` : tool.description;
  return `${text}${text ? "\n\n" : ""}(tool ${tool.name} of the MCP server "${server}")`;
}

export function mcpTool(connection: ServerConnection, tool: ServerTool, name: string): Tool<Record<string, unknown>> {
  return {
    name,
    description: description(tool, connection.name),
    effects: tool.readOnly ? "read" : "unknown",
    inputSchema: tool.inputSchema,
    parse(args) {
      if (args === null || typeof args !== "object" || Array.isArray(args)) throw new ToolError(`The arguments of ${name} must be a JSON object.`);
      return args as Record<string, unknown>;
    },
    async execute(params, ctx) {
      const result = await connection.call(tool.name, params, ctx.signal);
      const output = toolOutputOf(result, { server: connection.name, tool: tool.name }, ctx.tempDir);
      if (result.isError === true) {
        const text = output.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
        throw new ToolError(text || `The MCP tool ${tool.name} reported an error.`, output.details);
      }
      return output;
    },
  };
}
