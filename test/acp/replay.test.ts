// A stored session's active branch replayed as ACP updates (session/load): a synthetic session
// with an abandoned branch, a branch summary and a compaction; turns that ended in an abort; then
// Pi's real session file.
import assert from "node:assert/strict";
import { isAbsolute } from "node:path";
import { test } from "node:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { historyUpdates } from "../../src/acp/replay.js";
import type { AssistantMessage, StoredMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";
import type { SessionEntry } from "../../src/session/types.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, call, result, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";
import { assertValidUpdates, chunkText, ofKind } from "../support/acp-schema.js";

const cwd = "/home/u/project";

function text(u: SessionUpdate): string {
  if ("content" in u && u.content && !Array.isArray(u.content) && u.content.type === "text") return u.content.text;
  if (u.sessionUpdate === "compaction_update") return JSON.stringify(u.summary ?? "");
  return "";
}

/** Index of the first update whose text contains `needle` (asserted to exist). */
function at(updates: SessionUpdate[], needle: string): number {
  const i = updates.findIndex((u) => text(u).includes(needle));
  assert.ok(i >= 0, `no update shows ${JSON.stringify(needle)}`);
  return i;
}

/** root -> branch A (abandoned) | branch summary -> B with a compaction and more after it. */
function buildSession(t: { after(fn: () => void): void }): { entries: SessionEntry[]; all: SessionEntry[] } {
  const s = SessionFile.create({ cwd, sessionsDir: tempDir(t) });
  t.after(() => s.close());
  s.appendMessage(user("first question"));
  s.appendMessage(assistant("answer one", [call("c1", "read", { path: "src/x.ts" })]));
  s.appendMessage(result("c1", "read", "1\tconst x = 1;"));
  const done1 = s.appendMessage(assistant("done with one"));
  s.appendMessage(user("abandoned question"));
  s.appendMessage(assistant("abandoned answer"));
  s.branchWithSummary(done1.id, "Tried approach A; it did not work.");
  s.appendModelChange("anthropic", "claude-opus-4");
  const second = s.appendMessage(user("second question"));
  const reply: AssistantMessage = assistant("", [call("c2", "edit", { path: "src/x.ts", oldText: "const x = 1;", newText: "const x = 2;" })]);
  reply.content.unshift({ type: "thinking", thinking: "Which file?" }, { type: "text", text: "Editing." });
  s.appendMessage(reply);
  s.appendMessage({ ...result("c2", "edit", "Edited src/x.ts"), details: { diff: "@@", firstChangedLine: 1 } });
  s.appendThinkingLevelChange("high");
  s.setLabel(second.id, "checkpoint");
  s.append({ type: "compaction", summary: "## Goal\nEdit x.", firstKeptEntryId: second.id, tokensBefore: 41200, details: { readFiles: [], modifiedFiles: [] } });
  s.appendMessage(user("after compaction"));
  s.appendMessage(assistant("", [call("c3", "bash", { command: "npm test" }), call("c4", "bash", { command: "never ran" })]));
  s.appendMessage(result("c3", "bash", "1 failing\n\nCommand failed with exit code 1", true));
  s.appendMessage({ role: "bashExecution", command: "git status", output: "clean", exitCode: 0, cancelled: false, truncated: false, timestamp: 2 });
  s.appendMessage({ ...assistant("partial"), stopReason: "error", errorMessage: "overloaded" });
  return { entries: s.branchPath(), all: s.entries() };
}

function replay(entries: SessionEntry[], compaction: boolean, sessionCwd = cwd): SessionUpdate[] {
  return assertValidUpdates(historyUpdates(entries, { cwd: sessionCwd, compaction }), compaction ? "with compaction" : "without");
}

test("replay shows the active branch only, history before the compaction included, the compaction at its place", (t) => {
  const { entries, all } = buildSession(t);
  assert.ok(all.length > entries.length, "the file holds more than the branch");
  const updates = replay(entries, true);
  const shown = updates.map(text).join("\n");
  assert.doesNotMatch(shown, /abandoned/, "the branch left behind is not shown");

  const order = ["first question", "answer one", "done with one", "Tried approach A", "second question", "Editing.", "## Goal", "after compaction", "!git status", "overloaded"];
  const positions = order.map((n) => at(updates, n));
  assert.deepEqual([...positions].sort((a, b) => a - b), positions, `in order: ${order.join(" < ")}`);

  const compactions = ofKind(updates, "compaction_update");
  assert.equal(compactions.length, 1);
  assert.deepEqual(compactions[0], { sessionUpdate: "compaction_update", compactionId: entries.find((e) => e.type === "compaction")!.id, status: "completed", summary: [{ type: "text", text: "## Goal\nEdit x." }] });
  const compactionAt = updates.indexOf(compactions[0]);
  const c2end = updates.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "c2");
  assert.ok(c2end < compactionAt && compactionAt < at(updates, "after compaction"), "after the edit's result, before the next prompt");

  assert.equal(chunkText(updates, "agent_thought_chunk"), "Which file?");
  const users = entries.filter((e) => e.type === "message" && (e.message.role === "user" || e.message.role === "bashExecution"));
  assert.equal(ofKind(updates, "user_message_chunk").length, users.length);

  const calls = ofKind(updates, "tool_call");
  assert.deepEqual(calls.map((c) => [c.toolCallId, c.status, c.kind]), [["c1", "completed", "read"], ["c2", "completed", "edit"], ["c3", "failed", "execute"], ["c4", "failed", "execute"]]);
  assert.match(JSON.stringify(calls[3].content), /No result was recorded/);
  const ends = ofKind(updates, "tool_call_update");
  assert.deepEqual(ends.map((u) => [u.toolCallId, u.status]), [["c1", "completed"], ["c2", "completed"], ["c3", "failed"]]);
  assert.deepEqual(ends[1].content?.[0], { type: "diff", path: `${cwd}/src/x.ts`, oldText: "const x = 1;", newText: "const x = 2;" });
  assert.deepEqual(ends[1].locations, [{ path: `${cwd}/src/x.ts`, line: 1 }]);
  for (const u of updates) assert.ok(u.sessionUpdate !== "tool_call_update" || calls.some((c) => c.toolCallId === u.toolCallId), "updates only for announced calls");
});

test("without the compaction capability the compaction is a line of text at the same place", (t) => {
  const { entries } = buildSession(t);
  const updates = replay(entries, false);
  assert.equal(ofKind(updates, "compaction_update").length, 0);
  const i = at(updates, "Context compacted");
  assert.equal(text(updates[i]).trim(), "Context compacted: 41,200 tokens → summary.");
  assert.ok(at(updates, "Editing.") < i && i < at(updates, "after compaction"));
});

test("text of consecutive messages is kept apart; empty entries lists give nothing", () => {
  assert.deepEqual(historyUpdates([], { cwd, compaction: true }), []);
  const e = (id: string, message: StoredMessage): SessionEntry => ({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message });
  const updates = assertValidUpdates(historyUpdates([e("a", user("one")), e("b", user("two")), e("c", assistant("x")), e("d", assistant("y"))], { cwd, compaction: false }));
  assert.deepEqual(updates.map(text), ["one", "\n\ntwo", "x", "\n\ny"]);
  assert.deepEqual(updates.map((u) => (u as { messageId?: string }).messageId), ["a", "b", "c", "d"]);
});

test("stored blocks lose pith's own fields; an image stays an image; a call id used twice is answered in turn", () => {
  const e = (id: string, message: StoredMessage): SessionEntry => ({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message });
  const signed: AssistantMessage = { ...assistant(""), content: [{ type: "text", text: "signed", textSignature: "sig" }, { type: "thinking", thinking: "t", thinkingSignature: "s" }] };
  const withImage = { ...user(""), content: [{ type: "text" as const, text: "look", fromNewerWriter: 1 }, { type: "image" as const, data: "iVBOR", mimeType: "image/png" }] };
  const updates = assertValidUpdates(
    historyUpdates(
      [
        e("a", withImage),
        e("b", signed),
        e("c", assistant("", [call("dup", "read", { path: "a" })])),
        e("d", result("dup", "read", "ok")),
        e("f", assistant("", [call("dup", "read", { path: "b" })])),
        e("g", result("dup", "read", "missing", true)),
      ],
      { cwd, compaction: false },
    ),
  );
  assert.deepEqual(ofKind(updates, "user_message_chunk").map((u) => u.content.type), ["text", "image"]);
  assert.deepEqual(ofKind(updates, "tool_call").map((c) => c.status), ["completed", "failed"]);
  assert.deepEqual(ofKind(updates, "tool_call_update").map((c) => c.status), ["completed", "failed"]);
});

test("a turn that ended in an abort is followed by a line saying it was interrupted: after its last result, before the next prompt", () => {
  const e = (id: string, message: StoredMessage): SessionEntry => ({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message });
  const aborted = (id: string, name: string, text: string) => ({ ...result(id, name, text, true), details: { aborted: true } });
  const interrupted = (updates: SessionUpdate[]) => updates.flatMap((u, i) => (/interrupted/.test(text(u)) ? [i] : []));
  const replayOf = (entries: SessionEntry[]) => assertValidUpdates(historyUpdates(entries, { cwd, compaction: false }));

  // a permission question cancelled (or an abort while a tool ran): the calls' results say aborted
  const atQuestion = replayOf([
    e("u1", user("write both")),
    e("a1", assistant("Writing.", [call("w1", "write", { path: "a.txt", content: "a" }), call("w2", "write", { path: "b.txt", content: "b" })])),
    e("r1", aborted("w1", "write", "Aborted by the user before this tool ran.")),
    e("r2", aborted("w2", "write", "Aborted by the user before this tool ran.")),
    e("u2", user("next")),
  ]);
  assert.deepEqual(ofKind(atQuestion, "tool_call").map((c) => [c.toolCallId, c.status]), [["w1", "failed"], ["w2", "failed"]]);
  const lines = interrupted(atQuestion);
  assert.equal(lines.length, 1, "one line for the turn");
  const lastEnd = atQuestion.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "w2");
  assert.ok(lastEnd < lines[0] && lines[0] < at(atQuestion, "next"), "after the last result, before the next prompt");
  assert.equal(atQuestion[lines[0]].sessionUpdate, "agent_message_chunk");

  // an abort mid-stream: the partial reply stored as aborted; at the end of the history too
  const midStream = replayOf([e("u1", user("tell me")), e("a1", { ...assistant("Once upon"), stopReason: "aborted", errorMessage: "request aborted" })]);
  assert.deepEqual(interrupted(midStream), [midStream.length - 1]);
  assert.ok(at(midStream, "Once upon") < midStream.length - 1);

  // a denied call, a failed one, a call skipped by a steer: the run went on, nothing is said
  const wentOn = replayOf([
    e("u1", user("go")),
    e("a1", assistant("", [call("d1", "bash", { command: "rm -rf /" }), call("s1", "read", { path: "x" })])),
    e("r1", result("d1", "bash", "Not permitted: the user denied this tool call", true)),
    e("r2", result("s1", "read", "Skipped: the user sent a new message before this tool ran.", true)),
    e("u2", user("instead")),
    e("a2", assistant("ok")),
  ]);
  assert.deepEqual(interrupted(wentOn), []);
});

test("Pi's real session replays: every update valid, one user chunk per user message, every call shown", { skip: fixtureSkip }, (t) => {
  const s = SessionFile.open(copyFixture(tempDir(t)));
  t.after(() => s.close());
  const entries = s.branchPath();
  const messages = entries.flatMap((e) => (e.type === "message" ? [e.message] : []));
  const userMessages = messages.filter((m) => m.role === "user");
  assert.equal(userMessages.length, 88, "Pi's count of user messages on the branch");
  const toolCalls = messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall") : []));
  const results = messages.filter((m) => m.role === "toolResult");

  for (const compaction of [true, false]) {
    const updates = replay(entries, compaction, s.cwd);
    assert.equal(ofKind(updates, "user_message_chunk").length, userMessages.length);
    assert.equal(ofKind(updates, "tool_call").length, toolCalls.length);
    assert.equal(ofKind(updates, "tool_call_update").length, results.length);
    const answered = new Set(results.map((r) => r.role === "toolResult" && r.toolCallId));
    assert.equal(ofKind(updates, "tool_call").filter((c) => c.status === "failed" && JSON.stringify(c.content ?? []).includes("No result")).length, toolCalls.filter((c) => !answered.has(c.id)).length);
    const diffs = ofKind(updates, "tool_call_update").flatMap((u) => (u.content ?? []).filter((c) => c.type === "diff"));
    assert.ok(diffs.length > 0 && diffs.every((d) => d.type === "diff" && isAbsolute(d.path)), "edits and writes show diffs at absolute paths");
    assert.ok(diffs.some((d) => d.type === "diff" && d.path.startsWith(`${s.cwd}/`)), "relative paths resolved against the session's cwd");
    assert.match(chunkText(updates, "user_message_chunk"), /read packages\/coding-agent\/docs\/theme\.md in full/);
  }
});
