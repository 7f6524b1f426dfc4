// The light path's byte-level reads give what a parse gives: the tree's preview clipped straight
// from a text's JSON bytes is clip's, and a context run parsed with one JSON.parse gives the
// entries (and warnings) that parsing each line gives, a damaged line in the run included.
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PreviewClip } from "../../src/session/preview-clip.js";
import { SessionFile } from "../../src/session/index.js";
import { clip } from "../../src/session/tree.js";
import { rng } from "../support/random.js";
import { tempDir } from "../support/tmp.js";

test("a preview clipped from JSON bytes is clip's; bytes JSON.parse would read otherwise are refused", () => {
  const r = rng(24);
  const ascii = ["a", "b", "Z", "1", " ", "  ", "\n", "\t", "\r", "\f", "\b", '"', "\\", "/", "x".repeat(60)];
  const other = ["é", "中", "😀", "\u0001", "\u000b", "\u2028", "\u00a0", "\u3000", "\ud83d", "\ude00", "\ufeff"];
  for (let i = 0; i < 5000; i++) {
    const texts = Array.from({ length: 1 + r.int(3) }, () => {
      let s = "";
      for (let n = r.int(r.next() < 0.2 ? 200 : 30); n > 0; n--) s += r.next() < 0.05 ? r.pick(other) : r.pick(ascii);
      return s;
    });
    // each text as JSON writes it (sometimes with every character outside ASCII as \u), side by side in one buffer
    const escapeAll = r.next() < 0.3;
    const json = texts.map((t) => (escapeAll ? JSON.stringify(t).replace(/[^\x00-\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`) : JSON.stringify(t)));
    const buf = Buffer.from(json.join(","));
    const clipper = new PreviewClip();
    let at = 0;
    for (const j of json) {
      const len = Buffer.byteLength(j);
      if (!clipper.full) assert.ok(clipper.jsonBytes(buf, at + 1, at + len - 1), j);
      at += len + 1;
    }
    assert.equal(clipper.result(), clip(...texts), JSON.stringify(texts));
  }
  // what a decoder replaces or JSON.parse refuses: fed another way
  for (const bad of [[0xc3], [0xe4, 0xb8], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0x01], [0x5c, 0x75, 0x31, 0x32], [0x5c, 0x71]]) {
    const buf = Buffer.from([0x61, ...bad, 0x62]);
    assert.equal(new PreviewClip().jsonBytes(buf, 0, buf.length), false, JSON.stringify(bad));
  }
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
