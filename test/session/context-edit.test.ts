// Pi 1.x context_edit entries: a session Pi 1.5.2 edited (a message left out, one replaced, on
// its branch only) gives pith the context Pi 1.5.2 builds from it, message for message; on the
// light open path and the full parse alike. The expected contexts are the oracle's, checked in.
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyContextEdit, contextEditsOf } from "../../src/session/context-edit.js";
import { buildSessionContext } from "../../src/session/context.js";
import { SessionFile } from "../../src/session/index.js";
import type { ContextEditEntry, EntryBase } from "../../src/session/types.js";
import { asStored, CONTEXT_EDIT_FIXTURES, copyContextEditFixture, piView } from "../support/context-edit-fixtures.js";
import { assistant, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

for (const name of CONTEXT_EDIT_FIXTURES) {
  for (const fullParse of [false, true]) {
    test(`context_edit fixture ${name}: pith's context is Pi 1.5.2's (${fullParse ? "full parse" : "light path"})`, (t) => {
      const file = copyContextEditFixture(name, tempDir(t));
      const s = SessionFile.open(file, { readOnly: true, fullParse });
      const ctx = s.buildContext();
      const pi = piView(name);
      assert.equal(s.leafId, pi.leafId);
      assert.equal(s.entryCount, pi.entries);
      assert.equal(ctx.messages.map((m) => m.role).join(","), pi.roleSequence);
      assert.deepEqual(asStored(ctx.messages), asStored(pi.messages));
      assert.deepEqual(ctx.model, pi.model);
      assert.equal(ctx.thinkingLevel, pi.thinkingLevel);
      s.close();
    });
  }
}

test("the issue's file: one message left out and one replaced gives one message fewer, with the replacement", (t) => {
  const s = SessionFile.open(copyContextEditFixture("omit-and-replace", tempDir(t)), { readOnly: true });
  const ctx = s.buildContext();
  assert.equal(ctx.messages.length, 5, "six messages, one left out");
  assert.ok(!ctx.entryIds.includes("e0000004"), "the left-out message");
  const replaced = ctx.messages[ctx.entryIds.indexOf("e0000003")];
  assert.equal(replaced.role, "toolResult");
  assert.deepEqual((replaced as { content: unknown }).content, [{ type: "text", text: "[read a.ts: 2 lines, left out; read it again if needed]" }]);
  // nothing stored is changed: the target entry still holds its own content
  assert.match(JSON.stringify(s.entry("e0000003")), /export const a = 1/);
  s.close();
});

test("the tree shows each edit as an entry, as Pi 1.5.2's tree does, and the targets as they are stored", (t) => {
  for (const fullParse of [false, true]) {
    const s = SessionFile.open(copyContextEditFixture("omit-and-replace", tempDir(t)), { readOnly: true, fullParse });
    const nodes = s.tree().entries;
    const edits = nodes.filter((n) => n.type === "context_edit");
    assert.deepEqual(edits.map((n) => n.preview), ["context omit: e0000004", "context replace: e0000003"]);
    assert.match(nodes.find((n) => n.id === "e0000003")!.preview, /export const a = 1/);
    assert.equal(nodes.length, 8);
    s.close();
  }
});

// ---- the rules, on entries built here --------------------------------------------------------

let n = 0;
const at = (type: string, parentId: string | null, body: object = {}): EntryBase => ({ type, id: `f${String(++n).padStart(7, "0")}`, parentId, timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(), ...body });
const edit = (parent: EntryBase, targetId: string, replacement: unknown): ContextEditEntry => at("context_edit", parent.id, { targetId, replacement }) as ContextEditEntry;

test("a malformed edit (no replacement, content neither string nor array) is skipped and does not hide an earlier one", () => {
  const u = at("message", null, { message: user("hello") });
  const good = edit(u, u.id, { content: "hi" });
  const noReplacement = at("context_edit", good.id, { targetId: u.id });
  const numeric = edit(noReplacement, u.id, { content: 5 });
  const edits = contextEditsOf([u, good, noReplacement, numeric]);
  assert.equal(edits.get(u.id), good);
  const ctx = buildSessionContext([u, good, noReplacement, numeric]);
  assert.deepEqual(ctx.messages.map((m) => (m as { content: unknown }).content), ["hi"]);
});

test("a replacement keeps bash runs and summaries as they are; a string replacing an assistant's content becomes one text block", () => {
  const bash = { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false, timestamp: 1 } as const;
  const e = { type: "context_edit", id: "x", parentId: null, timestamp: "", targetId: "t", replacement: { content: "other" } } as ContextEditEntry;
  assert.deepEqual(applyContextEdit(bash, e), bash);
  assert.deepEqual((applyContextEdit(assistant("long answer"), e) as { content: unknown }).content, [{ type: "text", text: "other" }]);
  assert.equal(applyContextEdit(bash, { ...e, replacement: null }), undefined, "null leaves out any message");
});

test("usage reported before an edit is not trusted: the context's fresh part starts after the latest edit", () => {
  const u = at("message", null, { message: user("one") });
  const a = at("message", u.id, { message: assistant("two") });
  const u2 = at("message", a.id, { message: user("three") });
  assert.equal(buildSessionContext([u, a, u2]).freshFrom, 0);
  const e = edit(u2, a.id, null);
  const u3 = at("message", e.id, { message: user("four") });
  const ctx = buildSessionContext([u, a, u2, e, u3]);
  assert.deepEqual(ctx.entryIds, [u.id, u2.id, u3.id]);
  assert.equal(ctx.freshFrom, 2, "the messages before the edit carry stale usage");
});
