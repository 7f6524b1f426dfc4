// read: numbered lines, windows with a note to continue, the byte cap, images, and the errors.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { scanLines } from "../../src/tools/lines.js";
import { readTool, type ReadDetails } from "../../src/tools/read.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

// a 1x1 PNG
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

function lines(n: number, make = (i: number) => `line ${i}`): string {
  return Array.from({ length: n }, (_, i) => make(i + 1)).join("\n") + "\n";
}

test("read numbers lines like cat -n", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "a.txt"), "alpha\n\tbeta\ngamma");
  const out = await readTool.execute({ path: "a.txt" }, ctxFor(dir));
  assert.equal(textOf(out), "     1\talpha\n     2\t\tbeta\n     3\tgamma");
  assert.deepEqual(out.details, { startLine: 1, endLine: 3, totalLines: 3, truncated: false } satisfies ReadDetails);
});

test("read: CRLF files are shown without carriage returns", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "w.txt"), "one\r\ntwo\r\n");
  assert.equal(textOf(await readTool.execute({ path: "w.txt" }, ctxFor(dir))), "     1\tone\n     2\ttwo");
});

test("read: offset and limit pick a window, with a note giving the next offset", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.txt"), lines(10));
  const out = await readTool.execute({ path: "f.txt", offset: 3, limit: 2 }, ctxFor(dir));
  assert.equal(textOf(out), "     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]");
  const tail = await readTool.execute({ path: "f.txt", offset: 9 }, ctxFor(dir));
  assert.equal(textOf(tail), "     9\tline 9\n    10\tline 10");
});

test("read: default limit of 2000 lines", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "long.txt"), lines(2500));
  const out = await readTool.execute({ path: "long.txt" }, ctxFor(dir));
  const text = textOf(out);
  assert.match(text, /\n  2000\tline 2000\n\n\[Showing lines 1-2000 of 2500\. Use offset=2001 to continue\.\]$/);
  assert.deepEqual(out.details, { startLine: 1, endLine: 2000, totalLines: 2500, truncated: true });
});

test("read: the byte cap stops before a line that would cross it", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "wide.txt"), lines(1000, (i) => `${i}:${"x".repeat(200)}`));
  const text = textOf(await readTool.execute({ path: "wide.txt" }, ctxFor(dir)));
  const [body, note] = text.split("\n\n");
  assert.ok(Buffer.byteLength(body) <= 50 * 1024);
  const shown = body.split("\n").length;
  assert.ok(shown > 200 && shown < 260, `${shown} lines`);
  assert.equal(note, `[Showing lines 1-${shown} of 1000 (50 KB limit). Use offset=${shown + 1} to continue.]`);
});

test("read: a single line over the byte cap shows its start and says how to see the rest", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "min.js"), `short\n${"y".repeat(80_000)}\nafter\n`);
  const text = textOf(await readTool.execute({ path: "min.js", offset: 2 }, ctxFor(dir)));
  assert.match(text, /^     2\tyyyy/);
  assert.match(text, /Line 2 is 78\.1 KB/);
  assert.match(text, /sed -n '2p' min\.js/);
  assert.match(text, /Use offset=3 to continue/);
});

test("read: multi-byte characters survive chunk boundaries", async (t) => {
  const dir = tempDir(t);
  // 3-byte characters, so some fall across the reader's 64 KB chunk edges
  const content = lines(3000, (i) => `${i} ${"€".repeat(30)}`);
  writeFileSync(join(dir, "u.txt"), content);
  const seen: string[] = [];
  const scan = await scanLines(join(dir, "u.txt"), (line) => {
    seen.push(line);
  });
  assert.equal(scan.lines, 3000);
  assert.deepEqual(seen, content.slice(0, -1).split("\n"));
  const counted = await scanLines(join(dir, "u.txt"), (_l, n) => (n === 10 ? "count" : undefined));
  assert.equal(counted.lines, 3000);
  const noFinalNewline = join(dir, "v.txt");
  writeFileSync(noFinalNewline, "a\n".repeat(40_000) + "end");
  assert.equal((await scanLines(noFinalNewline, () => "count")).lines, 40_001);
});

test("read: empty file, offset past the end", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "empty"), "");
  writeFileSync(join(dir, "three"), lines(3));
  assert.match(textOf(await readTool.execute({ path: "empty" }, ctxFor(dir))), /empty/);
  await rejectsTool(readTool.execute({ path: "three", offset: 4 }, ctxFor(dir)), /offset 4 is beyond the end of three \(3 lines\)/);
});

test("read: missing file, directory and binary file are clear errors", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "blob.bin"), Buffer.from([1, 2, 0, 3, 4]));
  await rejectsTool(readTool.execute({ path: "nope.txt" }, ctxFor(dir)), /File not found: nope\.txt/);
  await rejectsTool(readTool.execute({ path: "sub" }, ctxFor(dir)), /sub is a directory.*use ls/);
  await rejectsTool(readTool.execute({ path: "blob.bin" }, ctxFor(dir)), /binary/);
});

test("read: images come back as image blocks, recognised by their bytes", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "dot.png"), PNG);
  const out = await readTool.execute({ path: "dot.png" }, ctxFor(dir));
  const image = out.content.find((b) => b.type === "image");
  assert.ok(image && image.type === "image");
  assert.equal(image.mimeType, "image/png");
  assert.equal(image.data, readFileSync(join(dir, "dot.png")).toString("base64"));
  assert.match(textOf(out), /dot\.png/);

  // the content decides, not the extension
  writeFileSync(join(dir, "photo.dat"), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]));
  const jpeg = (await readTool.execute({ path: "photo.dat" }, ctxFor(dir))).content.find((b) => b.type === "image");
  assert.equal(jpeg && jpeg.type === "image" && jpeg.mimeType, "image/jpeg");
  writeFileSync(join(dir, "anim.gif"), Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"));
  const gif = (await readTool.execute({ path: "anim.gif" }, ctxFor(dir))).content.find((b) => b.type === "image");
  assert.equal(gif && gif.type === "image" && gif.mimeType, "image/gif");
  writeFileSync(join(dir, "pic.webp"), Buffer.concat([Buffer.from("RIFF"), Buffer.from([4, 0, 0, 0]), Buffer.from("WEBPVP8 ")]));
  const webp = (await readTool.execute({ path: "pic.webp" }, ctxFor(dir))).content.find((b) => b.type === "image");
  assert.equal(webp && webp.type === "image" && webp.mimeType, "image/webp");

  writeFileSync(join(dir, "fake.png"), "just text\n");
  assert.equal(textOf(await readTool.execute({ path: "fake.png" }, ctxFor(dir))), "     1\tjust text");
});
