import assert from "node:assert/strict";
import { test } from "node:test";
import { readLightFields } from "../../src/session/light-fields.js";

const read = (line: string) => {
  const buf = Buffer.from(`xx${line}yy`);
  return readLightFields(buf, 2, buf.length - 2);
};
/** Where in the line (in bytes) `text` ends: where the fields read end and a reader of the rest starts. */
const after = (line: string, text: string) => Buffer.byteLength(line.slice(0, line.indexOf(text) + text.length));

test("reads type, id, parentId, timestamp and role from a line in writer order", () => {
  const line = JSON.stringify({ type: "message", id: "a1b2c3d4", parentId: "00ff00ff", timestamp: "2026-01-01T00:00:00.000Z", message: { role: "assistant", content: [] } });
  assert.deepEqual(read(line), { type: "message", id: "a1b2c3d4", parentId: "00ff00ff", timestamp: "2026-01-01T00:00:00.000Z", role: "assistant", customType: undefined, bodyAt: after(line, '"role":"assistant"') });
  // the rest of the message object starts there
  assert.equal(line.slice(read(line)!.bodyAt), ',"content":[]}}');
});

test("a null parent and a non-message entry", () => {
  const line = JSON.stringify({ type: "label", id: "x", parentId: null, timestamp: "t", targetId: "y", label: "z" });
  assert.deepEqual(read(line), { type: "label", id: "x", parentId: null, timestamp: "t", role: undefined, customType: undefined, bodyAt: after(line, '"timestamp":"t"') });
});

test("a custom entry as pith writes it: its customType is read too (bookkeeping known without a parse)", () => {
  const line = JSON.stringify({ type: "custom", id: "c1", parentId: "p1", timestamp: "t", customType: "pith.leaf", data: { x: 1 } });
  assert.deepEqual(read(line), { type: "custom", id: "c1", parentId: "p1", timestamp: "t", role: undefined, customType: "pith.leaf", bodyAt: after(line, '"pith.leaf"') });
  // without its customType right after the timestamp, it is not light
  assert.equal(read(JSON.stringify({ type: "custom", id: "c1", parentId: "p1", timestamp: "t", data: {}, customType: "x" })), null);
});

test("anything it cannot read for sure is left to the full parser", () => {
  // other key order (Pi writes custom entries this way)
  assert.equal(read(JSON.stringify({ type: "custom", customType: "x", data: { id: "no" }, id: "a", parentId: null, timestamp: "t" })), null);
  // escapes inside a field
  assert.equal(read('{"type":"message","id":"a\\"b","parentId":null,"timestamp":"t","message":{"role":"user"}}'), null);
  // torn line (no closing brace)
  assert.equal(read('{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hel'), null);
  // message without role first
  assert.equal(read(JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "t", message: { content: "x", role: "user" } })), null);
  // empty id
  assert.equal(read(JSON.stringify({ type: "message", id: "", parentId: null, timestamp: "t", message: { role: "user" } })), null);
  // v1 lines have no id
  assert.equal(read(JSON.stringify({ type: "message", timestamp: "t", message: { role: "user" } })), null);
  assert.equal(read(""), null);
  assert.equal(read("}"), null);
});

test("non-ASCII ids are decoded as UTF-8", () => {
  const line = JSON.stringify({ type: "model_change", id: "ïd-✓", parentId: "päränt", timestamp: "t", provider: "p", modelId: "m" });
  assert.deepEqual(read(line), { type: "model_change", id: "ïd-✓", parentId: "päränt", timestamp: "t", role: undefined, customType: undefined, bodyAt: after(line, '"timestamp":"t"') });
});
