// A command's combined output: only the tail is kept in memory (that is what the model sees);
// once the output outgrows the limits, all of it also goes to a temp file so nothing is lost and
// the model can page through the file with read or grep. The file holds at most maxFileBytes
// (bash kills a command at that much output anyway; this bounds what arrives meanwhile).
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_BYTES, MAX_LINES, formatSize, truncateTail } from "./truncate.js";

export interface CollectedOutput {
  /** the output's tail, within the limits, with a note naming the full output file if cut */
  text: string;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  /** the whole output, when it was truncated (and the file could be written) */
  fullOutputPath?: string;
}

export class OutputCollector {
  private chunks: Buffer[] = [];
  private memBytes = 0;
  private droppedBytes = 0;
  private _totalBytes = 0;
  private fileBytes = 0;
  private newlines = 0;
  private lastByte = -1;
  private spilled = false;
  private file?: WriteStream;
  private fileFailed = false;
  private fullOutputPath?: string;

  constructor(
    private readonly tempDir: string | undefined,
    private readonly maxBytes = MAX_BYTES,
    private readonly maxLines = MAX_LINES,
    private readonly maxFileBytes = Infinity,
  ) {}

  /** bytes pushed so far */
  get totalBytes(): number {
    return this._totalBytes;
  }

  push(data: Buffer): void {
    if (data.length === 0) return;
    this._totalBytes += data.length;
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) this.newlines++;
    this.lastByte = data[data.length - 1];
    this.chunks.push(data);
    this.memBytes += data.length;
    if (this.spilled) {
      this.writeFile(data);
    } else if (this.totalBytes > this.maxBytes || this.newlines >= this.maxLines) {
      // (>= : one more unterminated line would already be over the line limit)
      this.spill();
    }
    if (this.spilled) {
      // keep at least maxBytes of tail: enough for whatever truncateTail will keep
      while (this.chunks.length > 1 && this.memBytes - this.chunks[0].length >= this.maxBytes) {
        const dropped = this.chunks.shift()!;
        this.memBytes -= dropped.length;
        this.droppedBytes += dropped.length;
      }
    }
  }

  /** The output so far, truncated as the final result would be (for streaming updates). */
  preview(): string {
    return this.render().text;
  }

  /** Closes the full-output file (if any) and returns the final text. */
  async finish(): Promise<CollectedOutput> {
    const file = this.file;
    if (file) {
      await new Promise<void>((resolve) => {
        if (this.fileFailed) return resolve();
        file.once("error", () => resolve());
        file.end(() => resolve());
      });
      this.file = undefined;
    }
    const out = this.render();
    // spilled just at the line limit but nothing was cut after all: the file is not needed
    if (!out.truncated && this.fullOutputPath) await unlink(this.fullOutputPath).catch(() => {});
    return out;
  }

  private spill(): void {
    this.spilled = true;
    const dir = this.tempDir ?? tmpdir();
    const path = join(dir, `pith-bash-${randomUUID()}.log`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // the temp dir is shared with other users: a command's output is the user's alone
      const file = createWriteStream(path, { flags: "wx", mode: 0o600 });
      file.on("error", () => {
        this.fileFailed = true;
      });
      this.file = file;
      for (const c of this.chunks) this.writeFile(c);
      this.fullOutputPath = path;
    } catch {
      this.fileFailed = true;
    }
  }

  private writeFile(data: Buffer): void {
    const room = this.maxFileBytes - this.fileBytes;
    if (!this.file || room <= 0) return;
    const part = data.length > room ? data.subarray(0, room) : data;
    this.fileBytes += part.length;
    this.file.write(part);
  }

  private render(): CollectedOutput {
    let s = Buffer.concat(this.chunks).toString("utf8");
    if (this.droppedBytes > 0) {
      // memory starts somewhere inside a line: drop that partial line if anything follows it
      const nl = s.indexOf("\n");
      if (nl !== -1 && nl < s.length - 1) s = s.slice(nl + 1);
    }
    if (s.endsWith("\n")) s = s.slice(0, -1);
    const totalLines = this.newlines + (this.totalBytes > 0 && this.lastByte !== 10 ? 1 : 0);
    const t = truncateTail(s, { maxBytes: this.maxBytes, maxLines: this.maxLines });
    const truncated = this.droppedBytes > 0 || t.truncated;
    const fullOutputPath = this.fileFailed ? undefined : this.fullOutputPath;
    let text = t.text;
    if (truncated) {
      const shown = t.partialLine
        ? `the last ${formatSize(t.keptBytes)} of the final line`
        : `the last ${t.keptLines} line${t.keptLines === 1 ? "" : "s"}`;
      text +=
        `\n\n[Output truncated: showing ${shown} of ${totalLines} lines (${formatSize(this._totalBytes)} in all). ` +
        (fullOutputPath ? `Full output: ${fullOutputPath}]` : `The full output could not be saved.]`);
    }
    return { text, truncated, totalLines, totalBytes: this.totalBytes, fullOutputPath: truncated ? fullOutputPath : undefined };
  }
}
