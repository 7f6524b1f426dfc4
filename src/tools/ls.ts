// ls: one directory's entries, sorted, directories marked with a trailing "/", hidden files included.
// The directory is opened, checked (confined-fs.ts) and listed through that descriptor; sorting a
// huge directory hands the event loop back every few milliseconds.
import { opendir, stat } from "node:fs/promises";
import { z } from "zod";
import { openDirectory, withOpened } from "./confined-fs.js";
import { fsError, throwIfAborted } from "./fs-error-messages.js";
import { resolvePath } from "./paths.js";
import { MAX_BYTES, formatSize, truncateHead } from "./truncate.js";
import { sortInSlices } from "./time-slice.js";
import { ToolError } from "./types.js";
import { zodTool } from "./zod-tool.js";

const LS_DEFAULT_LIMIT = 500;

const schema = z.object({
  path: z.string().optional().describe("Directory to list (default: the working directory)"),
  limit: z.number().int().min(1).optional().describe(`Most entries to return (default ${LS_DEFAULT_LIMIT})`),
});

export type LsParams = z.infer<typeof schema>;

export const lsTool = zodTool<LsParams>({
  name: "ls",
  effects: "read",
  description:
    `List a directory's entries in alphabetical order, hidden files included; directories end with "/". ` +
    `Returns at most ${LS_DEFAULT_LIMIT} entries unless limit says otherwise.`,
  schema,
  async execute(params, ctx) {
    throwIfAborted(ctx.signal);
    const shown = params.path ?? ".";
    const limit = params.limit ?? LS_DEFAULT_LIMIT;
    const { absolute } = await resolvePath(shown, ctx);
    const info = await stat(absolute).catch((err) => {
      throw fsError(err, shown);
    });
    if (!info.isDirectory()) throw new ToolError(`${shown} is not a directory; use read for files`);

    const { total, names } = await withOpened(
      () => openDirectory(absolute, { ctx, shown }),
      shown,
      async (dir) => {
        // read in batches (readdir would build every entry of a 300,000-name directory in one go)
        const dirents: { name: string; isDirectory(): boolean; isSymbolicLink(): boolean }[] = [];
        for await (const d of await opendir(dir.path, { bufferSize: 256 })) dirents.push(d);
        // case-insensitive first so "README" sits next to "readme.txt", code points to break ties
        const sorted = await sortInSlices(dirents, (a, b) => {
          const la = a.name.toLowerCase();
          const lb = b.name.toLowerCase();
          if (la !== lb) return la < lb ? -1 : 1;
          return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
        });
        const names: string[] = [];
        for (const d of sorted.slice(0, limit)) {
          let isDir = d.isDirectory();
          if (d.isSymbolicLink()) {
            // a link to a directory is listed as one (a dangling link as a plain entry)
            isDir = (await stat(`${dir.path}/${d.name}`).catch(() => undefined))?.isDirectory() ?? false;
          }
          names.push(isDir ? `${d.name}/` : d.name);
        }
        return { total: dirents.length, names };
      },
    );
    if (total === 0) return { content: [{ type: "text", text: `(${shown} is empty)` }], details: { entries: 0 } };

    const t = truncateHead(names.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: MAX_BYTES });
    let text = t.text;
    const shownCount = t.truncated ? t.keptLines : names.length;
    if (t.truncated) {
      text += `\n\n[Showing ${shownCount} of ${total} entries (${formatSize(MAX_BYTES)} output limit). Use find with a pattern to narrow the list.]`;
    } else if (shownCount < total) {
      text += `\n\n[Showing ${shownCount} of ${total} entries. Use limit=${total} to see all.]`;
    }
    return { content: [{ type: "text", text }], details: { entries: total, shown: shownCount } };
  },
});
