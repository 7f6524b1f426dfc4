// The light path (fields read from a line's bytes, entries parsed only when asked for) gives
// exactly what parsing every line gives: the same context and the same tree, for sessions of
// every shape the shapes bench measures, and for random lines whose keys come in any order.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { SHAPES, writeShape } from "../../bench/shapes.js";
import { readFieldsAnyOrder } from "../../src/session/light-fields.js";
import { SessionFile } from "../../src/session/index.js";
import { rng } from "../support/random.js";
import { tempDir } from "../support/tmp.js";

test("sessions of every shape: the same context and tree through the light path as through a full parse", (t) => {
  const dir = tempDir(t);
  for (const shape of SHAPES) {
    for (const seed of [1, 2]) {
      const file = join(dir, `${shape}-${seed}.jsonl`);
      writeShape(file, shape, 250_000, seed);
      const light = SessionFile.open(file, { readOnly: true });
      const full = SessionFile.open(file, { readOnly: true, fullParse: true });
      try {
        assert.deepEqual(light.buildContext(), full.buildContext(), `${shape} ${seed}: context`);
        assert.deepEqual(light.tree(), full.tree(), `${shape} ${seed}: tree`);
        assert.deepEqual(light.warnings, full.warnings, `${shape} ${seed}: warnings`);
      } finally {
        light.close();
        full.close();
      }
    }
  }
});

/** A random JSON value, with the strings that trip scanners: quotes, backslashes, brackets, keys' names. */
function value(r: ReturnType<typeof rng>, depth: number): unknown {
  const k = r.int(depth > 2 ? 4 : 7);
  if (k === 0) return r.pick(["", "plain", 'a "quoted" word', "back\\slash\\", "{[}]", '\\"', "\u00e9\u4e2d\ud83d\ude00", "id", '"type":"x"', "\n\t"]);
  if (k === 1) return r.pick([0, -1.5, 3e10, 42]);
  if (k === 2) return r.pick([true, false, null]);
  if (k === 3) return "w".repeat(r.int(300));
  if (k === 4) return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = r.int(4); i > 0; i--) o[r.pick(["id", "type", "role", "text", "content", "parentId", "x"])] = value(r, depth + 1);
  return o;
}

test("any key order: the fields read from 5,000 random lines are what JSON.parse reads, or the line is left to it", () => {
  const r = rng(11);
  let read = 0;
  for (let i = 0; i < 5000; i++) {
    const fields: [string, unknown][] = [
      ["type", r.pick(["message", "custom", "label", "compaction"])],
      ["id", r.pick(["a1b2c3d4", "x", "ïd-✓", ""])],
      ["parentId", r.pick([null, "p1", "pä"])],
      ["timestamp", "2026-01-01T00:00:00.000Z"],
    ];
    if (r.next() < 0.7) fields.push(["message", { ...(value(r, 1) as object), role: r.pick(["user", "assistant", 7]) }]);
    if (r.next() < 0.5) fields.push(["customType", r.pick(["pith.leaf", "ext", 3])]);
    for (let n = r.int(4); n > 0; n--) fields.push([r.pick(["data", "details", "summary", "type", "x"]), value(r, 1)]);
    // shuffle
    for (let k = fields.length - 1; k > 0; k--) {
      const j = r.int(k + 1);
      [fields[k], fields[j]] = [fields[j], fields[k]];
    }
    const text = `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
    const buf = Buffer.from(`..${text}..`);
    const got = readFieldsAnyOrder(buf, 2, buf.length - 2);
    if (!got) continue;
    read++;
    const e = JSON.parse(text) as Record<string, unknown>;
    assert.equal(got.type, e.type, text);
    assert.equal(got.id, e.id, text);
    assert.equal(got.parentId, e.parentId, text);
    assert.equal(got.timestamp, e.timestamp, text);
    if (e.type === "message") assert.equal(got.role, (e.message as { role?: unknown }).role, text);
    if (e.type === "custom") assert.equal(got.customType, e.customType, text);
  }
  assert.ok(read > 1000, `most well-formed lines are read (${read})`);
  // not a whole object: left to the full parse
  for (const bad of ['{"type":"x","id":"a","parentId":null,"timestamp":"t"} trailing', '{"type":"x","id":"a"', '{"type":"x","id":"a","parentId":null,"timestamp":"t","k":"unterminated}', "[1,2]"]) {
    const buf = Buffer.from(bad);
    assert.equal(readFieldsAnyOrder(buf, 0, buf.length), null, bad);
  }
});

test("tree previews: the bounded clip means what collapsing all whitespace in the whole text meant", async () => {
  const { previewOf } = await import("../../src/session/tree.js");
  const oldClip = (text: string) => {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
  };
  const r = rng(5);
  const chars = ["a", "b", " ", "  ", "\n", "\t", "\u00a0", "\u3000", "中", "😀", "\u2028", "x".repeat(50)];
  for (let i = 0; i < 3000; i++) {
    const pieces = Array.from({ length: 1 + r.int(3) }, () => {
      let s = "";
      for (let n = r.int(40); n > 0; n--) s += r.pick(chars);
      return s;
    });
    const message = { role: "user" as const, content: pieces.map((text) => ({ type: "text" as const, text })), timestamp: 0 };
    const joined = pieces.join(" ");
    const expected = joined ? oldClip(joined) : "";
    assert.equal(previewOf({ type: "message", id: "m", parentId: null, timestamp: "t", message }), expected, JSON.stringify(pieces));
  }
});
