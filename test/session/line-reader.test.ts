import assert from "node:assert/strict";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { forEachLine } from "../../src/session/line-reader.js";
import { tempDir } from "../support/tmp.js";

function lines(t: Parameters<typeof tempDir>[0], content: string | Buffer, chunk: number) {
  const file = join(tempDir(t), "f");
  writeFileSync(file, content);
  const fd = openSync(file, "r");
  const out: { text: string; offset: number; length: number; lineNo: number; terminated: boolean }[] = [];
  forEachLine(fd, (l) => void out.push({ text: l.buf.toString("utf8", l.start, l.end), offset: l.offset, length: l.length, lineNo: l.lineNo, terminated: l.terminated }), chunk);
  closeSync(fd);
  return out;
}

test("lines across chunk boundaries, long lines, CRLF and an unterminated last line", (t) => {
  const long = "x".repeat(1000);
  const content = `a\r\n${long}\n\nbé\nlast`;
  for (const chunk of [4, 7, 64, 1 << 20]) {
    const got = lines(t, content, chunk);
    assert.deepEqual(
      got.map((l) => l.text),
      ["a", long, "", "bé", "last"],
      `chunk ${chunk}`,
    );
    assert.deepEqual(got.map((l) => l.terminated), [true, true, true, true, false]);
    assert.deepEqual(got.map((l) => l.lineNo), [1, 2, 3, 4, 5]);
    // offsets and lengths address the bytes in the file
    const buf = Buffer.from(content);
    for (const l of got) assert.equal(buf.toString("utf8", l.offset, l.offset + l.length).replace(/\r?\n$/, ""), l.text);
  }
});

test("an empty file has no lines; a final newline adds none", (t) => {
  assert.deepEqual(lines(t, "", 8), []);
  assert.deepEqual(lines(t, "one\n", 8).map((l) => l.text), ["one"]);
});
