// edit: replace one exact piece of a file. Exactly one occurrence must match, so the model cannot
// change the wrong place by accident; when nothing matches, the error says why as best it can.
//
// Line endings: the model writes "\n"; a CRLF file is matched with oldText's newlines read as
// "\r\n", and the inserted text takes the line ending of the text it replaces (or, if that has no
// newline, the file's usual one), so an edit never turns a CRLF file into a mixed one.
// A UTF-8 byte-order mark is kept and is invisible to matching.
//
// The match is found in the file's bytes and only the matched bytes are replaced: everything else
// is copied as it is. Decoding the file to text and writing the text back would turn any byte
// that is not valid UTF-8 (a latin-1 comment, a stray byte) into U+FFFD on lines the edit never
// touched. The file is opened once, checked, read and rewritten through that descriptor, with or
// without an editor (an editor's fs requests open by path, after the check: docs/acp.md).
import { z } from "zod";
import { openExisting, replaceContent, withOpened } from "./confined-fs.js";
import { editDiff } from "./edit-diff.js";
import { throwIfAborted } from "./fs-error-messages.js";
import { looksBinary } from "./lines.js";
import { resolvePath } from "./paths.js";
import { ToolError } from "./types.js";
import { zodTool } from "./zod-tool.js";

const schema = z.object({
  path: z.string().describe("Path of the file to edit, relative to the working directory or absolute"),
  oldText: z.string().describe("Exact text to replace; must occur exactly once in the file (include surrounding lines to make it unique)"),
  newText: z.string().describe("Text to put in its place"),
});

export type EditParams = z.infer<typeof schema>;

export const editTool = zodTool<EditParams>({
  name: "edit",
  effects: "write",
  description:
    "Edit a file by replacing text: oldText must match the file exactly (whitespace and indentation included) " +
    "and occur exactly once; it is replaced by newText. Read the file first, and add surrounding lines to oldText " +
    "when the text occurs more than once. For new files or complete rewrites use write.",
  schema,
  async execute(params, ctx) {
    throwIfAborted(ctx.signal);
    const shown = params.path;
    const { absolute } = await resolvePath(shown, ctx, "write");
    if (params.oldText.length === 0) throw new ToolError("oldText is empty; give the exact text to replace (use write to create a file)");
    if (params.oldText === params.newText) throw new ToolError("oldText and newText are identical; nothing would change");

    return withOpened(
      () =>
        openExisting(absolute, { ctx, shown }, "write").catch((err: NodeJS.ErrnoException) => {
          throw err.code === "EISDIR" ? new ToolError(`${shown} is a directory, not a file`) : err;
        }),
      shown,
      async (file) => {
        if (file.stats.isDirectory()) throw new ToolError(`${shown} is a directory, not a file`);
        if (!file.stats.isFile()) throw new ToolError(`${shown} is not a regular file`);
        const raw = await file.handle.readFile();
        if (looksBinary(raw)) throw new ToolError(`${shown} looks like a binary file; edit only changes text files`);
        const edited = applyEdit(raw, params.oldText, params.newText, shown);
        throwIfAborted(ctx.signal);
        await replaceContent(file, edited.bytes);
        return {
          content: [{ type: "text", text: `Edited ${shown}: replaced 1 occurrence (at line ${edited.firstChangedLine}).` }],
          details: { diff: edited.diff, firstChangedLine: edited.firstChangedLine },
        };
      },
    );
  },
});

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 10;
const CR = 13;

/** The file's bytes with the one occurrence of oldText replaced; throws ToolError when it is not exactly one. */
function applyEdit(raw: Buffer, oldText: string, newText: string, shown: string): { bytes: Buffer; diff: string; firstChangedLine: number } {
  const bomLength = raw.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  const body = raw.subarray(bomLength);
  const fileEol = dominantEol(body);

  let match: { at: number; found: Buffer; count: number } | undefined;
  for (const candidate of matchCandidates(oldText, fileEol)) {
    const needle = Buffer.from(candidate, "utf8");
    const count = countOccurrences(body, needle);
    if (count > 0) {
      match = { at: body.indexOf(needle), found: needle, count };
      break;
    }
  }
  if (!match) throw new ToolError(noMatchMessage(shown, body.toString("utf8"), oldText));
  if (match.count > 1) {
    throw new ToolError(
      `oldText occurs ${match.count} times in ${shown}; it must occur exactly once. ` +
        `Add more surrounding lines to oldText to make it unique.`,
    );
  }

  const found = match.found.toString("utf8");
  const eol = found.includes("\r\n") ? "\r\n" : found.includes("\n") ? "\n" : fileEol;
  const replacement = Buffer.from(withEol(newText, eol), "utf8");
  if (replacement.equals(match.found)) throw new ToolError("The replacement leaves the file unchanged");
  const end = match.at + match.found.length;
  const bytes = Buffer.concat([raw.subarray(0, bomLength + match.at), replacement, body.subarray(end)]);

  // the diff is for display only: decoded text is fine there
  const startLine = countNewlines(body, match.at);
  const { diff, firstChangedLine } = editDiff(
    body.toString("utf8").split(/\r?\n/),
    bytes.subarray(bomLength).toString("utf8").split(/\r?\n/),
    startLine,
    countNewlines(match.found, match.found.length) + 1,
    countNewlines(replacement, replacement.length) + 1,
  );
  return { bytes, diff, firstChangedLine };
}

/** "\r\n" when most of the file's line breaks are CRLF, else "\n". */
function dominantEol(b: Buffer): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let i = b.indexOf(LF); i !== -1; i = b.indexOf(LF, i + 1)) {
    if (i > 0 && b[i - 1] === CR) crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** oldText as given, then with its line breaks in the file's style (the model usually writes "\n"). */
function matchCandidates(oldText: string, eol: "\n" | "\r\n"): string[] {
  const converted = withEol(oldText, eol);
  return converted === oldText ? [oldText] : [oldText, converted];
}

function withEol(s: string, eol: string): string {
  return s.replace(/\r?\n/g, eol);
}

/** Occurrences, overlapping ones included (they make the target just as ambiguous). */
function countOccurrences(haystack: Buffer, needle: Buffer): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
  return count;
}

function countNewlines(b: Buffer, end: number): number {
  let n = 0;
  for (let i = b.indexOf(LF); i !== -1 && i < end; i = b.indexOf(LF, i + 1)) n++;
  return n;
}

/** Whitespace-insensitive form, to tell "almost matches" from "not there at all". */
function loose(s: string): string {
  return s
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "))
    .join("\n")
    .trim();
}

function noMatchMessage(shown: string, body: string, oldText: string): string {
  let msg = `oldText was not found in ${shown}; it must match the file exactly, including whitespace and indentation.`;
  const lines = oldText.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length > 0 && lines.every((l) => /^\s*\d+\t/.test(l))) {
    msg += " It seems to include the line-number prefixes of read's output; leave those out.";
  } else {
    const looseOld = loose(oldText);
    if (looseOld.length > 0 && loose(body).includes(looseOld)) {
      msg += " It would match if whitespace were ignored: check indentation (tabs vs spaces), trailing spaces and line breaks, and copy the text exactly from a fresh read.";
    } else {
      msg += " Read the file again to see its current content.";
    }
  }
  return msg;
}
