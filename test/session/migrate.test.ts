import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { migrateLines, type FileLine } from "../../src/session/migrate.js";
import { SessionFile } from "../../src/session/index.js";
import { assistant, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

const header = (version?: number): FileLine => ({ json: { type: "session", ...(version ? { version } : {}), id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" } });

test("v1: ids and a parent chain; firstKeptEntryIndex becomes firstKeptEntryId (header is index 0)", () => {
  const lines: FileLine[] = [
    header(),
    { json: { type: "message", timestamp: "a", message: user("one") } },
    { raw: "garbage" },
    { json: { type: "message", timestamp: "b", message: assistant("two") } },
    { json: { type: "compaction", timestamp: "c", summary: "S", firstKeptEntryIndex: 2, tokensBefore: 5 } },
    { json: { type: "message", timestamp: "d", message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 1 } } },
  ];
  const out = migrateLines(lines);
  const e = out.map((l) => ("json" in l ? l.json : null));
  assert.equal(e[0]!.version, 3);
  assert.equal(e[1]!.parentId, null);
  assert.equal(e[3]!.parentId, e[1]!.id);
  assert.equal(e[4]!.parentId, e[3]!.id);
  // index 2 counts parsed lines only (the malformed one is not counted, as in Pi): the assistant message
  assert.equal(e[4]!.firstKeptEntryId, e[3]!.id);
  assert.equal("firstKeptEntryIndex" in e[4]!, false);
  assert.equal((e[5]!.message as { role: string }).role, "custom");
  assert.deepEqual(out[2], { raw: "garbage" }, "malformed lines are kept in place");
  assert.equal((lines[1] as { json: Record<string, unknown> }).json.id, undefined, "input not mutated");
});

test("v2: only the hookMessage role changes", () => {
  const lines: FileLine[] = [
    header(2),
    { json: { type: "message", id: "a", parentId: null, timestamp: "a", message: { role: "hookMessage", content: "x" } } },
    { json: { type: "message", id: "b", parentId: "a", timestamp: "b", message: user("y") } },
  ];
  const out = migrateLines(lines);
  assert.equal((out[1] as { json: { message: { role: string } } }).json.message.role, "custom");
  assert.equal((out[1] as { json: { id: string } }).json.id, "a");
  assert.equal((out[0] as { json: { version: number } }).json.version, 3);
});

test("opening a v2 file rewrites it atomically and keeps the original as .v2.bak", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "old.jsonl");
  const content =
    [
      { type: "session", version: 2, id: "s2", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
      { type: "message", id: "a", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 1 } },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n";
  writeFileSync(file, content);
  const s = SessionFile.open(file);
  t.after(() => s.close());
  assert.equal(readFileSync(`${file}.v2.bak`, "utf8"), content);
  assert.equal(JSON.parse(readFileSync(file, "utf8").split("\n")[0]).version, 3);
  assert.deepEqual(s.buildContext().messages.map((m) => m.role), ["custom"]);
});
