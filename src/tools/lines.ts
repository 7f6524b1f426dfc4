// Reading a text file line by line in fixed-size chunks, so read and grep never load a huge file
// whole and can stop as soon as they have what they need.
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { abortedError } from "./errors.js";

const CHUNK = 64 * 1024;
/** Bytes looked at for a NUL to call a file binary (git uses the same heuristic). */
export const SNIFF_BYTES = 8 * 1024;

/**
 * Called per line (1-based number, without "\n" and without a trailing "\r").
 * Return "stop" to end the read, "count" to only count the remaining lines, anything else to go on.
 */
export type LineVisitor = (line: string, lineNumber: number) => "stop" | "count" | void;

export interface LineScan {
  /** the first SNIFF_BYTES held a NUL: no line was visited */
  binary: boolean;
  /** lines seen (all of the file's lines unless stopped); a final line without "\n" counts */
  lines: number;
  stopped: boolean;
}

export function looksBinary(buf: Uint8Array): boolean {
  return buf.subarray(0, SNIFF_BYTES).includes(0);
}

export async function scanLines(path: string, visit: LineVisitor, signal?: AbortSignal): Promise<LineScan> {
  const handle = await open(path, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let lineNo = 0;
    let counting = false;
    let first = true;
    // counting mode works on raw bytes; it must know whether the last byte seen ended a line
    let lastByteWasNewline = true;
    for (;;) {
      if (signal?.aborted) throw abortedError();
      const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      if (first) {
        first = false;
        if (looksBinary(chunk)) return { binary: true, lines: 0, stopped: false };
      }
      if (counting) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lineNo++;
        lastByteWasNewline = chunk[bytesRead - 1] === 10;
        continue;
      }
      const text = pending + decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        lineNo++;
        const verdict = visit(text.slice(start, end), lineNo);
        start = nl + 1;
        if (verdict === "stop") return { binary: false, lines: lineNo, stopped: true };
        if (verdict === "count") {
          counting = true;
          // the rest of this chunk still has to be counted, in characters (same "\n"s as bytes)
          for (let i = text.indexOf("\n", start); i !== -1; i = text.indexOf("\n", i + 1)) lineNo++;
          lastByteWasNewline = chunk[bytesRead - 1] === 10;
          pending = "";
          break;
        }
      }
      if (!counting) pending = text.slice(start);
    }
    if (counting) {
      if (!lastByteWasNewline) lineNo++;
      return { binary: false, lines: lineNo, stopped: false };
    }
    pending += decoder.end();
    if (pending.length > 0) {
      lineNo++;
      const line = pending.endsWith("\r") ? pending.slice(0, -1) : pending;
      if (visit(line, lineNo) === "stop") return { binary: false, lines: lineNo, stopped: true };
    }
    return { binary: false, lines: lineNo, stopped: false };
  } finally {
    await handle.close();
  }
}
