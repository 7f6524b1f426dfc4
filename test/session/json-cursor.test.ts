// The cursor's string matchers tell a string from the words it is compared with by its whole
// bytes: a word that is a prefix, a suffix or longer than the string is not it, and a string with
// an escape is not read (the caller then parses the line).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Cursor } from "../../src/session/json-cursor.js";

const WORDS = [Buffer.from("text"), Buffer.from("toolCall")];

/** oneOf on the string value at `at` in `json`, and where the cursor stopped. */
function read(json: string, at: number): { found: number; pos: number } {
  const c = new Cursor(Buffer.from(json), at, Buffer.byteLength(json));
  const found = c.oneOf(WORDS);
  return { found, pos: c.pos };
}

test("oneOf and keyIs match whole strings only", () => {
  const cases: [string, number][] = [
    ['"text"', 0],
    ['"toolCall"', 1],
    ['"tex"', 2],
    ['"xtext"', 2],
    ['"texts"', 2],
    ['"Call"', 2],
    ['""', 2],
    // the string is shorter than a word, and a quote sits just before where the word would start
    ['"","te"', 2],
    ['""""', 2],
  ];
  for (const [json, expected] of cases) {
    const at = json.lastIndexOf('"', json.length - 2);
    const { found, pos } = read(json, at);
    assert.equal(found, expected, json);
    assert.equal(pos, json.length, `${json}: the cursor is after the string`);
  }
  // not a plain string: nothing read
  for (const json of ['"te\\u0078t"', '"te\\"xt"', "7", '"unterminated']) assert.deepEqual(read(json, 0), { found: -1, pos: 0 }, json);
  const c = new Cursor(Buffer.from('{"content":1}'), 1, 13);
  assert.equal(c.keyIs(Buffer.from("content")), 1);
  assert.equal(new Cursor(Buffer.from('"contents"'), 0, 10).keyIs(Buffer.from("content")), 0);
});
