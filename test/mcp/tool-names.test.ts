import assert from "node:assert/strict";
import { test } from "node:test";
import { mcpToolName } from "../../src/mcp/tool-names.js";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

test("names are mcp__<server>__<tool>, each part reduced to what every provider takes", () => {
  const taken = new Set<string>();
  assert.equal(mcpToolName("notes", "echo", taken), "mcp__notes__echo");
  assert.equal(mcpToolName("my server", "get.item/v2", taken), "mcp__my_server__get_item_v2");
  assert.equal(mcpToolName("ünï", "", taken), "mcp___n____");
  for (const n of taken) assert.match(n, VALID);
});

test("names that reduce alike stay apart, deterministically, and none replaces another", () => {
  const a = new Set<string>();
  const first = [mcpToolName("my.db", "query", a), mcpToolName("my_db", "query", a), mcpToolName("my-db", "query", a), mcpToolName("my/db", "query", a)];
  assert.equal(new Set(first).size, 4);
  assert.equal(first[0], "mcp__my_db__query");
  for (const n of first) assert.match(n, VALID);
  const b = new Set<string>();
  const again = [mcpToolName("my.db", "query", b), mcpToolName("my_db", "query", b), mcpToolName("my-db", "query", b), mcpToolName("my/db", "query", b)];
  assert.deepEqual(again, first, "the same inputs in the same order give the same names");
});

test("long names fit 64 characters, a long server leaving the tool room, two long ones halving it", () => {
  const taken = new Set<string>();
  const longServer = mcpToolName("s".repeat(200), "read_file", taken);
  assert.match(longServer, VALID);
  assert.ok(longServer.endsWith("__read_file"), longServer);
  const bothLong = mcpToolName("x".repeat(100), "t".repeat(100), taken);
  assert.equal(bothLong.length, 64);
  assert.match(bothLong, /^mcp__x{28}__t{29}$/);
  // two tools that differ only past the cut
  const p = mcpToolName("srv", `${"a".repeat(80)}1`, taken);
  const q = mcpToolName("srv", `${"a".repeat(80)}2`, taken);
  assert.notEqual(p, q);
  for (const n of [p, q]) assert.match(n, VALID);
});
