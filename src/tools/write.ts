// write: create or replace a whole file, making missing parent directories on the way.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { fsError, throwIfAborted } from "./errors.js";
import { resolvePath } from "./paths.js";
import { ToolError, type Tool } from "./types.js";

const schema = z.object({
  path: z.string().describe("Path of the file to write, relative to the working directory or absolute"),
  content: z.string().describe("The file's complete new content"),
});

export type WriteParams = z.infer<typeof schema>;

export const writeTool: Tool<WriteParams> = {
  name: "write",
  description:
    "Write a file: creates it (and any missing parent directories) or replaces its entire content. " +
    "For changes to part of an existing file, prefer edit.",
  schema,
  async execute(params, ctx) {
    throwIfAborted(ctx.signal);
    const shown = params.path;
    const { absolute } = await resolvePath(shown, ctx, "write");
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path`);
    try {
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(absolute, params.content, "utf8");
    } catch (err) {
      throw fsError(err, shown);
    }
    const bytes = Buffer.byteLength(params.content, "utf8");
    return {
      content: [{ type: "text", text: `${existing ? "Overwrote" : "Created"} ${shown} (${bytes} bytes written)` }],
      details: { bytes, created: !existing },
    };
  },
};
