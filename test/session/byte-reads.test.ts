// The light path's byte-level reads give what a parse gives: the tree's preview clipped straight
// from a text's JSON bytes is clip's, and a context run parsed with one JSON.parse gives the
// entries (and warnings) that parsing each line gives, a damaged line in the run included.
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { clipBytes } from "../../src/session/clip-bytes.js";
import { SessionFile } from "../../src/session/index.js";
import { clip } from "../../src/session/tree.js";
import { rng } from "../support/random.js";
import { tempDir } from "../support/tmp.js";

test("a preview clipped from JSON bytes is clip's, or undefined (then the text is decoded)", () => {
  const r = rng(24);
  const ascii = ["a", "b", "Z", "1", " ", "  ", "\n", "\t", "\r", "\f", "\b", '"', "\\", "/", "x".repeat(60)];
  const other = ["é", "中", "😀", "\u0001", "\u000b", "\u2028"];
  let read = 0;
  for (let i = 0; i < 5000; i++) {
    const texts = Array.from({ length: 1 + r.int(3) }, () => {
      let s = "";
      for (let n = r.int(r.next() < 0.2 ? 200 : 30); n > 0; n--) s += r.next() < 0.01 ? r.pick(other) : r.pick(ascii);
      return s;
    });
    // each text as JSON.stringify writes it, side by side in one buffer
    const json = texts.map((t) => JSON.stringify(t));
    const buf = Buffer.from(json.join(","));
    const spans: { start: number; end: number }[] = [];
    let at = 0;
    for (const j of json) {
      const len = Buffer.byteLength(j);
      spans.push({ start: at + 1, end: at + len - 1 });
      at += len + 1;
    }
    const got = clipBytes(buf, spans);
    if (got === undefined) {
      // only what it does not read: a character outside ASCII or one written as \u
      assert.ok(texts.some((t) => /[^\x00-\x7f]|[\x00-\x07\x0b\x0e-\x1f]/.test(t)), JSON.stringify(texts));
      continue;
    }
    read++;
    assert.equal(got, clip(...texts), JSON.stringify(texts));
  }
  assert.ok(read > 1000, `most texts are read from their bytes (${read})`);
});

test("a context run parsed at once gives what parsing each line gives, with a damaged line in the run", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "s.jsonl");
  const s = SessionFile.create({ cwd: dir, sessionsDir: dir });
  for (let i = 0; i < 40; i++) s.appendMessage({ role: "user", content: `message ${i} with "quotes" and \\ and\nlines`, timestamp: i });
  const path = s.file;
  s.close();
  writeFileSync(file, readFileSync(path));
  // line 10 keeps its front and its closing brace (the light scan reads it) but does not parse
  const lines = readFileSync(file, "utf8").split("\n");
  lines[10] = lines[10].replace('"content":"', '"content":"unterminated,"x":');
  writeFileSync(file, lines.join("\n"));
  appendFileSync(file, "");
  for (const f of [path, file]) {
    const light = SessionFile.open(f, { readOnly: true });
    const full = SessionFile.open(f, { readOnly: true, fullParse: true });
    try {
      // (the full parse skips the damaged line where the light path keeps a node for it: the trees differ there)
      assert.deepEqual(light.buildContext(), full.buildContext(), f);
      if (f === path) assert.deepEqual(light.tree(), full.tree(), f);
    } finally {
      light.close();
      full.close();
    }
  }
  const damaged = SessionFile.open(file, { readOnly: true });
  try {
    const context = damaged.buildContext();
    assert.equal(context.messages.length, 39, "the damaged entry is left out, the others are all there");
    assert.equal(damaged.warnings.filter((w) => w.kind === "unreadable-entry").length, 1);
  } finally {
    damaged.close();
  }
});
