// write: create or replace a whole file, making missing parent directories on the way. The file
// (and each directory made) is opened and checked before anything is written: see confined-fs.ts.
// pith writes it itself, with or without an editor: an editor's fs/write_text_file would open the
// path again, after pith's check, where a swapped link can send it anywhere (docs/acp.md).
import { z } from "zod";
import { openForReplace, replaceContent, withOpened } from "./confined-fs.js";
import { throwIfAborted } from "./fs-error-messages.js";
import { resolvePath } from "./paths.js";
import { ToolError, type ToolContext } from "./types.js";
import { zodTool } from "./zod-tool.js";

const schema = z.object({
  path: z.string().describe("Path of the file to write, relative to the working directory or absolute"),
  content: z.string().describe("The file's complete new content"),
});

export type WriteParams = z.infer<typeof schema>;

export const writeTool = zodTool<WriteParams>({
  name: "write",
  effects: "write",
  description:
    "Write a file: creates it (and any missing parent directories) or replaces its entire content. " +
    "For changes to part of an existing file, prefer edit.",
  schema,
  async execute(params, ctx) {
    throwIfAborted(ctx.signal);
    const shown = params.path;
    const { absolute } = await resolvePath(shown, ctx, "write");
    const data = Buffer.from(params.content, "utf8");
    const created = await writeOnDisk(absolute, data, shown, ctx);
    return {
      content: [{ type: "text", text: `${created ? "Created" : "Overwrote"} ${shown} (${data.length} bytes written)` }],
      details: { bytes: data.length, created },
    };
  },
});

/** Writes the file through a checked descriptor; true when it is new. */
function writeOnDisk(absolute: string, data: Buffer, shown: string, ctx: ToolContext): Promise<boolean> {
  return withOpened(
    () =>
      openForReplace(absolute, { ctx, shown }).catch((err: NodeJS.ErrnoException) => {
        throw err.code === "EISDIR" ? new ToolError(`${shown} is a directory; give a file path`) : err;
      }),
    shown,
    async (file) => {
      if (!file.stats.isFile()) throw new ToolError(`${shown} is not a regular file; write only replaces files`);
      await replaceContent(file, data);
      return file.created;
    },
  );
}
