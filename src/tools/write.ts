// write: create or replace a whole file, making missing parent directories on the way. The file
// (and each directory made) is opened and checked before anything is written: see confined-fs.ts.
// With an editor that writes files (ACP fs/write_text_file), the editor writes it, at the location
// pith checked the same way (editor-files.ts).
import { z } from "zod";
import { locateForReplace, openForReplace, replaceContent, withOpened } from "./confined-fs.js";
import { writeThroughEditor, type EditorWriter } from "./editor-files.js";
import { fsError, throwIfAborted } from "./fs-error-messages.js";
import { resolvePath } from "./paths.js";
import { ToolError, type Tool, type ToolContext } from "./types.js";

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
    const data = Buffer.from(params.content, "utf8");
    const editor = ctx.editor?.files;
    const created = editor?.writeTextFile ? await writeInEditor(editor as EditorWriter, absolute, params.content, shown, ctx) : await writeOnDisk(absolute, data, shown, ctx);
    return {
      content: [{ type: "text", text: `${created ? "Created" : "Overwrote"} ${shown} (${data.length} bytes written)` }],
      details: { bytes: data.length, created },
    };
  },
};

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

/** The editor writes the file (and updates its buffer), at the location pith checked; true when it is new. */
async function writeInEditor(editor: EditorWriter, absolute: string, content: string, shown: string, ctx: ToolContext): Promise<boolean> {
  let target: Awaited<ReturnType<typeof locateForReplace>>;
  try {
    target = await locateForReplace(absolute, { ctx, shown });
  } catch (err) {
    throw fsError(err, shown);
  }
  if (target.stats?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path`);
  if (target.stats && !target.stats.isFile()) throw new ToolError(`${shown} is not a regular file; write only replaces files`);
  await writeThroughEditor(editor, target.real, content, shown);
  return target.stats === undefined;
}
