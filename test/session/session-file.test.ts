import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionError, SessionFile, buildSessionContext, encodeCwd, type SessionEntry } from "../../src/session/index.js";
import { assistant, call, result, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

function fileLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

function expectError(fn: () => unknown, code: string): SessionError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof SessionError, `expected SessionError, got ${err}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

test("create writes the header at once, at Pi's path layout", (t) => {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: "/home/me/app", sessionsDir: dir });
  t.after(() => s.close());
  assert.ok(s.file.startsWith(join(dir, "--home-me-app--") + "/"));
  assert.match(s.file, /\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
  const [header] = fileLines(s.file);
  assert.deepEqual(Object.keys(header), ["type", "version", "id", "timestamp", "cwd"]);
  assert.equal(header.type, "session");
  assert.equal(header.version, 3);
  assert.equal(header.id, s.sessionId);
  assert.equal(header.cwd, "/home/me/app");
  assert.equal(s.leafId, null);
  assert.deepEqual(s.buildContext().messages, []);
  assert.equal(encodeCwd("C:\\work\\x"), "--C--work-x--");
});

test("appends chain to the leaf, with 8-hex unique ids, and each line is on disk when append returns", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  const a = s.appendMessage(user("hi"));
  assert.equal(fileLines(s.file).length, 2, "written before append returned");
  const b = s.appendMessage(assistant("hello"));
  assert.match(a.id, /^[0-9a-f]{8}$/);
  assert.equal(a.parentId, null);
  assert.equal(b.parentId, a.id);
  assert.equal(s.leafId, b.id);
  const lines = fileLines(s.file);
  assert.deepEqual(Object.keys(lines[2]).slice(0, 5), ["type", "id", "parentId", "timestamp", "message"]);
  assert.equal(Object.keys(lines[2].message as object)[0], "role");
});

test("round trip of every entry type (entries, tree, context survive reopening)", (t) => {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: "/p", sessionsDir: dir });
  const u = s.appendMessage(user("read the file"));
  s.appendModelChange("anthropic", "claude-opus-4-5");
  s.appendThinkingLevelChange("high");
  s.appendMessage(assistant("", [call("c1", "read", { path: "a.ts" })]));
  s.appendMessage(result("c1", "read", "contents"));
  s.append({ type: "custom", customType: "ext", data: { n: 1 } });
  s.append({ type: "custom_message", customType: "ext", content: "injected", display: true, details: { x: 1 } });
  s.appendMessage({ role: "bashExecution", command: "ls", output: "a.ts", exitCode: 0, cancelled: false, truncated: false, timestamp: 5 });
  const kept = s.appendMessage(user("keep me"));
  s.appendMessage(assistant("ok"));
  s.append({ type: "compaction", summary: "did things", firstKeptEntryId: kept.id, tokensBefore: 1234, details: { readFiles: ["a.ts"], modifiedFiles: [] } });
  s.setLabel(u.id, "start");
  s.setName("  my session  ");
  const bs = s.branchWithSummary(kept.id, "tried something else", { readFiles: [], modifiedFiles: [] });
  assert.throws(() => s.append({ type: "future_type" } as never), (e: unknown) => e instanceof SessionError && e.code === "InvalidEntry");

  const entriesBefore = s.entries();
  const treeBefore = s.tree();
  const contextBefore = s.buildContext();
  s.close();

  const r = SessionFile.open(s.file);
  t.after(() => r.close());
  assert.deepEqual(r.entries(), entriesBefore);
  assert.deepEqual(r.tree(), treeBefore);
  assert.deepEqual(r.buildContext(), contextBefore);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.leafId, bs.id);
  assert.equal(r.name(), "my session");
  assert.equal(r.labels().get(u.id), "start");
  assert.equal(treeBefore.entries.find((n) => n.id === u.id)?.label, "start");
  assert.deepEqual(
    new Set(entriesBefore.map((e) => e.type)),
    new Set(["message", "model_change", "thinking_level_change", "custom", "custom_message", "compaction", "label", "session_info", "branch_summary"]),
  );
  // at the branch summary, the path is u..kept + summary: no compaction on it
  assert.deepEqual(
    contextBefore.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "custom", "bashExecution", "user", "branchSummary"],
  );
  assert.deepEqual(contextBefore.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  assert.equal(contextBefore.thinkingLevel, "high");
});

test("context after a compaction: summary, kept entries, then later ones (lazily parsed = fully parsed)", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  s.appendThinkingLevelChange("low");
  s.appendMessage(user("old"));
  s.appendMessage(assistant("old answer"));
  const kept = s.appendMessage(user("kept"));
  s.appendMessage(assistant("kept answer"));
  const c = s.append({ type: "compaction", summary: "S1", firstKeptEntryId: kept.id, tokensBefore: 10 });
  s.appendMessage(user("after"));
  s.close();
  const r = SessionFile.open(s.file, { readOnly: true });
  t.after(() => r.close());
  const ctx = r.buildContext();
  assert.deepEqual(ctx.messages.map((m) => m.role), ["compactionSummary", "user", "assistant", "user"]);
  assert.equal(ctx.entryIds[0], c.id);
  assert.equal(ctx.thinkingLevel, "low", "a setting from before the kept span still counts");
  assert.deepEqual(ctx.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  // the same as the pure builder over the full path
  const full = SessionFile.open(s.file, { readOnly: true });
  t.after(() => full.close());
  assert.deepEqual(buildSessionContext(full.branchPath()), ctx);
});

test("branch moves the leaf and the move survives reopening; appends then fork from there", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  const a = s.appendMessage(user("first"));
  const b = s.appendMessage(assistant("one"));
  s.appendMessage(user("second"));
  s.branch(b.id);
  assert.equal(s.leafId, b.id);
  s.close();
  let r = SessionFile.open(s.file);
  assert.equal(r.leafId, b.id, "leaf restored");
  assert.equal(r.buildContext().messages.length, 2);
  assert.ok(!r.tree().entries.some((n) => n.type === "custom"), "leaf markers are not shown");
  const c = r.appendMessage(user("alternative"));
  assert.equal(c.parentId, b.id, "the new entry hangs off the target, not the marker");
  r.branch(null);
  assert.equal(r.leafId, null);
  assert.deepEqual(r.buildContext().messages, []);
  r.close();
  r = SessionFile.open(s.file);
  t.after(() => r.close());
  assert.equal(r.leafId, null);
  const root2 = r.appendMessage(user("fresh start"));
  assert.equal(root2.parentId, null);
  expectError(() => r.branch("nope"), "EntryNotFound");
  assert.ok(r.has(a.id));
  // siblings in timestamp order in the tree
  const tree = r.tree();
  const kids = tree.entries.filter((n) => n.parentId === b.id).map((n) => n.preview);
  assert.deepEqual(kids, ["second", "alternative"]);
});

test("fork writes the path to a new file with parentSession and the labels on the path", (t) => {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: "/p", sessionsDir: dir });
  t.after(() => s.close());
  const a = s.appendMessage(user("a"));
  const b = s.appendMessage(assistant("b"));
  s.setLabel(a.id, "L");
  s.appendMessage(user("c"));
  s.branch(a.id);
  const f = s.fork(b.id);
  t.after(() => f.close());
  assert.notEqual(f.file, s.file);
  assert.equal(f.header.parentSession, s.file);
  assert.deepEqual(f.entries().filter((e) => e.type === "message").map((e) => e.id), [a.id, b.id]);
  assert.equal(f.labels().get(a.id), "L");
  assert.equal(f.leafId, f.entries().at(-1)!.id);
  assert.deepEqual(f.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
  expectError(() => s.fork("missing"), "EntryNotFound");
});

test("files that are not sessions are refused and left untouched", (t) => {
  const dir = tempDir(t);
  const cases: [string, string | Buffer][] = [
    ["empty", ""],
    ["text", "hello world\n"],
    ["binary", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0x0a, 0xff])],
    ["json-not-header", '{"type":"message","id":"a"}\n'],
    ["header-without-id", '{"type":"session","version":3}\n'],
    ["array", "[1,2]\n"],
  ];
  for (const [name, content] of cases) {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, content);
    const before = readFileSync(file);
    expectError(() => SessionFile.open(file), "NotASession");
    assert.deepEqual(readFileSync(file), before, `${name} untouched`);
    assert.ok(!existsSync(`${file}.lock`), "no lock left behind");
  }
  expectError(() => SessionFile.open(join(dir, "missing.jsonl")), "SessionNotFound");
  expectError(() => SessionFile.open(dir), "NotASession");
});

test("a torn last line opens with a warning; the next append starts on a fresh line", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  const a = s.appendMessage(user("intact"));
  s.close();
  appendFileSync(s.file, '{"type":"message","id":"deadbeef","parentId":"' + a.id + '","timestamp":"t","message":{"role":"assistant","content":[{"ty');
  const r = SessionFile.open(s.file);
  assert.deepEqual(r.warnings.map((w) => [w.kind, w.line]), [["torn-line", 3]]);
  assert.equal(r.leafId, a.id);
  const b = r.appendMessage(assistant("after the crash"));
  r.close();
  const text = readFileSync(s.file, "utf8");
  assert.ok(text.includes('{"ty\n{"type":"custom"'), "torn bytes kept, new line starts fresh");
  assert.match(text, /"customType":"pith.torn","data":\{"offset":\d+,"length":\d+\}\}\n\{"type":"message"/, "the tear is recorded before the new entry");
  const again = SessionFile.open(s.file);
  t.after(() => again.close());
  assert.deepEqual(again.warnings.map((w) => w.kind), ["malformed-line"]);
  assert.equal(again.leafId, b.id);
  assert.deepEqual(again.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
});

test("malformed lines in the middle are reported by line number, skipped, never deleted", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  const a = s.appendMessage(user("one"));
  s.close();
  appendFileSync(s.file, "this is not json\n\n");
  // a torn entry followed by a whole one on the same line (written by a program that does not repair)
  appendFileSync(s.file, `{"type":"message","id":"torn0001","parentId":"${a.id}","timestamp":"t","mess{"type":"message","id":"whole001","parentId":"${a.id}","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}}\n`);
  const before = readFileSync(s.file);
  const r = SessionFile.open(s.file);
  t.after(() => r.close());
  assert.deepEqual(r.warnings.map((w) => [w.kind, w.line]), [["malformed-line", 3], ["malformed-line", 5]]);
  assert.match(r.warnings[1].message, /recovered/);
  assert.equal(r.leafId, "whole001");
  assert.deepEqual(r.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
  assert.deepEqual(readFileSync(s.file), before, "opening changed nothing");
});

test("an entry whose parent points nowhere is attached to the entry before it", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  const a = s.appendMessage(user("one"));
  s.appendMessage(assistant("two"));
  s.close();
  appendFileSync(s.file, JSON.stringify({ type: "message", id: "orphan01", parentId: "gone0000", timestamp: "2026-01-02T00:00:00.000Z", message: user("three") }) + "\n");
  appendFileSync(s.file, JSON.stringify({ type: "message", id: "selfref1", parentId: "selfref1", timestamp: "2026-01-02T00:00:01.000Z", message: assistant("four") }) + "\n");
  const r = SessionFile.open(s.file);
  t.after(() => r.close());
  assert.deepEqual(r.warnings.map((w) => w.kind), ["dangling-parent", "dangling-parent"]);
  assert.equal(r.entry("orphan01")!.parentId, r.entries()[1].id);
  assert.deepEqual(r.buildContext().messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.equal(r.branchPath()[0].id, a.id);
});

test("unknown entry types are kept and ignored by the context", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  const a = s.appendMessage(user("one"));
  s.close();
  appendFileSync(s.file, JSON.stringify({ type: "hologram", id: "f0f0f0f0", parentId: a.id, timestamp: "2026-01-02T00:00:00.000Z", payload: [1] }) + "\n");
  const r = SessionFile.open(s.file);
  t.after(() => r.close());
  assert.equal(r.leafId, "f0f0f0f0");
  assert.deepEqual((r.entry("f0f0f0f0") as unknown as { payload: number[] }).payload, [1]);
  assert.deepEqual(r.buildContext().messages.map((m) => m.role), ["user"]);
  const b = r.appendMessage(assistant("two"));
  assert.equal(b.parentId, "f0f0f0f0");
  assert.deepEqual(r.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
  assert.ok(r.tree().entries.some((n) => n.type === "hologram"));
});

test("read-only sessions refuse writes; closed sessions refuse everything", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  s.appendMessage(user("x"));
  const ro = SessionFile.open(s.file, { readOnly: true });
  expectError(() => ro.appendMessage(user("y")), "ReadOnly");
  ro.close();
  s.close();
  s.close(); // idempotent
  expectError(() => s.appendMessage(user("y")), "SessionClosed");
  assert.ok(!existsSync(`${s.file}.lock`), "lock released on close");
});

test("summary messages cannot be appended as message entries; unserializable entries are refused", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  expectError(() => s.appendMessage({ role: "compactionSummary", summary: "x", tokensBefore: 1, timestamp: 0 } as never), "InvalidEntry");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expectError(() => s.append({ type: "custom", customType: "x", data: cyclic }), "InvalidEntry");
  assert.equal(fileLines(s.file).length, 1, "nothing written");
  expectError(() => s.setLabel("missing", "x"), "EntryNotFound");
});

test("ids written by others are read as they are (any non-empty string)", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "s.jsonl");
  const uuid = "0b6f8c9e-1d2a-4c3b-9e8f-7a6b5c4d3e2f";
  writeFileSync(
    file,
    [
      { type: "session", version: 3, id: "sess", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/does/not/exist/here" },
      { type: "message", id: uuid, parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: user("a") },
      { type: "message", id: "x", parentId: uuid, timestamp: "2026-01-01T00:00:02.000Z", message: assistant("b") },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n",
  );
  const s = SessionFile.open(file);
  t.after(() => s.close());
  assert.equal(s.cwd, "/does/not/exist/here");
  assert.deepEqual(s.branchPath().map((e: SessionEntry) => e.id), [uuid, "x"]);
  assert.equal(readdirSync(dir).filter((f) => f.endsWith(".bak")).length, 0, "a v3 file is not rewritten");
});

test("treeAsync gives the same tree as tree(), yielding to the event loop on the way", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  for (let i = 0; i < 50; i++) s.appendMessage(i % 2 ? assistant(`a${i}`) : user(`u${i}`));
  s.branch(s.entries()[10].id);
  s.appendMessage(user("side"));
  let otherWorkRan = false;
  setImmediate(() => (otherWorkRan = true));
  const building = s.treeAsync({ sliceMs: 0 });
  assert.equal(otherWorkRan, false);
  const asyncTree = await building;
  assert.ok(otherWorkRan, "other work ran while the tree was built");
  assert.deepEqual(asyncTree, s.tree());
});
