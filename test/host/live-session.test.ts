// The session host's policy with the offline provider: events in order, threshold compaction
// inside the run, busy rules, manual compaction, tree moves, retries, the error event.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ErrorCode, HostError } from "../../src/host/host-error.js";
import type { SessionEvent } from "../../src/host/live/event-buffer.js";
import { SessionHost } from "../../src/host/session-host.js";
import { NOTES_FILES, NOTES_SCRIPT } from "../support/notes-script.js";
import type { Script } from "../../src/llm/scripted.js";
import { createLogger } from "../../src/log/logger.js";
import { SessionFile } from "../../src/session/index.js";
import { orphans } from "../support/sessions.js";
import { tempDir } from "../support/tmp.js";
import { gated } from "../support/gated.js";
import type { ServerRequestName, ServerRequestParams } from "../../protocol/index.js";
import type { QuestionClient } from "../../src/host/ports.js";

/** The event, checked to be of this type (and typed as one). */
function only<T extends SessionEvent["type"]>(e: SessionEvent | undefined, type: T): Extract<SessionEvent, { type: T }> {
  assert.equal(e?.type, type);
  return e as Extract<SessionEvent, { type: T }>;
}

function host(t: Parameters<typeof tempDir>[0], script: Script = NOTES_SCRIPT) {
  const home = tempDir(t, "pith-host-home-");
  const h = new SessionHost({ sessionsDir: join(home, "sessions"), logger: createLogger("silent"), script, env: { PITH_HOME: home }, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 } });
  t.after(() => h.shutdown());
  const cwd = tempDir(t, "pith-host-cwd-");
  for (const [name, content] of Object.entries(NOTES_FILES)) writeFileSync(join(cwd, name), content);
  return { h, cwd };
}

/** A client following the session that answers `method`'s questions with `answer`. */
function answering(h: SessionHost, sessionId: string, method: ServerRequestName, answer: (params: Record<string, unknown>) => unknown): QuestionClient {
  const client: QuestionClient = { answers: (m) => m === method, ask: async (_m, params) => answer(params as Record<string, unknown>) };
  h.questions.join(sessionId, client);
  return client;
}

async function expectHostError(p: Promise<unknown> | (() => unknown), code: number): Promise<void> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    assert.ok(err instanceof HostError, String(err));
    assert.equal(err.code, code, err.message);
    return;
  }
  assert.fail(`expected error ${code}`);
}

test("the demo run: tools, then an automatic compaction inside the run, agent_end last", async (t) => {
  const { h, cwd } = host(t);
  const s = await h.create({ cwd });
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  const { runId } = await gated(s).prompt({ text: "Tidy up the notes" });
  assert.ok(s.isRunning);
  await expectHostError(gated(s).prompt({ text: "again" }), ErrorCode.SessionBusy);
  await expectHostError(gated(s).compact(), ErrorCode.SessionBusy);
  await s.idle();
  const types = events.map((e) => e.type);
  assert.equal(types[0], "agent_start");
  assert.equal(types.at(-1), "agent_end");
  assert.ok(events.every((e, i) => e.seq === (events[0].seq as number) + i), "seq increases by one");
  const start = types.indexOf("compaction_start");
  const end = types.indexOf("compaction_end");
  assert.ok(start > 0 && end > start && end < types.length - 1, `compaction inside the run: ${types.join(",")}`);
  const compactionEnd = only(events[end], "compaction_end");
  assert.equal(compactionEnd.reason, "threshold");
  assert.equal(compactionEnd.aborted, false);
  // the offline model writes real notes: no fallback, the summary tells the goal, the work and the files
  assert.equal(compactionEnd.fallback, undefined, JSON.stringify(compactionEnd.fallback));
  const result = compactionEnd.result as { summary: string; details?: Record<string, unknown> };
  assert.equal(result.details?.fallback, undefined);
  assert.match(result.summary, /## Goal\n- Tidy up the notes/);
  assert.match(result.summary, /### Done\n- \[x\] read notes\.md\n- \[x\] edited notes\.md/);
  assert.match(result.summary, /file: notes\.md/);
  const agentEnd = only(events.at(-1), "agent_end");
  assert.equal(agentEnd.runId, runId);
  assert.equal(agentEnd.stopReason, "stop");
  const state = s.getState();
  assert.equal(state.isRunning, false);
  assert.ok(state.contextTokens < state.contextWindow - 16384, `after compaction: ${state.contextTokens}`);
  const msgs = s.getMessages().messages;
  assert.equal(msgs[0].role, "compactionSummary");
  assert.deepEqual(orphans(msgs.slice(1)), []);

  // the second prompt carries on after the compaction
  events.length = 0;
  await gated(s).prompt({ text: "Check again" });
  await s.idle();
  assert.equal(events.at(-1)!.type, "agent_end");
  assert.equal(only(events.at(-1), "agent_end").stopReason, "stop");
});

test("manual compaction with instructions; nothing to compact is -32012", async (t) => {
  const { h, cwd } = host(t, { turns: [{ text: "short" }] });
  const s = await h.create({ cwd });
  await expectHostError(gated(s).compact(), ErrorCode.NothingToCompact);
  s.file.appendMessage({ role: "user", content: "x ".repeat(30000), timestamp: 1 });
  s.file.appendMessage({ role: "user", content: "recent ".repeat(6000), timestamp: 2 });
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  const result = await gated(s).compact("focus on x");
  assert.ok(result.tokensAfter < result.tokensBefore);
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== "compaction_update"), ["compaction_start", "compaction_end", "usage_update"]);
  assert.equal(only(events[0], "compaction_start").reason, "manual");
  assert.equal(s.getMessages().messages[0].role, "compactionSummary");
});

test("auto-compaction can be turned off, and that survives reopening", async (t) => {
  const { h, cwd } = host(t);
  const s = await h.create({ cwd });
  assert.equal(s.getState().autoCompactionEnabled, true);
  s.setAutoCompaction(false);
  const file = s.file.file;
  await h.close(s.id);
  const again = await h.open({ sessionFile: file });
  assert.equal(again.getState().autoCompactionEnabled, false);
  const events: SessionEvent[] = [];
  again.subscribe((e) => events.push(e));
  await gated(again).prompt({ text: "go" });
  await again.idle();
  assert.ok(!events.some((e) => e.type === "compaction_start"));
});

test("transient errors are retried with backoff and events; a second overflow is an error event", async (t) => {
  const { h, cwd } = host(t, {
    turns: [
      { error: { errorClass: "transient", message: "overloaded", status: 529, retryAfterMs: 20 } },
      { error: { errorClass: "transient", message: "overloaded", status: 529 } },
      { text: "third time lucky" },
      { error: { errorClass: "auth", message: "bad key", status: 401 } },
    ],
  });
  const s = await h.create({ cwd });
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  await gated(s).prompt({ text: "hi" });
  await s.idle();
  const retries = events.filter((e) => e.type === "retry_start");
  assert.deepEqual(retries.map((e) => [e.attempt, e.delayMs]), [[1, 20], [2, 20]]);
  assert.equal(only(events.at(-1), "agent_end").stopReason, "stop");
  assert.deepEqual(s.getMessages().messages.map((m) => m.role), ["user", "assistant"]);

  events.length = 0;
  await gated(s).prompt({ text: "again" });
  await s.idle();
  const error = events.find((e) => e.type === "error")!;
  assert.equal(error.code, ErrorCode.ProviderError);
  assert.deepEqual(error.data, { class: "auth", status: 401, retryable: false });
  assert.equal(events.at(-1)!.type, "agent_end");
  assert.equal(only(events.at(-1), "agent_end").stopReason, "error");
});

test("navigateTree: a user message goes back to the editor; summarize writes a branch summary", async (t) => {
  const { h, cwd } = host(t, { turns: [{ text: "one" }, { text: "two" }], loop: true });
  const s = await h.create({ cwd });
  await gated(s).prompt({ text: "first question" });
  await s.idle();
  await gated(s).prompt({ text: "second question" });
  await s.idle();
  const [u1, a1, u2] = s.getMessages().messages.length ? s.file.branchPath() : [];
  const back = await gated(s).navigateTree(u2.id);
  assert.equal(back.leafId, a1.id);
  assert.equal(back.editorText, "second question");
  await expectHostError(gated(s).navigateTree("nope"), ErrorCode.EntryNotFound);

  await gated(s).prompt({ text: "another way" });
  await s.idle();
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  const moved = await gated(s).navigateTree(a1.id, true);
  assert.ok(moved.branchSummaryEntryId);
  assert.equal(moved.leafId, moved.branchSummaryEntryId);
  assert.deepEqual(events.map((e) => e.type), ["branch_summary_start", "branch_summary_end"]);
  assert.equal(s.getMessages().messages.at(-1)!.role, "branchSummary");
  assert.equal(u1.type, "message");
});

test("permission modes: readonly refuses writes; ask with no client that can answer denies", async (t) => {
  const { h, cwd } = host(t, { turns: [{ toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }, { name: "read", arguments: { path: "notes.md" } }] }, { text: "ok" }] });
  const s = await h.create({ cwd });
  s.setPermissionMode("readonly");
  await gated(s).prompt({ text: "write" });
  await s.idle();
  const results = s.getMessages().messages.filter((m) => m.role === "toolResult");
  assert.equal(results[0].role === "toolResult" && results[0].isError, true);
  assert.match(JSON.stringify(results[0]), /read-only/);
  assert.equal(results[1].role === "toolResult" && results[1].isError, false);
});

test("ask mode asks only before the tools that change things or run commands: read, ls, grep and find run unasked", async (t) => {
  const calls = [
    { name: "read", arguments: { path: "notes.md" } },
    { name: "ls", arguments: {} },
    { name: "grep", arguments: { pattern: "x" } },
    { name: "find", arguments: { pattern: "*.md" } },
    { name: "write", arguments: { path: "x.txt", content: "x" } },
    { name: "edit", arguments: { path: "notes.md", oldText: "a", newText: "b" } },
    { name: "bash", arguments: { command: "echo hi" } },
  ];
  const { h, cwd } = host(t, { turns: [{ toolCalls: calls }, { text: "ok" }] });
  const asked: string[] = [];
  const s = await h.create({ cwd });
  answering(h, s.id, "requestPermission", (p) => (asked.push(p.toolName as string), { outcome: "deny" }));
  s.setPermissionMode("ask");
  await gated(s).prompt({ text: "look, then change" });
  await s.idle();
  assert.deepEqual(asked, ["write", "edit", "bash"]);
  const results = s.getMessages().messages.filter((m) => m.role === "toolResult");
  assert.deepEqual(results.map((m) => m.role === "toolResult" && /denied/.test(JSON.stringify(m.content))), [false, false, false, false, true, true, true]);
});

test("a session is reopened from its file by id; unknown ids are -32010", async (t) => {
  const { h, cwd } = host(t);
  const s = await h.create({ cwd, name: "demo" });
  const id = s.id;
  await h.close(id);
  await expectHostError(() => h.get(id), ErrorCode.SessionNotFound);
  const again = await h.open({ sessionId: id });
  assert.equal(again.getState().name, "demo");
  await expectHostError(() => h.open({ sessionId: "0000" }), ErrorCode.SessionNotFound);
  const fork = await h.fork(id, again.file.entries()[0].id);
  assert.notEqual(fork.id, id);
  await h.delete(fork.id);
  assert.equal((await h.list()).some((x) => x.id === fork.id), false);
  assert.ok(SessionFile.open(again.file.file, { readOnly: true }).entryCount >= 1);
});

test("a client's beforeCompact hook can cancel or replace the summary; ask mode uses the permission asker", async (t) => {
  const { h, cwd } = host(t, { turns: [{ toolCalls: [{ name: "write", arguments: { path: "y.txt", content: "y" } }] }, { text: "done" }] });
  const s = await h.create({ cwd });
  s.file.appendMessage({ role: "user", content: "x ".repeat(30000), timestamp: 1 });
  s.file.appendMessage({ role: "user", content: "recent ".repeat(6000), timestamp: 2 });
  const cancelling = answering(h, s.id, "beforeCompact", () => ({ action: "cancel" }));
  await expectHostError(gated(s).compact(), ErrorCode.Aborted);
  assert.notEqual(s.getMessages().messages[0].role, "compactionSummary", "nothing stored");
  let seen: string | undefined;
  h.questions.leave(s.id, cancelling);
  answering(h, s.id, "beforeCompact", (p) => {
    const { reason, preparation: prep } = p as ServerRequestParams<"beforeCompact">;
    seen = `${reason} ${prep.instructions} ${prep.historyMessages.length}`;
    return { action: "replace", summary: "summary written by the client", details: { by: "client" } };
  });
  const result = await gated(s).compact("be short");
  assert.equal(seen, "manual be short 1");
  assert.equal(result.summary, "summary written by the client");
  const entry = s.file.entry(s.getMessages().messages.length ? s.file.buildContext().entryIds[0] : "")!;
  assert.equal(entry.type === "compaction" && entry.fromHook, true);

  const asked: string[] = [];
  answering(h, s.id, "requestPermission", (p) => (asked.push(p.toolName as string), { outcome: "deny" }));
  s.setPermissionMode("ask");
  await gated(s).prompt({ text: "write y" });
  await s.idle();
  assert.deepEqual(asked, ["write"]);
  const last = s.getMessages().messages.filter((m) => m.role === "toolResult").at(-1)!;
  assert.match(JSON.stringify(last), /denied/);
});

test("the auto-compaction setting belongs to the session: hidden from the tree, kept across tree moves and reopening", async (t) => {
  const { h, cwd } = host(t, { turns: [{ text: "one" }], loop: true });
  const s = await h.create({ cwd });
  await gated(s).prompt({ text: "first" });
  await s.idle();
  const first = s.file.branchPath()[0].id;
  const leafBefore = s.file.leafId;
  s.setAutoCompaction(false);
  assert.equal(s.file.leafId, leafBefore, "the leaf does not move");
  assert.ok(!(await s.getTree()).entries.some((e) => e.type === "custom"), "not shown in the tree");
  await gated(s).navigateTree(first);
  const file = s.file.file;
  await h.close(s.id);
  assert.equal((await h.open({ sessionFile: file })).getState().autoCompactionEnabled, false);
});

test("prompts queued for a run that is aborted do not leak into the next run", async (t) => {
  const { h, cwd } = host(t, { turns: [{ text: "x".repeat(3000), chunkSize: 5, delayMs: 2 }, { text: "second" }] });
  const s = await h.create({ cwd });
  // queued while the reply streams (a steer sent before the first model call goes into it)
  const streaming = new Promise<void>((resolve) => s.subscribe((e) => e.type === "message_update" && resolve()));
  await gated(s).prompt({ text: "long" });
  await streaming;
  await gated(s).prompt({ text: "queued steer", delivery: "steer" });
  assert.deepEqual(s.getState().pending, { steer: 1, followUp: 0 });
  s.abort();
  await s.idle();
  assert.deepEqual(s.getState().pending, { steer: 0, followUp: 0 });
  await gated(s).prompt({ text: "next" });
  await s.idle();
  const users = s.getMessages().messages.filter((m) => m.role === "user").map((m) => (m as { content: string }).content);
  assert.deepEqual(users, ["long", "next"]);
});
