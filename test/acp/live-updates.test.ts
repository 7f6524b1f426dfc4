// pith's session events as ACP updates, live: a run (thinking, text, a read, an edit with its
// diff, a failing bash), usage, compaction with and without the client's compaction capability
// (completed, failed, aborted), skipped compactions and retries as notices or notes. The events
// are checked against pith's own wire schema, the updates against the SDK's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EventLine } from "../../protocol/events.js";
import { clientFeatures } from "../../src/acp/content.js";
import { createLiveContext, updatesForEvent, type LiveContext } from "../../src/acp/live-updates.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/messages/types.js";
import { assistant, call, user } from "../support/messages.js";
import { assertValidUpdates, chunkText, ofKind } from "../support/acp-schema.js";
import type { SessionUpdate } from "@agentclientprotocol/sdk";

const cwd = "/home/u/project";
type Fields<T extends EventLine["type"]> = Omit<Extract<EventLine, { type: T }>, "type" | "sessionId" | "seq">;

/** A session's event stream: numbered, checked against the wire schema, mapped. */
function stream(ctx: LiveContext) {
  let seq = 0;
  const all: SessionUpdate[] = [];
  return {
    all,
    send<T extends EventLine["type"]>(type: T, fields: Fields<T>): SessionUpdate[] {
      const event = EventLine.parse({ type, sessionId: "s1", seq: ++seq, ...fields });
      const updates = assertValidUpdates(updatesForEvent(event, ctx), `${type}#${seq}`);
      all.push(...updates);
      return updates;
    },
  };
}

function toolResult(toolCallId: string, toolName: string, text: string, isError = false, details?: unknown): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], details, isError, timestamp: 1 };
}

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

test("a run: thinking and text stream as chunks of one message, tool calls from start to result", () => {
  const s = stream(createLiveContext({ cwd }));
  const runId = "r1";
  assert.deepEqual(s.send("agent_start", { runId }), []);
  assert.deepEqual(s.send("turn_start", { runId, turn: 1 }), []);
  const prompt = user("fix the test");
  assert.deepEqual(s.send("message_start", { runId, message: prompt }), [], "the prompt is not echoed: the client sent it");
  assert.deepEqual(s.send("message_end", { runId, message: prompt, entryId: "e1" }), []);

  const reply: AssistantMessage = { ...assistant("I'll look.", [call("c1", "read", { path: "src/x.ts", offset: 10, limit: 5 })]), content: [] };
  s.send("message_start", { runId, message: reply });
  const thought = s.send("message_update", { runId, delta: { type: "thinking", contentIndex: 0, text: "Where is it" } });
  assert.deepEqual(thought.map((u) => u.sessionUpdate), ["agent_thought_chunk"]);
  s.send("message_update", { runId, delta: { type: "thinking", contentIndex: 0, text: "?" } });
  s.send("message_update", { runId, delta: { type: "text", contentIndex: 1, text: "I'll " } });
  s.send("message_update", { runId, delta: { type: "text", contentIndex: 1, text: "look." } });
  assert.deepEqual(s.send("message_update", { runId, delta: { type: "toolcall_start", contentIndex: 2, toolCallId: "c1", toolName: "read" } }), []);
  assert.deepEqual(s.send("message_update", { runId, delta: { type: "toolcall_delta", contentIndex: 2, text: '{"path":' } }), []);
  const full: AssistantMessage = { ...reply, content: [{ type: "thinking", thinking: "Where is it?" }, { type: "text", text: "I'll look." }, call("c1", "read", { path: "src/x.ts", offset: 10, limit: 5 })] };
  assert.deepEqual(s.send("message_end", { runId, message: full, entryId: "e2" }), [], "everything was streamed already");
  assert.equal(chunkText(s.all, "agent_thought_chunk"), "Where is it?");
  assert.equal(chunkText(s.all, "agent_message_chunk"), "I'll look.");
  const ids = new Set(s.all.map((u) => (u as { messageId?: string }).messageId));
  assert.equal(ids.size, 1, "one message, one messageId");

  const readStart = s.send("tool_execution_start", { runId, toolCallId: "c1", toolName: "read", args: { path: "src/x.ts", offset: 10, limit: 5 } });
  assert.deepEqual(readStart, [
    { sessionUpdate: "tool_call", toolCallId: "c1", title: "Read src/x.ts (lines 10-14)", kind: "read", status: "pending", rawInput: { path: "src/x.ts", offset: 10, limit: 5 }, name: "read", locations: [{ path: `${cwd}/src/x.ts`, line: 10 }] },
    { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" },
  ]);
  const readEnd = s.send("tool_execution_end", { runId, toolCallId: "c1", toolName: "read", result: toolResult("c1", "read", "10\tconst x = 1;"), isError: false, entryId: "e3" });
  assert.deepEqual(readEnd, [{ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", content: [{ type: "content", content: { type: "text", text: "```\n10\tconst x = 1;\n```" } }] }]);

  const editArgs = { path: "src/x.ts", oldText: "const x = 1;", newText: "const x = 2;" };
  const [editCall] = s.send("tool_execution_start", { runId, toolCallId: "c2", toolName: "edit", args: editArgs });
  assert.equal(editCall.sessionUpdate === "tool_call" && editCall.kind, "edit");
  const diff = { type: "diff", path: `${cwd}/src/x.ts`, oldText: "const x = 1;", newText: "const x = 2;" };
  assert.deepEqual(editCall.sessionUpdate === "tool_call" && editCall.content, [diff], "the proposed change, before it runs");
  const [editEnd] = s.send("tool_execution_end", { runId, toolCallId: "c2", toolName: "edit", result: toolResult("c2", "edit", "Edited src/x.ts", false, { diff: "@@", firstChangedLine: 10 }), isError: false, entryId: "e4" });
  assert.ok(editEnd.sessionUpdate === "tool_call_update");
  assert.equal(editEnd.status, "completed");
  assert.deepEqual(editEnd.content?.[0], diff, "the diff, from the arguments kept since the start");
  assert.deepEqual(editEnd.locations, [{ path: `${cwd}/src/x.ts`, line: 10 }]);

  const [bashCall] = s.send("tool_execution_start", { runId, toolCallId: "c3", toolName: "bash", args: { command: "npm test" } });
  assert.ok(bashCall.sessionUpdate === "tool_call");
  assert.equal(bashCall.title, "Run `npm test`");
  assert.equal(bashCall.kind, "execute");
  const [progress] = s.send("tool_execution_update", { runId, toolCallId: "c3", toolName: "bash", partial: { content: [{ type: "text", text: "running 3 tests" }] } });
  assert.deepEqual(progress, { sessionUpdate: "tool_call_update", toolCallId: "c3", status: "in_progress", content: [{ type: "content", content: { type: "text", text: "```\nrunning 3 tests\n```" } }] });
  const [bashEnd] = s.send("tool_execution_end", { runId, toolCallId: "c3", toolName: "bash", result: toolResult("c3", "bash", "1 failing\n\nCommand failed with exit code 1", true), isError: true, entryId: "e5" });
  assert.ok(bashEnd.sessionUpdate === "tool_call_update");
  assert.equal(bashEnd.status, "failed");
  assert.match(JSON.stringify(bashEnd.content), /1 failing/);

  assert.deepEqual(s.send("turn_end", { runId, turn: 1, message: full, usage }), []);
  const second: AssistantMessage = { ...assistant("Fixed."), content: [] };
  s.send("message_start", { runId, message: second });
  const [text2] = s.send("message_update", { runId, delta: { type: "text", contentIndex: 0, text: "Fixed." } });
  assert.notEqual((text2 as { messageId?: string }).messageId, [...ids][0], "the next reply is a new message");
  s.send("message_end", { runId, message: { ...second, content: [{ type: "text", text: "Fixed." }] }, entryId: "e6" });
  assert.deepEqual(s.send("usage_update", { contextTokens: 41200.6, contextWindow: 200000, threshold: 183616 }), [{ sessionUpdate: "usage_update", used: 41201, size: 200000 }]);
  assert.deepEqual(s.send("agent_end", { runId, stopReason: "stop", usage }), []);
  assert.deepEqual(
    s.all.map((u) => u.sessionUpdate),
    [
      ...["agent_thought_chunk", "agent_thought_chunk", "agent_message_chunk", "agent_message_chunk"],
      ...["tool_call", "tool_call_update", "tool_call_update"],
      ...["tool_call", "tool_call_update", "tool_call_update"],
      ...["tool_call", "tool_call_update", "tool_call_update", "tool_call_update"],
      ...["agent_message_chunk", "usage_update"],
    ],
  );
});

test("a call that waits for permission stays pending; a second text block starts a paragraph; missed text is sent at the end", () => {
  const s = stream(createLiveContext({ cwd, awaitsPermission: (name) => name === "write" }));
  const runId = "r2";
  const started = s.send("tool_execution_start", { runId, toolCallId: "w1", toolName: "write", args: { path: "a.txt", content: "hi" } });
  assert.deepEqual(started.map((u) => [u.sessionUpdate, (u as { status?: string }).status]), [["tool_call", "pending"]]);

  const reply: AssistantMessage = { ...assistant(""), content: [] };
  s.send("message_start", { runId, message: reply });
  s.send("message_update", { runId, delta: { type: "text", contentIndex: 0, text: "One." } });
  const [second] = s.send("message_update", { runId, delta: { type: "text", contentIndex: 2, text: "Two" } });
  assert.equal(second.sessionUpdate === "agent_message_chunk" && second.content.type === "text" && second.content.text, "\n\nTwo");
  const end = s.send("message_end", { runId, message: { ...reply, content: [{ type: "text", text: "One." }, { type: "thinking", thinking: "unstreamed" }, { type: "text", text: "Two, three." }] } });
  assert.deepEqual(
    end.map((u) => [u.sessionUpdate, u.sessionUpdate === "agent_thought_chunk" || u.sessionUpdate === "agent_message_chunk" ? (u.content as { text: string }).text : ""]),
    [
      ["agent_thought_chunk", "unstreamed"],
      ["agent_message_chunk", ", three."],
    ],
  );
});

test("a result whose start this client never saw is announced finished", () => {
  const s = stream(createLiveContext({ cwd }));
  const [u] = s.send("tool_execution_end", { runId: "r", toolCallId: "z", toolName: "ls", result: toolResult("z", "ls", "a\nb"), isError: false, entryId: "e" });
  assert.ok(u.sessionUpdate === "tool_call");
  assert.equal(u.status, "completed");
  assert.equal(u.title, "List .");
  assert.equal(u.content?.length, 1);
});

const result = { summary: "## Goal\nShip it.", firstKeptEntryId: "e9", tokensBefore: 41200, tokensAfter: 9800, details: { readFiles: [], modifiedFiles: [] } };

test("compaction with the client's capability: an entity created, streamed, finished", () => {
  const s = stream(createLiveContext({ cwd, compaction: true }));
  assert.deepEqual(s.send("compaction_update", { compactionId: "p1", reason: "prepare", phase: "summarizing", delta: "ahead of time" }), [], "a summary written ahead of time is not shown");
  assert.deepEqual(s.send("compaction_start", { reason: "threshold", tokensBefore: 41200, compactionId: "k1" }), [{ sessionUpdate: "compaction_update", compactionId: "k1", status: "in_progress" }]);
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "summarizing" }), []);
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "chunk", chunk: { index: 1, count: 2 } }), []);
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "summarizing", delta: "## Goal" }), [
    { sessionUpdate: "compaction_summary_chunk", compactionId: "k1", content: { type: "text", text: "## Goal" } },
  ]);
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "chunk", chunk: { index: 2, count: 2 } }), [
    { sessionUpdate: "compaction_update", compactionId: "k1", status: "in_progress", summary: [] },
  ], "the next request rewrites the summary: what was shown is cleared");
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "applying" }), []);
  assert.deepEqual(s.send("compaction_end", { reason: "threshold", compactionId: "k1", result, aborted: false, willRetry: false }), [
    { sessionUpdate: "compaction_update", compactionId: "k1", status: "completed", summary: [{ type: "text", text: "## Goal\nShip it." }] },
  ]);

  s.send("compaction_start", { reason: "manual", tokensBefore: 1000, compactionId: "k2" });
  assert.deepEqual(s.send("compaction_end", { reason: "manual", compactionId: "k2", aborted: false, willRetry: false, error: "summarizer unreachable" }), [
    { sessionUpdate: "compaction_update", compactionId: "k2", status: "failed", error: "summarizer unreachable" },
  ]);
  s.send("compaction_start", { reason: "manual", tokensBefore: 1000, compactionId: "k3" });
  assert.deepEqual(s.send("compaction_end", { reason: "manual", compactionId: "k3", aborted: true, willRetry: false }), [{ sessionUpdate: "compaction_update", compactionId: "k3", status: "cancelled" }]);

  // an older stream: no ids on start and end; the end finds the start's
  const [started] = s.send("compaction_start", { reason: "overflow", tokensBefore: 5000 });
  const id = started.sessionUpdate === "compaction_update" ? started.compactionId : "";
  assert.match(id, /\S/);
  const [ended] = s.send("compaction_end", { reason: "overflow", result, aborted: false, willRetry: true });
  assert.equal(ended.sessionUpdate === "compaction_update" && ended.compactionId, id);
});

test("compaction with the capability, summarized by the fallback: completed, and the user is told", () => {
  const withNotices = stream(createLiveContext({ cwd, compaction: true, notices: true }));
  withNotices.send("compaction_start", { reason: "threshold", tokensBefore: 41200, compactionId: "k" });
  const ended = withNotices.send("compaction_end", { reason: "threshold", compactionId: "k", result: { ...result, fallback: { reason: "rate limited" } }, fallback: { reason: "rate limited" }, aborted: false, willRetry: false });
  assert.deepEqual(ended.map((u) => u.sessionUpdate), ["compaction_update", "notice"]);
  assert.match(JSON.stringify(ended[1]), /rate limited/);
});

test("compaction without the capability: one line when it is over, nothing when aborted", () => {
  const s = stream(createLiveContext({ cwd }));
  assert.deepEqual(s.send("compaction_start", { reason: "threshold", tokensBefore: 41200, compactionId: "k1" }), []);
  assert.deepEqual(s.send("compaction_update", { compactionId: "k1", reason: "threshold", phase: "summarizing", delta: "## Goal" }), []);
  const done = s.send("compaction_end", { reason: "threshold", compactionId: "k1", result, aborted: false, willRetry: false });
  assert.equal(done.length, 1);
  assert.equal(chunkText(done, "agent_message_chunk").trim(), "Context compacted: 41,200 → 9,800 tokens.");
  assert.equal(ofKind(done, "agent_message_chunk")[0].messageId, "k1:note", "a message of its own");

  s.send("compaction_start", { reason: "manual", tokensBefore: 1000, compactionId: "k2" });
  const failed = s.send("compaction_end", { reason: "manual", compactionId: "k2", aborted: false, willRetry: false, error: "boom" });
  assert.equal(chunkText(failed, "agent_message_chunk").trim(), "Compaction failed: boom");

  s.send("compaction_start", { reason: "manual", tokensBefore: 1000, compactionId: "k3" });
  assert.deepEqual(s.send("compaction_end", { reason: "manual", compactionId: "k3", aborted: true, willRetry: false }), []);

  const fallback = s.send("compaction_end", { reason: "overflow", compactionId: "k4", result, fallback: { reason: "overloaded" }, aborted: false, willRetry: true });
  assert.match(chunkText(fallback, "agent_message_chunk"), /41,200 → 9,800 tokens\. The summarizer failed \(overloaded\).*Retrying the request\./);
});

test("a skipped automatic compaction: a notice when the client shows them, else nothing; a retry: a notice, else a note; a cut prompt with compaction off: a warning; other errors nothing", () => {
  const noticed = stream(createLiveContext({ cwd, notices: true }));
  const skip = { reason: "threshold", code: "too_little_gain", tokensBefore: 6737, message: "It would free too little." } as const;
  const [skipped] = noticed.send("compaction_skipped", skip);
  assert.deepEqual(skipped, { sessionUpdate: "notice", severity: "info", title: "Automatic compaction skipped", description: "It would free too little." });
  assert.deepEqual(noticed.send("error", { code: -32017, message: "It would free too little.", data: { reason: "threshold" } }), [], "-32017 is no longer an error event");
  const cutData = { class: "overflow", truncated: true, retryable: false, contextTokens: 9000, contextWindow: 2048 };
  const [cut] = noticed.send("error", { code: -32021, message: "the context is full", data: cutData });
  assert.deepEqual(cut, { sessionUpdate: "notice", severity: "warning", title: "The context is full", description: "the context is full" });
  assert.deepEqual(noticed.send("error", { code: -32021, message: "the context is full", data: { ...cutData, truncated: undefined } }), [], "a run that ends on it answers the prompt with the error");
  const [retry] = noticed.send("retry_start", { attempt: 2, maxAttempts: 3, delayMs: 1500, error: { message: "overloaded", errorClass: "transient", status: 529 } });
  assert.deepEqual(retry, { sessionUpdate: "notice", severity: "warning", title: "Retrying the model call in 1.5 s (attempt 2 of 3)", description: "overloaded" });
  assert.deepEqual(noticed.send("error", { code: -32014, message: "run failed" }), []);
  assert.deepEqual(noticed.send("retry_end", { attempt: 2, aborted: false }), []);

  const plain = stream(createLiveContext({ cwd }));
  assert.deepEqual(plain.send("compaction_skipped", skip), [], "no note in the conversation for a compaction that did not happen");
  const [retryNote] = plain.send("retry_start", { attempt: 2, maxAttempts: 5, delayMs: 4000, error: { message: "overloaded" } });
  assert.equal(chunkText([retryNote], "agent_message_chunk").trim(), "Retrying the model call in 4 s (attempt 2 of 5): overloaded");
});

test("events with no ACP counterpart produce nothing", () => {
  const s = stream(createLiveContext({ cwd, compaction: true, notices: true }));
  assert.deepEqual(s.send("branch_summary_start", { targetId: "a", fromId: "b" }), []);
  assert.deepEqual(s.send("branch_summary_end", { aborted: false, entryId: "c", summary: "x" }), []);
  const bash = { role: "bashExecution" as const, command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false, timestamp: 1 };
  assert.deepEqual(s.send("message_start", { message: bash }), []);
  assert.deepEqual(s.send("message_end", { message: bash, entryId: "d" }), []);
});

test("the client's features: `{}` advertises, omitted or null does not", () => {
  assert.deepEqual(clientFeatures({ session: { compaction: {}, notices: null } }), { compaction: true, notices: false });
  assert.deepEqual(clientFeatures({ session: { notices: {} } }), { compaction: false, notices: true });
  assert.deepEqual(clientFeatures({ fs: { readTextFile: true } }), { compaction: false, notices: false });
  assert.deepEqual(clientFeatures(undefined), { compaction: false, notices: false });
});

test("queued prompts: prompts_dropped and a run started with what the last one left (queuedFrom) send no update (an ACP prompt is never queued)", () => {
  const s = stream(createLiveContext({ cwd, notices: true }));
  assert.deepEqual(s.send("prompts_dropped", { runId: "r1", reason: "aborted", prompts: [{ delivery: "steer", text: "also this", timestamp: 1 }] }), []);
  assert.deepEqual(s.send("agent_start", { runId: "r2", queuedFrom: "r1" }), []);
});
