// The lines a daemon writes on stdout, as they arrive, with the time each one came: the ACP bench
// times both protocols at the same place (a line on the pipe, before any client library parses
// it), counts what a turn costs on the wire and finds its largest line.
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

export interface ArrivedLine {
  /** performance.now() when the line's last byte arrived */
  at: number;
  /** bytes, with the "\n" */
  bytes: number;
  text: string;
}

export class StdoutLines {
  private lines: ArrivedLine[] = [];
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");
  private waiter: { test: (line: ArrivedLine) => boolean; resolve: (line: ArrivedLine) => void } | null = null;

  constructor(stdout: Readable) {
    // a listener of its own: the client reading the same stream gets the same bytes
    stdout.on("data", (chunk: Buffer) => this.read(chunk));
  }

  private read(chunk: Buffer): void {
    const at = performance.now();
    const c = this.decoder.write(chunk);
    let start = 0;
    for (let nl = c.indexOf("\n"); nl !== -1; nl = c.indexOf("\n", start)) {
      const text = this.partial + c.slice(start, nl);
      this.partial = "";
      start = nl + 1;
      const line = { at, bytes: Buffer.byteLength(text, "utf8") + 1, text };
      this.lines.push(line);
      if (this.waiter?.test(line)) {
        const { resolve } = this.waiter;
        this.waiter = null;
        resolve(line);
      }
    }
    this.partial += c.slice(start);
  }

  /** The lines since the last take (and forgets them). */
  take(): ArrivedLine[] {
    const out = this.lines;
    this.lines = [];
    return out;
  }

  /** Resolves with the first line from now on that passes `test`. */
  next(test: (line: ArrivedLine) => boolean, what: string, timeoutMs = 60_000): Promise<ArrivedLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiter = {
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
    });
  }
}
