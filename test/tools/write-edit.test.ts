// write and edit: creating, overwriting, single-occurrence replacement, line endings, and the
// messages for every way an edit can fail.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { editTool } from "../../src/tools/edit.js";
import { writeTool } from "../../src/tools/write.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

test("write creates parent directories and reports the bytes written", async (t) => {
  const dir = tempDir(t);
  const out = await writeTool.execute({ path: "a/b/c.txt", content: "héllo\n" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "a/b/c.txt"), "utf8"), "héllo\n");
  assert.match(textOf(out), /Created a\/b\/c\.txt \(7 bytes written\)/);
  assert.deepEqual(out.details, { bytes: 7, created: true });
});

test("write overwrites an existing file", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.txt"), "old content that is longer");
  const out = await writeTool.execute({ path: "f.txt", content: "new" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "f.txt"), "utf8"), "new");
  assert.match(textOf(out), /Overwrote f\.txt \(3 bytes written\)/);
});

test("write refuses a directory and a path through a file", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "d"));
  writeFileSync(join(dir, "file"), "x");
  await rejectsTool(writeTool.execute({ path: "d", content: "x" }, ctxFor(dir)), /d is a directory/);
  await rejectsTool(writeTool.execute({ path: "file/child.txt", content: "x" }, ctxFor(dir)), /file\/child\.txt/);
});

test("edit replaces the single occurrence and describes the change", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "s.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n");
  const out = await editTool.execute({ path: "s.ts", oldText: "const b = 2;\nconst c = 3;", newText: "const b = 20;\nconst c = 3;" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "s.ts"), "utf8"), "const a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;\n");
  assert.match(textOf(out), /Edited s\.ts.*line 2/);
  const details = out.details as { diff: string; firstChangedLine: number };
  assert.equal(details.firstChangedLine, 2);
  assert.equal(details.diff, "@@ -1,5 +1,5 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n const d = 4;\n ");
});

test("edit: no match is an error, with a hint when only whitespace differs", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.py"), "def f():\n\treturn 1\n");
  await rejectsTool(editTool.execute({ path: "f.py", oldText: "return 2", newText: "x" }, ctxFor(dir)), /not found in f\.py/, /Read the file again/);
  await rejectsTool(
    editTool.execute({ path: "f.py", oldText: "def f():\n    return 1", newText: "x" }, ctxFor(dir)),
    /not found/,
    /would match if whitespace were ignored/,
  );
  await rejectsTool(editTool.execute({ path: "f.py", oldText: "     1\tdef f():\n     2\t\treturn 1", newText: "x" }, ctxFor(dir)), /line-number prefixes/);
  assert.equal(readFileSync(join(dir, "f.py"), "utf8"), "def f():\n\treturn 1\n");
});

test("edit: several matches is an error saying how many and asking for context", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "r.txt"), "x = 1\ny = 2\nx = 1\nx = 1\n");
  await rejectsTool(editTool.execute({ path: "r.txt", oldText: "x = 1", newText: "x = 9" }, ctxFor(dir)), /occurs 3 times/, /more surrounding lines/);
  // overlapping occurrences are just as ambiguous
  writeFileSync(join(dir, "o.txt"), "aaa");
  await rejectsTool(editTool.execute({ path: "o.txt", oldText: "aa", newText: "b" }, ctxFor(dir)), /occurs 2 times/);
  assert.equal(readFileSync(join(dir, "r.txt"), "utf8"), "x = 1\ny = 2\nx = 1\nx = 1\n");
});

test("edit preserves CRLF line endings", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "w.txt"), "one\r\ntwo\r\nthree\r\n");
  await editTool.execute({ path: "w.txt", oldText: "one\ntwo", newText: "uno\ndos\ntres" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "w.txt"), "utf8"), "uno\r\ndos\r\ntres\r\nthree\r\n");
  // single-line oldText, multi-line newText: the file's CRLF is used
  await editTool.execute({ path: "w.txt", oldText: "three", newText: "3a\n3b" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "w.txt"), "utf8"), "uno\r\ndos\r\ntres\r\n3a\r\n3b\r\n");
  // an oldText already written with CRLF matches as is
  await editTool.execute({ path: "w.txt", oldText: "uno\r\ndos", newText: "1\n2" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "w.txt"), "utf8"), "1\r\n2\r\ntres\r\n3a\r\n3b\r\n");
});

test("edit keeps LF files LF and keeps a byte-order mark", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "lf.txt"), "a\nb\n");
  await editTool.execute({ path: "lf.txt", oldText: "a\r\nb", newText: "c\r\nd" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "lf.txt"), "utf8"), "c\nd\n");
  writeFileSync(join(dir, "bom.txt"), "\uFEFFfirst\nsecond\n");
  await editTool.execute({ path: "bom.txt", oldText: "first", newText: "1st" }, ctxFor(dir));
  assert.equal(readFileSync(join(dir, "bom.txt"), "utf8"), "\uFEFF1st\nsecond\n");
});

test("edit: empty or unchanged text, missing file, directory, binary file", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.txt"), "abc\n");
  mkdirSync(join(dir, "d"));
  writeFileSync(join(dir, "b.bin"), Buffer.from([0x61, 0, 0x62]));
  await rejectsTool(editTool.execute({ path: "f.txt", oldText: "", newText: "x" }, ctxFor(dir)), /oldText is empty/);
  await rejectsTool(editTool.execute({ path: "f.txt", oldText: "abc", newText: "abc" }, ctxFor(dir)), /identical/);
  await rejectsTool(editTool.execute({ path: "missing.txt", oldText: "a", newText: "b" }, ctxFor(dir)), /File not found: missing\.txt/);
  await rejectsTool(editTool.execute({ path: "d", oldText: "a", newText: "b" }, ctxFor(dir)), /directory/);
  await rejectsTool(editTool.execute({ path: "b.bin", oldText: "a", newText: "c" }, ctxFor(dir)), /binary/);
});

test("edit: the diff shows only the lines that changed, capped", async (t) => {
  const dir = tempDir(t);
  const body = Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join("\n");
  writeFileSync(join(dir, "big.txt"), body);
  const newText = Array.from({ length: 60 }, (_, i) => `n${i + 1}`).join("\n");
  const out = await editTool.execute({ path: "big.txt", oldText: "l50\nl51", newText: `l50\n${newText}` }, ctxFor(dir));
  const { diff, firstChangedLine } = out.details as { diff: string; firstChangedLine: number };
  assert.equal(firstChangedLine, 51);
  assert.match(diff, /^@@ -48,7 \+48,66 @@\n l48\n l49\n l50\n-l51\n\+n1\n/);
  assert.match(diff, /\+… \(20 more lines\)\n l52\n l53\n l54$/);
});
