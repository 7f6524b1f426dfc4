// A built-in tool made from its zod schema: the JSON Schema every provider is told is computed
// once, here, and the model's arguments are checked by the same schema (invalid ones become a
// ToolError listing what is wrong, for the model to correct on its next turn).
import { z } from "zod";
import { ToolError, type Tool, type ToolContext, type ToolEffects, type ToolInputSchema, type ToolOutput } from "./types.js";

export interface ZodToolSpec<P> {
  name: string;
  description: string;
  effects: ToolEffects;
  schema: z.ZodType<P>;
  execute(params: P, ctx: ToolContext): Promise<ToolOutput>;
}

export function zodTool<P>(spec: ZodToolSpec<P>): Tool<P> {
  const { schema, ...rest } = spec;
  return {
    ...rest,
    inputSchema: inputSchemaOf(spec.name, schema),
    parse(args) {
      const result = schema.safeParse(args);
      if (result.success) return result.data;
      throw new ToolError(`Invalid arguments for ${spec.name}:\n${z.prettifyError(result.error)}`);
    },
  };
}

function inputSchemaOf(name: string, schema: z.ZodType): ToolInputSchema {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  dropSafeIntegerBounds(json);
  if (json.type !== "object") throw new Error(`tool ${name}: schema is not an object schema`);
  return json as ToolInputSchema;
}

/** z.int() adds ±2^53-1 bounds; they say nothing to the model and only cost tokens. */
function dropSafeIntegerBounds(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
  if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
  for (const v of Object.values(o)) dropSafeIntegerBounds(v);
}
