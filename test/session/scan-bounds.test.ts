// Regression tests for scans whose bound was the buffer or the file rather than the field, line
// or request. Each counts work (bytes a native search examined, reads, parses, bytes retained),
// never wall-clock time, and checks that it follows the input's size and not the buffer's or the
// session's.
import assert from "node:assert/strict";
import fs, { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeShape, type ShapeName } from "../../bench/shapes.js";
import { collectGarbage } from "../../bench/util.js";
import { SessionHost } from "../../src/host/session-host.js";
import { createLogger } from "../../src/log/logger.js";
import { readFieldsAnyOrder, readLightFields } from "../../src/session/light-fields.js";
import { forEachLine } from "../../src/session/line-reader.js";
import { SessionFile } from "../../src/session/session-file.js";
import type { EntryRecord } from "../../src/session/load.js";
import { previewFromPrefix } from "../../src/session/preview-from-front.js";
import { previewOf } from "../../src/session/tree.js";
import type { SessionEntry } from "../../src/session/types.js";
import { gated } from "../support/gated.js";

/** Bytes that Buffer#indexOf examined while `fn` ran: up to the match, or to the buffer's end. */
function indexOfBytes(fn: () => void): number {
  const original = Buffer.prototype.indexOf;
  let examined = 0;
  Buffer.prototype.indexOf = function (this: Buffer, value: never, byteOffset?: never, encoding?: never) {
    const r = original.call(this, value, byteOffset, encoding);
    const from = typeof byteOffset === "number" ? (byteOffset < 0 ? Math.max(0, this.length + byteOffset) : byteOffset) : 0;
    examined += (r === -1 ? this.length : r + 1) - from;
    return r;
  } as typeof original;
  try {
    fn();
  } finally {
    Buffer.prototype.indexOf = original;
  }
  return examined;
}

/** Calls of a function of node:fs while `fn` runs (named imports of it see the patch too). */
async function countFsCalls(name: "readSync", fn: () => Promise<void> | void): Promise<number> {
  const original = fs[name];
  let calls = 0;
  (fs as Record<string, unknown>)[name] = (...args: unknown[]) => {
    calls++;
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    (fs as Record<string, unknown>)[name] = original;
    syncBuiltinESMExports();
  }
  return calls;
}

async function countJsonParses(fn: () => Promise<void> | void): Promise<number> {
  const original = JSON.parse;
  let calls = 0;
  JSON.parse = ((text: string, reviver?: never) => {
    calls++;
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    await fn();
  } finally {
    JSON.parse = original;
  }
  return calls;
}

/** `line` at the front of a buffer of `size` bytes whose rest holds no quote, backslash or newline. */
function inBuffer(line: string, size: number): { buf: Buffer; end: number } {
  const bytes = Buffer.from(line);
  const buf = Buffer.alloc(Math.max(size, bytes.length), 0x61);
  bytes.copy(buf);
  return { buf, end: bytes.length };
}

function messageLine(text: string, keyOrder: "pi" | "other" = "pi"): string {
  const msg = { role: "assistant", content: [{ type: "text", text }], model: "m", usage: { input: 1, output: 1 } };
  const e = keyOrder === "pi" ? { type: "message", id: "a1b2c3d4", parentId: "00ff00ff", timestamp: "2025-01-06T09:00:00.000Z", message: msg } : { message: msg, timestamp: "2025-01-06T09:00:00.000Z", parentId: "00ff00ff", id: "a1b2c3d4", type: "message" };
  return JSON.stringify(e);
}

const prose = (chars: number) => "plain words without any escape ".repeat(Math.ceil(chars / 31)).slice(0, chars);

test("light fields, any-order fields and tree previews search within the line, not to the end of the 4 MiB chunk", () => {
  for (const keyOrder of ["pi", "other"] as const) {
    for (const chars of [20_000, 40_000]) {
      const line = messageLine(prose(chars), keyOrder);
      const read = (buf: Buffer, end: number) => {
        const rec = (keyOrder === "pi" ? readLightFields(buf, 0, end) : readFieldsAnyOrder(buf, 0, end)) as EntryRecord | null;
        assert.ok(rec);
        assert.ok(previewFromPrefix(buf, 0, end, rec)?.startsWith("plain words"));
      };
      const exact = inBuffer(line, 0);
      const chunk = inBuffer(line, 4 << 20);
      const inExact = indexOfBytes(() => read(exact.buf, exact.end));
      const inChunk = indexOfBytes(() => read(chunk.buf, chunk.end));
      // where the line sits must not matter, and no field is searched past the line
      assert.equal(inChunk, inExact, `${keyOrder} order, ${chars} chars: ${inChunk} bytes searched in a chunk, ${inExact} in the line's own buffer`);
      assert.ok(inChunk <= 2 * line.length, `${keyOrder} order: ${inChunk} bytes searched for a ${line.length}-byte line`);
    }
  }
});

test("light fields: the bytes examined do not grow with the text between escapes", () => {
  const searched = (chars: number) => {
    const text = `${prose(chars)}\n"quoted"\\${prose(chars)}`;
    const { buf, end } = inBuffer(messageLine(text), 4 << 20);
    return indexOfBytes(() => assert.ok(readLightFields(buf, 0, end)));
  };
  // the light fields sit before the message: its text is never searched
  assert.equal(searched(50_000), searched(5_000));
});

test("forEachLine reads a small file without searching the unread rest of its chunk", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "pith-scan-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "small.jsonl");
  const content = '{"a":1}\n{"b":2}\n{"c":3}'; // the last line unterminated: the search for its newline must stop at the data
  writeFileSync(file, content);
  const fd = openSync(file, "r");
  try {
    const lines: string[] = [];
    const examined = indexOfBytes(() => forEachLine(fd, (l) => void lines.push(l.buf.toString("utf8", l.start, l.end)), 4 << 20));
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
    // the unterminated tail is searched once more after the read that finds the end of the file
    assert.ok(examined <= 2 * content.length, `${examined} bytes searched in a ${content.length}-byte file`);
  } finally {
    closeSync(fd);
  }
});

test("tree previews keep only their own characters alive, not the texts they were cut from", () => {
  const texts = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(4, "0")} ${"word   and\n\tspace ".repeat(60_000)}`);
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const previews: string[] = [];
  for (let i = 0; i < texts.length; i++) {
    const entry = { type: "message", id: `e${i}`, parentId: null, timestamp: "2025-01-06T09:00:00.000Z", message: { role: "user", content: texts[i], timestamp: 0 } } as unknown as SessionEntry;
    previews.push(previewOf(entry));
    const line = Buffer.from(JSON.stringify(entry));
    previews.push(previewFromPrefix(line, 0, line.length, readLightFields(line, 0, line.length) as EntryRecord)!);
  }
  const textMb = texts.reduce((n, s) => n + s.length, 0) / 1e6;
  texts.length = 0;
  collectGarbage();
  const retainedMb = (process.memoryUsage().heapUsed - before) / 1e6;
  assert.equal(previews.length, 40);
  assert.ok(previews.every((p, i) => p.startsWith(`${String(i >> 1).padStart(4, "0")} word and space`)), previews[0]);
  assert.ok(retainedMb < 2, `previews of ${textMb.toFixed(0)} MB of text retain ${retainedMb.toFixed(1)} MB`);
});

function shapeFile(dir: string, shape: ShapeName, kb: number): { file: string; entries: number } {
  const file = join(dir, `${shape}-${kb}.jsonl`);
  return { file, entries: writeShape(file, shape, kb * 1000).entries };
}

test("the first tree reads runs of lines, not one read per entry", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "pith-scan-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const kb of [400, 800]) {
    const { file, entries } = shapeFile(dir, "tiny", kb);
    const s = SessionFile.open(file, { readOnly: true });
    try {
      const reads = await countFsCalls("readSync", () => void s.tree());
      assert.ok(reads * 20 < entries, `${reads} reads for a tree of ${entries} entries`);
    } finally {
      s.close();
    }
  }
});

test("navigateTree without a summary parses the same few entries however long the session is", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "pith-scan-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const host = new SessionHost({ sessionsDir: join(dir, "sessions"), logger: createLogger("silent"), env: { PITH_HOME: dir } });
  t.after(() => host.shutdown());
  const parses: number[] = [];
  for (const kb of [400, 800]) {
    const { file } = shapeFile(dir, "compacted-often", kb);
    const target = SessionFile.open(file, { readOnly: true });
    const early = target.tree().entries[10].id;
    target.close();
    const live = await host.open({ sessionFile: file });
    parses.push(await countJsonParses(async () => void (await gated(live).navigateTree(early, false))));
  }
  assert.ok(parses[1] <= parses[0] + 2, `parses when navigating: ${parses.join(" -> ")} for twice the session`);
  assert.ok(parses[1] < 50, `${parses[1]} parses to move the leaf`);
});

test("opening a file whose keys are not in Pi's order (or Pi's custom entries) parses no entry", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "pith-scan-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const shape of ["key-order", "pi-custom"] as const) {
    const counts: number[] = [];
    for (const kb of [200, 400]) {
      const { file, entries } = shapeFile(dir, shape, kb);
      let s: SessionFile | undefined;
      counts.push(await countJsonParses(() => void (s = SessionFile.open(file, { readOnly: true }))));
      assert.equal(s!.entries().length > entries / 2, true);
      s!.close();
    }
    assert.ok(counts[1] <= counts[0] + 2 && counts[1] < 10, `${shape}: JSON.parse calls on open ${counts.join(" -> ")} for twice the entries`);
  }
});
