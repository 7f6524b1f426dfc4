// The tree's preview read from the front of a line (sketch-prefix.ts) is what previewOf gives for
// the parsed line, for random entries of every kind the tree shows, in Pi's key order and in
// others; and it stops reading where the preview is decided.
import assert from "node:assert/strict";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { test } from "node:test";
import { SessionFile } from "../../src/session/session-file.js";
import { tempDir } from "../support/tmp.js";
import { readEntryFields } from "../../src/session/light-fields.js";
import type { EntryRecord } from "../../src/session/load.js";
import { previewFromPrefix } from "../../src/session/preview-from-front.js";
import { previewOf } from "../../src/session/tree.js";
import type { SessionEntry } from "../../src/session/types.js";
import { rng } from "../support/random.js";

type Rng = ReturnType<typeof rng>;

const PIECES = ["word ", "x".repeat(70), "  ", "\n\t", "é", "中文", "😀", '"quoted"', "back\\slash", "\u00a0", "\u2028", "\u0001", "\ud83d", " "];

function text(r: Rng): string {
  const k = r.int(10);
  if (k === 0) return "";
  if (k === 1) return "   \n ";
  let s = "";
  for (let n = r.int(k < 5 ? 8 : 40); n >= 0; n--) s += r.pick(PIECES);
  return s;
}

/** Keys in the order given, or shuffled. */
function obj(r: Rng, shuffle: boolean, fields: [string, unknown][]): Record<string, unknown> {
  const f = [...fields];
  if (shuffle) {
    for (let i = f.length - 1; i > 0; i--) {
      const j = r.int(i + 1);
      [f[i], f[j]] = [f[j], f[i]];
    }
  }
  return Object.fromEntries(f);
}

function block(r: Rng, shuffle: boolean): unknown {
  switch (r.int(6)) {
    case 0:
    case 1:
      return obj(r, shuffle, [["type", "text"], ["text", text(r)]]);
    case 2:
      return obj(r, shuffle, [["type", "toolCall"], ["id", "call_1"], ["name", r.pick(["read", "bash", "edit"])], ["arguments", { path: text(r), n: 3, deep: { a: [1, "]}"] } }]]);
    case 3:
      return obj(r, shuffle, [["type", "thinking"], ["thinking", text(r)], ["thinkingSignature", "sig"]]);
    case 4:
      return obj(r, shuffle, [["type", "image"], ["data", "aGVsbG8="], ["mimeType", "image/png"]]);
    default:
      return obj(r, shuffle, [["type", "text"], ["text", r.pick([7, null, text(r)])]]);
  }
}

function content(r: Rng, shuffle: boolean): unknown {
  const k = r.int(8);
  if (k === 0) return text(r);
  if (k === 1) return r.pick([null, 5, []]);
  return Array.from({ length: r.int(4) }, () => block(r, shuffle));
}

function message(r: Rng, shuffle: boolean): Record<string, unknown> {
  const role = r.pick(["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary"]);
  if (role === "bashExecution") return obj(r, shuffle, [["role", role], ["command", r.pick([text(r), 3])], ["output", text(r)], ["exitCode", 0]]);
  if (role === "branchSummary") return obj(r, shuffle, [["role", role], ["summary", text(r)], ["fromId", "a"]]);
  const fields: [string, unknown][] = [["role", role]];
  if (role === "toolResult") fields.push(["toolCallId", "call_1"], ["toolName", "read"]);
  fields.push(["content", content(r, shuffle)]);
  if (role === "assistant") fields.push(["usage", { input: 1, output: 2, cost: { total: 0 } }], ["stopReason", r.pick(["stop", "toolUse", "aborted", "error"])], ["errorMessage", text(r)]);
  fields.push(["timestamp", 1]);
  return obj(r, shuffle, fields);
}

function entry(r: Rng, i: number): Record<string, unknown> {
  const shuffle = r.next() < 0.3;
  const head: [string, unknown][] = [["id", `e${i}`], ["parentId", i > 0 ? `e${i - 1}` : null], ["timestamp", "2026-01-01T00:00:00.000Z"]];
  const kind = r.int(10);
  if (kind < 6) return obj(r, shuffle, [["type", "message"], ...head, ["message", message(r, shuffle)]]);
  if (kind === 6) return obj(r, shuffle, [["type", "custom_message"], ...head, ["customType", "ext"], ["content", content(r, shuffle)], ["display", true]]);
  if (kind === 7) return obj(r, shuffle, [["type", "compaction"], ...head, ["summary", r.pick([text(r), 4])], ["firstKeptEntryId", "e0"], ["tokensBefore", 10]]);
  if (kind === 8) return obj(r, shuffle, [["type", "branch_summary"], ...head, ["fromId", "e0"], ["summary", text(r)]]);
  return obj(r, shuffle, [["type", "custom"], ...head, ["customType", r.pick(["ext.state", "pith.x"])], ["data", { a: text(r) }]]);
}

test("a preview read from the front of a line is previewOf's for the parsed line, or the line is left to the full readers", () => {
  const r = rng(33);
  let decided = 0;
  for (let i = 0; i < 6000; i++) {
    const e = entry(r, i);
    const line = JSON.stringify(e);
    const buf = Buffer.from(`xx${line}yy`);
    const end = buf.length - 2;
    const rec = readEntryFields(buf, 2, end) as EntryRecord | null;
    if (!rec) continue;
    const got = previewFromPrefix(buf, 2, end, rec);
    if (got === undefined) continue;
    decided++;
    const parsed = JSON.parse(line) as SessionEntry;
    let expected: string;
    try {
      expected = previewOf(parsed);
    } catch {
      // previewOf itself fails on this entry (an assistant whose content is no array): the prefix reader must not answer
      assert.fail(`answered for an entry previewOf cannot preview: ${line}`);
    }
    assert.equal(got, expected, line);
    // the tree shows the role the scan read
    if (parsed.type === "message") assert.equal(rec.role, parsed.message.role, line);
  }
  assert.ok(decided > 3000, `most lines are decided from their front (${decided} of 6000)`);
});

test("the front of a line is enough: a text that fills the preview is not read to its end", () => {
  const long = `${"word ".repeat(100)}${'\\"'.repeat(200_000)}`;
  const line = JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user", content: [{ type: "text", text: long }] } });
  // everything after the preview's characters is cut off: a reader that looks for the text's end fails
  const cut = Buffer.from(line.slice(0, 400));
  const rec = readEntryFields(Buffer.from(line), 0, Buffer.byteLength(line)) as EntryRecord;
  const got = previewFromPrefix(cut, 0, cut.length, rec);
  assert.equal(got, previewOf(JSON.parse(line) as SessionEntry));
});

/** Bytes node:fs readSync was asked for while `fn` ran. */
function bytesRead(fn: () => void): number {
  const original = fs.readSync;
  let bytes = 0;
  (fs as { readSync: unknown }).readSync = (...args: unknown[]) => {
    bytes += args[3] as number;
    return (original as (...a: unknown[]) => number)(...args);
  };
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    (fs as { readSync: unknown }).readSync = original;
    syncBuiltinESMExports();
  }
  return bytes;
}

test("a line longer than a run is read only as far as its preview needs, whole when its front does not decide it", (t) => {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: dir, sessionsDir: dir });
  const huge = "x".repeat(6 << 20);
  s.appendMessage({ role: "user", content: [{ type: "text", text: `the preview comes first ${huge}` }], timestamp: 1 });
  s.appendMessage({ role: "user", content: "between", timestamp: 2 });
  // no text: the preview is the tool calls' names, the last of them after 6 MB of arguments
  const calls = [
    { type: "toolCall" as const, id: "c1", name: "write", arguments: { content: huge } },
    { type: "toolCall" as const, id: "c2", name: "bash", arguments: { command: "ls" } },
  ];
  s.appendMessage({ role: "assistant", content: calls, api: "anthropic-messages", provider: "anthropic", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 3 });
  const file = s.file;
  s.close();
  const light = SessionFile.open(file, { readOnly: true });
  const full = SessionFile.open(file, { readOnly: true, fullParse: true });
  try {
    let tree: ReturnType<SessionFile["tree"]> | undefined;
    const read = bytesRead(() => void (tree = light.tree()));
    assert.deepEqual(tree, full.tree());
    assert.equal(tree!.entries[2].preview, "[tool calls: write, bash]");
    // the second huge line whole, the first only its front
    assert.ok(read < 7 << 20, `${(read / (1 << 20)).toFixed(1)} MiB read for the tree`);
  } finally {
    light.close();
    full.close();
  }
});
