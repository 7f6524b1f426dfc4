// read, write and edit through the editor's buffers (EditorFiles), after pith's own checks.
//
// The tools open and check the file first, as without an editor (confined-fs.ts: the rules are
// applied to what was actually opened), and hand the editor its real location, as the kernel
// named it for the checked descriptor: a path with no symbolic link left in it. The editor then
// opens that path itself, which pith cannot check by descriptor; so the path is resolved again
// before it is handed over and after the editor answered, and a path that now leads somewhere
// else (a directory on the way swapped for a link meanwhile) is refused. What remains is a swap
// and a swap back that both fall inside one editor call: only a command running at that very
// moment could do that (a session runs its tools one at a time, and a sandboxed command's
// processes end with it: so another session's command, in the same tree). docs/acp.md says so
// rather than calling the window closed.
import type { EditorFiles } from "./editor-ports.js";
import { messageOf } from "./fs-error-messages.js";
import { realpathLoose } from "./paths.js";
import { ToolError } from "./types.js";

export type EditorReader = Required<Pick<EditorFiles, "readTextFile">>;
export type EditorWriter = Required<Pick<EditorFiles, "writeTextFile">>;

/** The editor's text of the checked file at `real`, as UTF-8 bytes (scanned and edited like the file's). */
export async function readThroughEditor(editor: EditorReader, real: string, shown: string): Promise<Buffer> {
  await unmoved(real, shown);
  let text: string;
  try {
    text = await editor.readTextFile(real);
  } catch (err) {
    throw new ToolError(`The editor could not read ${shown}: ${messageOf(err)}`);
  }
  await unmoved(real, shown);
  return Buffer.from(text, "utf8");
}

/** Hands the editor the file's whole new text, for the checked location `real`. */
export async function writeThroughEditor(editor: EditorWriter, real: string, content: string, shown: string): Promise<void> {
  await unmoved(real, shown);
  try {
    await editor.writeTextFile(real, content);
  } catch (err) {
    throw new ToolError(`The editor could not write ${shown}: ${messageOf(err)}`);
  }
}

async function unmoved(real: string, shown: string): Promise<void> {
  if ((await realpathLoose(real)) !== real) throw new ToolError(`${shown} changed while it was being opened (a directory on its path became a link); try again`);
}
