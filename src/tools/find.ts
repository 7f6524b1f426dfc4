// find: files whose path matches a glob, under a directory. Hidden files are included; .git and
// node_modules are skipped (and pith's own folder); symlinks are listed but not followed. Results
// are sorted, so the same tree always gives the same answer (and the same cut when the limit
// applies). The glob is matched by an automaton in linear time, whatever the model wrote.
// Walking, matching and sorting a huge tree hand the event loop back every few milliseconds.
import { stat } from "node:fs/promises";
import { z } from "zod";
import { fsError, throwIfAborted } from "./fs-error-messages.js";
import { globMatcher, type PathMatcher } from "./glob.js";
import { deniedInside, resolvePath } from "./paths.js";
import { MAX_BYTES, formatSize, truncateHead } from "./truncate.js";
import { sortInSlices, TimeSlicer } from "./time-slice.js";
import { ToolError } from "./types.js";
import { walkFiles } from "./walk.js";
import { zodTool } from "./zod-tool.js";

const FIND_DEFAULT_LIMIT = 1000;

const schema = z.object({
  pattern: z.string().describe("Glob to match, e.g. '*.ts' (file name at any depth), '**/*.json' or 'src/**/*.spec.ts' (path relative to the search directory)"),
  path: z.string().optional().describe("Directory to search (default: the working directory)"),
  limit: z.number().int().min(1).optional().describe(`Most results to return (default ${FIND_DEFAULT_LIMIT})`),
});

export type FindParams = z.infer<typeof schema>;

export const findTool = zodTool<FindParams>({
  name: "find",
  effects: "read",
  description:
    `Find files by glob pattern (*, **, ?, {a,b}, [abc]). A pattern without "/" matches file names at any ` +
    `depth; one with "/" matches the path relative to the search directory. Returns sorted paths relative ` +
    `to the search directory, at most ${FIND_DEFAULT_LIMIT} unless limit says otherwise. Hidden files are ` +
    `included; .git and node_modules are skipped.`,
  schema,
  async execute(params, ctx) {
    throwIfAborted(ctx.signal);
    const shown = params.path ?? ".";
    const limit = params.limit ?? FIND_DEFAULT_LIMIT;
    const { absolute, real } = await resolvePath(shown, ctx);
    const info = await stat(absolute).catch((err) => {
      throw fsError(err, shown);
    });
    if (!info.isDirectory()) throw new ToolError(`${shown} is not a directory`);
    let matcher: PathMatcher;
    try {
      matcher = globMatcher(params.pattern);
    } catch (err) {
      throw new ToolError(`Invalid glob ${JSON.stringify(params.pattern)}: ${(err as Error).message}`);
    }

    const found: string[] = [];
    const slicer = new TimeSlicer();
    const walk = walkFiles(absolute, { signal: ctx.signal, skip: new Set(deniedInside(real, ctx.deniedPaths)), policy: ctx, shown });
    try {
      for await (const entry of walk) {
        if (matcher(entry.rel)) found.push(entry.rel);
        if (slicer.due()) await slicer.pause();
      }
    } catch (err) {
      throw fsError(err, shown);
    }
    throwIfAborted(ctx.signal);
    if (found.length === 0) return { content: [{ type: "text", text: "No files found matching the pattern" }], details: { total: 0 } };

    const sorted = await sortInSlices(found, (a, b) => (a < b ? -1 : a > b ? 1 : 0), slicer);
    throwIfAborted(ctx.signal);
    const listed = sorted.slice(0, limit);
    const t = truncateHead(listed.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: MAX_BYTES });
    const shownCount = t.truncated ? t.keptLines : listed.length;
    let text = t.text;
    if (t.truncated) {
      text += `\n\n[Showing ${shownCount} of ${found.length} files (${formatSize(MAX_BYTES)} output limit). Narrow the pattern or path.]`;
    } else if (shownCount < found.length) {
      text += `\n\n[Showing ${shownCount} of ${found.length} files. Use limit=${found.length} to see all, or narrow the pattern.]`;
    }
    return { content: [{ type: "text", text }], details: { total: found.length, shown: shownCount } };
  },
});
