// The shared truncation helpers: whole lines within both limits, never a split character.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatSize, sliceUtf8Head, sliceUtf8Tail, truncateHead, truncateLine, truncateTail } from "../../src/tools/truncate.js";

const text = ["one", "two", "three", "four", "five"].join("\n");

test("truncateHead keeps whole lines from the start", () => {
  assert.deepEqual(truncateHead(text, { maxLines: 10 }), { text, truncated: false, totalLines: 5, totalBytes: 23, keptLines: 5, keptBytes: 23 });
  const byLines = truncateHead(text, { maxLines: 2 });
  assert.equal(byLines.text, "one\ntwo");
  assert.equal(byLines.truncatedBy, "lines");
  const byBytes = truncateHead(text, { maxBytes: 10 });
  assert.equal(byBytes.text, "one\ntwo");
  assert.equal(byBytes.truncatedBy, "bytes");
  assert.equal(byBytes.keptBytes, 7);
});

test("truncateTail keeps whole lines from the end", () => {
  const byLines = truncateTail(text, { maxLines: 2 });
  assert.equal(byLines.text, "four\nfive");
  assert.equal(byLines.keptLines, 2);
  assert.equal(byLines.totalLines, 5);
  assert.equal(truncateTail(text, { maxBytes: 12 }).text, "four\nfive");
});

test("a single line over the byte limit is cut at a character boundary", () => {
  const line = "é".repeat(10); // 20 bytes
  const head = truncateHead(line, { maxBytes: 5 });
  assert.equal(head.text, "éé");
  assert.equal(head.partialLine, true);
  const tail = truncateTail(`x\n${line}`, { maxBytes: 7 });
  assert.equal(tail.text, "ééé");
  assert.equal(tail.partialLine, true);
  assert.equal(sliceUtf8Head("a€b", 3), "a");
  assert.equal(sliceUtf8Tail("a€b", 3), "b");
  assert.equal(sliceUtf8Tail("a€b", 4), "€b");
});

test("truncateLine and formatSize", () => {
  assert.deepEqual(truncateLine("short", 10), { text: "short", truncated: false });
  assert.deepEqual(truncateLine("0123456789abc", 10), { text: "0123456789… [line truncated]", truncated: true });
  assert.equal(formatSize(512), "512 B");
  assert.equal(formatSize(50 * 1024), "50 KB");
  assert.equal(formatSize(1536), "1.5 KB");
  assert.equal(formatSize(3 * 1024 * 1024), "3 MB");
});
