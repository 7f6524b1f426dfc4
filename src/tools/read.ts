// read: a text file with line numbers (like `cat -n`), a window of it at a time; or an image,
// handed to the model as an image block. Line numbers let the model cite and page precisely;
// the window keeps one read from flooding the context.
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { openExisting, withOpened, type Opened } from "./confined-fs.js";
import { fsError, throwIfAborted } from "./fs-error-messages.js";
import { scanLines } from "./lines.js";
import { resolvePath } from "./paths.js";
import { MAX_BYTES, MAX_LINES, formatSize, sliceUtf8Head } from "./truncate.js";
import { ToolError, type ToolContext, type ToolOutput } from "./types.js";
import { zodTool } from "./zod-tool.js";

/** Largest image sent: its base64 (4/3 larger) stays within the API's 5 MB per image. */
const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

const schema = z.object({
  path: z.string().describe("Path of the file to read, relative to the working directory or absolute"),
  offset: z.number().int().min(1).optional().describe("Line number to start at (1-based; default 1)"),
  limit: z.number().int().min(1).optional().describe(`Most lines to return (default ${MAX_LINES})`),
});

export type ReadParams = z.infer<typeof schema>;

export interface ReadDetails {
  startLine: number;
  endLine: number;
  totalLines: number;
  truncated: boolean;
}

export const readTool = zodTool<ReadParams>({
  name: "read",
  effects: "read",
  description:
    `Read a file. Text comes back with line numbers (number, tab, line), at most ${MAX_LINES} lines or ` +
    `${formatSize(MAX_BYTES)} per call; when more remains, the result ends with a note giving the offset to ` +
    `continue from. Use offset/limit to read a part of a large file. PNG, JPEG, GIF and WebP images are ` +
    `returned as images. Directories and binary files are refused (use ls, or bash).`,
  schema,
  execute: (params, ctx) => runRead(params, ctx),
});

async function runRead(params: ReadParams, ctx: ToolContext): Promise<ToolOutput> {
  throwIfAborted(ctx.signal);
  const shown = params.path;
  const { absolute } = await resolvePath(shown, ctx);
  // what is read is what was checked: the same descriptor (see confined-fs.ts)
  return withOpened(
    () => openExisting(absolute, { ctx, shown }),
    shown,
    async (file: Opened) => {
      const info = file.stats;
      if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file; use ls to list it`);
      if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
      const mimeType = await sniffImage(file.handle, shown);
      if (mimeType) return readImage(file.handle, shown, mimeType, info.size);
      return readText(file.handle, shown, params, ctx.signal);
    },
  );
}

/**
 * The image type from the file's first bytes. The extension is not trusted: the API rejects an
 * image whose bytes do not match its declared type, and a text file named x.png is still text.
 */
async function sniffImage(handle: FileHandle, shown: string): Promise<string | undefined> {
  const head = Buffer.alloc(12);
  try {
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    return imageMimeType(head.subarray(0, bytesRead));
  } catch (err) {
    throw fsError(err, shown);
  }
}

function imageMimeType(b: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => Buffer.from(b.subarray(from, to)).toString("latin1");
  if (b.length >= 8 && b[0] === 0x89 && ascii(1, 4) === "PNG" && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "image/gif";
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

async function readImage(handle: FileHandle, shown: string, mimeType: string, size: number): Promise<ToolOutput> {
  if (size > MAX_IMAGE_BYTES) {
    throw new ToolError(
      `${shown} is a ${formatSize(size)} image; images over ${formatSize(MAX_IMAGE_BYTES)} cannot be sent. ` +
        `Shrink it first with bash if a tool is available (e.g. ImageMagick's convert).`,
    );
  }
  const data = await handle.readFile().catch((err) => {
    throw fsError(err, shown);
  });
  return {
    content: [
      { type: "text", text: `Image ${shown} (${mimeType}, ${formatSize(size)})` },
      { type: "image", data: data.toString("base64"), mimeType },
    ],
    details: { mimeType, bytes: size },
  };
}

async function readText(handle: FileHandle, shown: string, params: ReadParams, signal: AbortSignal): Promise<ToolOutput> {
  const start = params.offset ?? 1;
  const maxLines = params.limit ?? MAX_LINES;
  const out: string[] = [];
  let bytes = 0;
  let cutByBytes = false;
  let partialLine: { number: number; bytes: number; shownBytes: number } | undefined;

  const scan = await scanLines(
    handle,
    (line, n, cutFrom) => {
      if (n < start) return;
      if (out.length >= maxLines) return "count";
      const formatted = `${String(n).padStart(6)}\t${line}`;
      const add = Buffer.byteLength(formatted, "utf8") + 1;
      if (bytes + add > MAX_BYTES) {
        cutByBytes = true;
        if (out.length === 0) {
          // a single line over the limit: show its start so the call still makes progress
          const piece = sliceUtf8Head(formatted, MAX_BYTES);
          out.push(piece);
          const prefixBytes = formatted.length - line.length; // the number and tab are ASCII
          partialLine = { number: n, bytes: cutFrom ?? Buffer.byteLength(line, "utf8"), shownBytes: Buffer.byteLength(piece, "utf8") - prefixBytes };
        }
        return "count";
      }
      out.push(formatted);
      bytes += add;
    },
    // a line is never kept past what one result can show (a longer one is cut as it is read)
    { signal, maxLineBytes: MAX_BYTES },
  ).catch((err) => {
    throw fsError(err, shown);
  });

  if (scan.binary) {
    throw new ToolError(`${shown} looks like a binary file (it contains NUL bytes), so read cannot show it; inspect it with bash (e.g. file, xxd, strings).`);
  }
  const total = scan.lines;
  if (total === 0) {
    if (start > 1) throw new ToolError(`offset ${start} is beyond the end of ${shown}, which is empty`);
    return { content: [{ type: "text", text: `[${shown} is empty]` }], details: { startLine: 0, endLine: 0, totalLines: 0, truncated: false } satisfies ReadDetails };
  }
  if (start > total) {
    throw new ToolError(`offset ${start} is beyond the end of ${shown} (${total} line${total === 1 ? "" : "s"})`);
  }

  const end = start + out.length - 1;
  let text = out.join("\n");
  const notes: string[] = [];
  if (partialLine) {
    notes.push(
      `Line ${partialLine.number} is ${formatSize(partialLine.bytes)}, over the ${formatSize(MAX_BYTES)} limit; only its start is shown. ` +
        `See the rest with bash, e.g. sed -n '${partialLine.number}p' ${shellQuote(shown)} | cut -b ${partialLine.shownBytes + 1}-`,
    );
  }
  if (end < total) {
    notes.push(`Showing lines ${start}-${end} of ${total}${cutByBytes ? ` (${formatSize(MAX_BYTES)} limit)` : ""}. Use offset=${end + 1} to continue.`);
  }
  if (notes.length > 0) text += `\n\n[${notes.join(" ")}]`;
  const details: ReadDetails = { startLine: start, endLine: end, totalLines: total, truncated: end < total || partialLine !== undefined };
  return { content: [{ type: "text", text }], details };
}

function shellQuote(s: string): string {
  return /^[\w./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
