// What grep shows, whichever engine searched: matching lines as "file:line: text", context lines
// as "file-line- text", long lines cut, at most `limit` matches and MAX_BYTES of output, and notes
// saying where it stopped. Plain data in and out, so a worker thread can fill one too.
import { MAX_BYTES, MAX_MATCH_LINE_CHARS, formatSize, truncateLine } from "./truncate.js";
import type { ToolOutput } from "./types.js";

export type StopReason = "limit" | "bytes" | "time";

export interface GrepCollected {
  lines: { line: string; isMatch: boolean }[];
  matches: number;
  stoppedAt?: StopReason;
  linesCut: boolean;
}

export class GrepCollector {
  readonly lines: GrepCollected["lines"] = [];
  matches = 0;
  stoppedAt?: StopReason;
  linesCut = false;
  private bytes = 0;

  constructor(readonly limit: number) {}

  private show(text: string): string {
    const t = truncateLine(text);
    if (t.truncated) this.linesCut = true;
    return t.text;
  }

  private push(line: string, isMatch: boolean): boolean {
    this.lines.push({ line, isMatch });
    this.bytes += Buffer.byteLength(line, "utf8") + 1;
    if (this.bytes > MAX_BYTES) {
      this.stoppedAt = "bytes";
      return false;
    }
    return true;
  }

  /** A matching line; false when the search must stop (the limit was already reached, or the output is full). */
  match(label: string, n: number, text: string): boolean {
    if (this.matches >= this.limit) {
      this.stoppedAt = "limit";
      return false;
    }
    this.matches++;
    return this.push(`${label}:${n}: ${this.show(text)}`, true);
  }

  /** A line of context around a match; false when the output is full. */
  context(label: string, n: number, text: string): boolean {
    return this.push(`${label}-${n}- ${this.show(text)}`, false);
  }

  stop(reason: StopReason): void {
    this.stoppedAt ??= reason;
  }

  collected(): GrepCollected {
    return { lines: this.lines, matches: this.matches, ...(this.stoppedAt ? { stoppedAt: this.stoppedAt } : {}), linesCut: this.linesCut };
  }
}

/** The tool's result from what an engine collected. */
export function grepResult(c: GrepCollected, limit: number, timeLimitMs: number): ToolOutput {
  const lines = [...c.lines];
  let matches = c.matches;
  if (c.stoppedAt === "bytes") {
    // the line that crossed the limit goes back out
    let bytes = lines.reduce((sum, l) => sum + Buffer.byteLength(l.line, "utf8") + 1, 0);
    while (lines.length > 1 && bytes > MAX_BYTES) {
      const dropped = lines.pop()!;
      bytes -= Buffer.byteLength(dropped.line, "utf8") + 1;
      if (dropped.isMatch) matches--;
    }
  }
  if (matches === 0 && c.stoppedAt !== "time") return { content: [{ type: "text", text: "No matches found" }], details: { matches: 0 } };
  const notes: string[] = [];
  if (c.stoppedAt === "limit") notes.push(`Stopped at ${limit} matches; there may be more. Use limit=${limit * 2} or a narrower pattern, path or glob`);
  if (c.stoppedAt === "bytes") notes.push(`Output limit of ${formatSize(MAX_BYTES)} reached; narrow the search`);
  if (c.stoppedAt === "time") notes.push(`The search was stopped after ${Math.round(timeLimitMs / 1000)} s; these are the matches found until then. Narrow the pattern, path or glob`);
  if (c.linesCut) notes.push(`Some lines were cut at ${MAX_MATCH_LINE_CHARS} characters; use read to see them whole`);
  let text = lines.map((o) => o.line).join("\n");
  if (matches === 0) text = "No matches found before the time limit";
  if (notes.length > 0) text += `\n\n[${notes.join(". ")}.]`;
  return { content: [{ type: "text", text }], details: { matches, ...(c.stoppedAt ? { stoppedAt: c.stoppedAt } : {}), ...(c.linesCut ? { linesCut: true } : {}) } };
}
