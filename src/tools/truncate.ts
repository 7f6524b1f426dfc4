// Output limits shared by the tools. A tool result goes into the model's context on every later
// turn, so each one is capped by lines and by bytes; the caller adds a note saying how to get more.

/** Most lines a tool result keeps. */
export const MAX_LINES = 2000;
/** Most bytes (UTF-8) a tool result keeps. */
export const MAX_BYTES = 50 * 1024;
/** grep shows at most this many characters of a matching line (minified files have huge lines). */
export const MAX_MATCH_LINE_CHARS = 500;

export interface Truncation {
  text: string;
  truncated: boolean;
  /** which limit cut the text, when it was cut */
  truncatedBy?: "lines" | "bytes";
  totalLines: number;
  totalBytes: number;
  keptLines: number;
  keptBytes: number;
  /** the kept text is a piece of a single line longer than the byte limit */
  partialLine?: boolean;
}

export interface Limits {
  maxLines?: number;
  maxBytes?: number;
}

const byteLength = (s: string): number => Buffer.byteLength(s, "utf8");

/** Keeps the start of `text`: whole lines, as many as both limits allow. */
export function truncateHead(text: string, limits: Limits = {}): Truncation {
  return truncateEnd(text, limits, "head");
}

/** Keeps the end of `text` (where a command's errors and results are): whole lines, within both limits. */
export function truncateTail(text: string, limits: Limits = {}): Truncation {
  return truncateEnd(text, limits, "tail");
}

/** Keeps whole lines from one end of `text` while both limits allow. */
function truncateEnd(text: string, limits: Limits, keep: "head" | "tail"): Truncation {
  const maxLines = limits.maxLines ?? MAX_LINES;
  const maxBytes = limits.maxBytes ?? MAX_BYTES;
  const lines = text.split("\n");
  const totalBytes = byteLength(text);
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return { text, truncated: false, totalLines: lines.length, totalBytes, keptLines: lines.length, keptBytes: totalBytes };
  }
  const lineAt = (k: number) => (keep === "head" ? lines[k] : lines[lines.length - 1 - k]);
  let bytes = 0;
  let kept = 0;
  let by: "lines" | "bytes" = "lines";
  while (kept < lines.length && kept < maxLines) {
    const add = byteLength(lineAt(kept)) + (kept > 0 ? 1 : 0);
    if (bytes + add > maxBytes) {
      by = "bytes";
      break;
    }
    bytes += add;
    kept++;
  }
  if (kept === 0) {
    // the nearest line alone is over the byte limit: keep a piece of it rather than nothing
    const piece = keep === "head" ? sliceUtf8Head(lineAt(0) ?? "", maxBytes) : sliceUtf8Tail(lineAt(0) ?? "", maxBytes);
    return { text: piece, truncated: true, truncatedBy: "bytes", totalLines: lines.length, totalBytes, keptLines: 0, keptBytes: byteLength(piece), partialLine: true };
  }
  const out = (keep === "head" ? lines.slice(0, kept) : lines.slice(lines.length - kept)).join("\n");
  return { text: out, truncated: true, truncatedBy: by, totalLines: lines.length, totalBytes, keptLines: kept, keptBytes: bytes };
}

/** Cuts one line to `maxChars` characters, marking the cut. */
export function truncateLine(line: string, maxChars = MAX_MATCH_LINE_CHARS): { text: string; truncated: boolean } {
  if (line.length <= maxChars) return { text: line, truncated: false };
  return { text: `${line.slice(0, maxChars)}… [line truncated]`, truncated: true };
}

/** The longest prefix of `s` that is at most `maxBytes` in UTF-8, never splitting a character. */
export function sliceUtf8Head(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, "utf8");
  if (buf.length <= maxBytes) return s;
  let end = maxBytes;
  // step back off UTF-8 continuation bytes (10xxxxxx) so the cut falls on a character boundary
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/** The longest suffix of `s` that is at most `maxBytes` in UTF-8, never splitting a character. */
export function sliceUtf8Tail(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, "utf8");
  if (buf.length <= maxBytes) return s;
  let start = buf.length - maxBytes;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
}
