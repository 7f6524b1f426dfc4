// What a file holds cannot make a tool slow or lossy. read of one 100 MB line (a sparse file:
// no disk, no time to make) cuts the line as it reads: one pass, memory bounded by the cut, not
// by the line (it was a quadratic rescan: 51 s and 1.1 GB). edit of a file with bytes that are
// not UTF-8 (latin-1) changes only the bytes it replaces; untouched lines stay byte for byte.
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { editTool } from "../../src/tools/edit.js";
import { readTool, type ReadDetails } from "../../src/tools/read.js";
import { scanLines } from "../../src/tools/lines.js";
import { MAX_BYTES } from "../../src/tools/truncate.js";
import { ctxFor, textOf } from "../tools/helpers.js";
import { tempDir } from "../support/tmp.js";

const LINE_BYTES = 100 * 1024 * 1024;

/** One line of LINE_BYTES: text first (so it is not taken for binary), then a sparse hole, then "\n". */
function hugeLine(dir: string): string {
  const file = join(dir, "line.txt");
  const fd = openSync(file, "w");
  writeSync(fd, "x".repeat(64 * 1024));
  writeSync(fd, "\n", LINE_BYTES); // the gap before it is a hole: it reads as NUL bytes, costs no disk
  closeSync(fd);
  return file;
}

test("read of a single 100 MB line: cut as it is read, said so, and the next line is still counted", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const file = hugeLine(dir);
  writeFileSync(file, "after\n", { flag: "a" });
  const before = process.resourceUsage().maxRSS;
  const out = await readTool.execute({ path: "line.txt" }, ctxFor(dir));
  const grewMB = (process.resourceUsage().maxRSS - before) / 1024;
  const text = textOf(out);
  assert.match(text, /Line 1 is 100 MB, over the 50 KB limit; only its start is shown/);
  assert.ok(Buffer.byteLength(text) < MAX_BYTES + 1024, "the result stays within the limit");
  const details = out.details as ReadDetails;
  assert.equal(details.totalLines, 2);
  assert.equal(details.truncated, true);
  t.diagnostic(`peak RSS grew by ${Math.round(grewMB)} MB`);
  assert.ok(grewMB < 200, `memory stays bounded (peak RSS grew ${Math.round(grewMB)} MB for a 100 MB line)`);
});

test("scanLines keeps at most maxLineBytes of a line and reports its full length", { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const file = hugeLine(dir);
  const seen: { length: number; cutFrom?: number }[] = [];
  const scan = await scanLines(file, (line, _n, cutFrom) => void seen.push({ length: Buffer.byteLength(line), cutFrom }), { maxLineBytes: 4096 });
  assert.equal(scan.lines, 1);
  assert.deepEqual(seen, [{ length: 4096, cutFrom: LINE_BYTES }], "the visitor got the line's start only, and its full size");
  // a cut never splits a character; short lines and CRLF are as before
  writeFileSync(join(dir, "mixed.txt"), `${"é".repeat(10)}\r\nshort\r\n`);
  const lines: string[] = [];
  await scanLines(join(dir, "mixed.txt"), (line) => void lines.push(line), { maxLineBytes: 5 });
  assert.deepEqual(lines, ["éé", "short"]);
});

test("edit changes only the bytes it replaces: latin-1 bytes elsewhere, CRLF and a BOM stay as they were", async (t) => {
  const dir = tempDir(t);
  const latin1 = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from("// caf", "latin1"),
    Buffer.from([0xe9, 0x20, 0xa9, 0x20, 0xff]), // "é ©" and a stray byte: not UTF-8
    Buffer.from("\r\nconst value = 1;\r\n// na", "latin1"),
    Buffer.from([0xef, 0x76, 0x65]), // "ïve" in latin-1
    Buffer.from("\r\n", "latin1"),
  ]);
  writeFileSync(join(dir, "legacy.c"), latin1);
  const out = await editTool.execute({ path: "legacy.c", oldText: "const value = 1;\n// na", newText: "const value = 2;\n// na" }, ctxFor(dir));
  assert.match(textOf(out), /replaced 1 occurrence \(at line 2\)/);
  const expected = Buffer.from(latin1.toString("latin1").replace("value = 1", "value = 2"), "latin1");
  assert.deepEqual(readFileSync(join(dir, "legacy.c")), expected, "every byte outside the edit is unchanged");
});
