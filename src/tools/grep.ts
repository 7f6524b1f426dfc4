// grep: search file contents for a regular expression, in Node (no ripgrep needed). Files are read
// in chunks and the search stops at the match limit, so a broad pattern over a big tree returns
// quickly. .git and node_modules are skipped, binary files (a NUL in the first 8 KB) too, and
// symlinks are not followed. The pattern is a JavaScript regular expression (close to ripgrep's
// syntax for everyday patterns); `literal` searches for the text as is. .gitignore is not read.
import { stat } from "node:fs/promises";
import { z } from "zod";
import { abortedError, fsError, throwIfAborted } from "./errors.js";
import { globMatcher, type PathMatcher } from "./glob.js";
import { scanLines } from "./lines.js";
import { resolvePath } from "./paths.js";
import { MAX_BYTES, MAX_MATCH_LINE_CHARS, formatSize, truncateLine } from "./truncate.js";
import { ToolError, type Tool, type ToolContext, type ToolOutput } from "./types.js";
import { walkFiles } from "./walk.js";

export const GREP_DEFAULT_LIMIT = 100;

// parameter names and meanings as in Pi (literal and context included, so calls from Pi sessions mean the same)
const schema = z.object({
  pattern: z.string().describe("Regular expression to search for (JavaScript syntax), or plain text with literal: true"),
  path: z.string().optional().describe("Directory or file to search (default: the working directory)"),
  glob: z.string().optional().describe("Only search files matching this glob, e.g. '*.ts' (file name at any depth) or 'src/**/*.test.ts' (path relative to the search directory)"),
  ignoreCase: z.boolean().optional().describe("Match case-insensitively (default false)"),
  literal: z.boolean().optional().describe("Treat pattern as plain text rather than a regular expression (default false)"),
  context: z.number().int().min(0).optional().describe("Lines of context to show before and after each match (default 0)"),
  limit: z.number().int().min(1).optional().describe(`Most matches to return (default ${GREP_DEFAULT_LIMIT})`),
});

export type GrepParams = z.infer<typeof schema>;

export const grepTool: Tool<GrepParams> = {
  name: "grep",
  description:
    `Search file contents for a regular expression. Returns matching lines as "file:line: text", with file ` +
    `paths relative to the searched directory; context lines (if asked for) look like "file-line- text". ` +
    `Searches hidden files, skips .git, node_modules and binary files. Stops at ${GREP_DEFAULT_LIMIT} matches ` +
    `by default; lines longer than ${MAX_MATCH_LINE_CHARS} characters are cut.`,
  schema,
  execute: (params, ctx) => runGrep(params, ctx),
};

async function runGrep(params: GrepParams, ctx: ToolContext): Promise<ToolOutput> {
  throwIfAborted(ctx.signal);
  const shown = params.path ?? ".";
  const limit = params.limit ?? GREP_DEFAULT_LIMIT;
  const context = params.context ?? 0;
  const { absolute } = await resolvePath(shown, ctx);
  const info = await stat(absolute).catch((err) => {
    throw fsError(err, shown);
  });

  let regex: RegExp;
  try {
    regex = new RegExp(params.literal ? escapeRegExp(params.pattern) : params.pattern, params.ignoreCase ? "i" : "");
  } catch (err) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(params.pattern)}: ${(err as Error).message}. Use literal: true to search for the text as is.`);
  }
  let matcher: PathMatcher | undefined;
  if (params.glob !== undefined) {
    try {
      matcher = globMatcher(params.glob);
    } catch (err) {
      throw new ToolError(`Invalid glob ${JSON.stringify(params.glob)}: ${(err as Error).message}`);
    }
  }

  const out: { line: string; isMatch: boolean }[] = [];
  let outBytes = 0;
  let matches = 0;
  // an object, not a let: the visitor closure sets it, and TS would not see that after the walk
  const stop: { at?: "limit" | "bytes" } = {};
  let linesCut = false;
  const emit = (s: string, isMatch = false) => {
    out.push({ line: s, isMatch });
    outBytes += Buffer.byteLength(s, "utf8") + 1;
  };

  const searchFile = async (path: string, label: string) => {
    let before: { n: number; text: string }[] = [];
    let afterLeft = 0;
    await scanLines(
      path,
      (line, n) => {
        const show = () => {
          const t = truncateLine(line);
          if (t.truncated) linesCut = true;
          return t.text;
        };
        if (regex.test(line)) {
          if (matches >= limit) {
            stop.at = "limit";
            return "stop";
          }
          matches++;
          for (const b of before) emit(`${label}-${b.n}- ${b.text}`);
          before = [];
          emit(`${label}:${n}: ${show()}`, true);
          afterLeft = context;
        } else if (afterLeft > 0) {
          emit(`${label}-${n}- ${show()}`);
          afterLeft--;
        } else if (context > 0) {
          before.push({ n, text: show() });
          if (before.length > context) before.shift();
        }
        if (outBytes > MAX_BYTES) {
          stop.at = "bytes";
          return "stop";
        }
        // the last allowed match is in and its trailing context printed: nothing more to collect
        if (matches >= limit && afterLeft === 0) {
          stop.at = "limit";
          return "stop";
        }
      },
      ctx.signal,
    ).catch((err) => {
      if (ctx.signal.aborted) throw abortedError();
      // a file that vanished or is unreadable mid-walk is skipped, as grep -s would
      if (!(err as NodeJS.ErrnoException).code) throw err;
    });
  };

  if (info.isFile()) {
    await searchFile(absolute, shown);
  } else if (info.isDirectory()) {
    for await (const entry of walkFiles(absolute, ctx.signal)) {
      if (entry.kind !== "file") continue;
      if (matcher && !matcher(entry.rel)) continue;
      await searchFile(entry.path, entry.rel);
      if (stop.at) break;
    }
  } else {
    throw new ToolError(`${shown} is neither a file nor a directory`);
  }
  throwIfAborted(ctx.signal);

  if (matches === 0) return { content: [{ type: "text", text: "No matches found" }], details: { matches: 0 } };
  if (stop.at === "bytes") {
    // the line that crossed the limit goes back out
    while (out.length > 1 && outBytes > MAX_BYTES) {
      const dropped = out.pop()!;
      outBytes -= Buffer.byteLength(dropped.line, "utf8") + 1;
      if (dropped.isMatch) matches--;
    }
  }
  const notes: string[] = [];
  if (stop.at === "limit") notes.push(`Stopped at ${limit} matches; there may be more. Use limit=${limit * 2} or a narrower pattern, path or glob`);
  if (stop.at === "bytes") notes.push(`Output limit of ${formatSize(MAX_BYTES)} reached; narrow the search`);
  if (linesCut) notes.push(`Some lines were cut at ${MAX_MATCH_LINE_CHARS} characters; use read to see them whole`);
  let text = out.map((o) => o.line).join("\n");
  if (notes.length > 0) text += `\n\n[${notes.join(". ")}.]`;
  return { content: [{ type: "text", text }], details: { matches, ...(stop.at ? { stoppedAt: stop.at } : {}), ...(linesCut ? { linesCut } : {}) } };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
