// clients/ts/session-view.ts (and the transcript state inside it): realistic event sequences in,
// the state a UI draws out. Pure, so no daemon and no browser: each test feeds events the way
// the daemon sends them (sessionId, seq 1, 2, 3, ...) and checks what the view says.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentMessage, AssistantMessage, EventName, EventParams, ToolResultMessage } from "../../protocol/index.js";
import { ErrorCodes } from "../../protocol/error-codes.js";
import {
  contextMeter,
  mcpToolOrigin,
  reduceSessionView,
  sessionViewFrom,
  withAutoCompaction,
  withNotice,
  withState,
  type SessionState,
  type SessionView,
  type TranscriptItem,
} from "../../clients/ts/index.js";

const SID = "s1";
const RUN = "r1";
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function stateOf(over: Partial<SessionState> = {}): SessionState {
  return {
    sessionId: SID,
    sessionFile: "/tmp/s1.jsonl",
    cwd: "/work/demo",
    model: { id: "claude-x", contextWindow: 32_000, provider: "anthropic" },
    isRunning: false,
    isCompacting: false,
    autoCompactionEnabled: true,
    leafId: null,
    messageCount: 0,
    contextTokens: 1200,
    contextWindow: 32_000,
    threshold: 16_000,
    pending: { steer: 0, followUp: 0 },
    streamId: "stream-1",
    ...over,
  };
}

const user = (text: string, timestamp: number): AgentMessage => ({ role: "user", content: text, timestamp });
function reply(content: AssistantMessage["content"], timestamp: number, stopReason: AssistantMessage["stopReason"] = "stop", extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: "assistant", content, api: "messages", provider: "anthropic", model: "claude-x", usage, stopReason, timestamp, ...extra };
}
function toolResult(toolCallId: string, text: string, timestamp: number, isError = false): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "read", content: [{ type: "text", text }], isError, timestamp };
}

/** A view fed events the way the daemon numbers them. */
class Feed {
  seq: number;
  constructor(
    public view: SessionView,
    lastSeq = view.seq,
  ) {
    this.seq = lastSeq;
  }
  emit<E extends EventName>(type: E, params: Omit<EventParams<E>, "sessionId" | "seq">, seq = ++this.seq): SessionView {
    this.view = reduceSessionView(this.view, { type, sessionId: SID, seq, ...params } as never);
    return this.view;
  }
  /** message_start, the deltas, message_end: a whole reply as it streams (a failed attempt: willRetry, not stored) */
  stream(final: AssistantMessage, willRetry = false): void {
    this.emit("message_start", { runId: RUN, message: reply([], final.timestamp) });
    final.content.forEach((b, contentIndex) => {
      if (b.type === "text") this.emit("message_update", { runId: RUN, delta: { type: "text", contentIndex, text: b.text } });
    });
    this.emit("message_end", { runId: RUN, message: final, ...(willRetry ? { willRetry } : { entryId: `e${final.timestamp}` }) });
  }
  get items(): readonly TranscriptItem[] {
    return this.view.transcript.items;
  }
  item<T extends TranscriptItem["type"]>(type: T, nth = -1): Extract<TranscriptItem, { type: T }> {
    const of = this.items.filter((i): i is Extract<TranscriptItem, { type: T }> => i.type === type);
    const it = of.at(nth);
    assert.ok(it, `a ${type} item`);
    return it;
  }
}

test("a run: the prompt, a reply streamed with thinking, text and a tool call, the tool's output, then the answer", () => {
  const f = new Feed(sessionViewFrom(stateOf(), [], { lastSeq: 0, placeholder: "No messages yet." }));
  assert.equal(f.view.transcript.placeholder, "No messages yet.");
  assert.equal(f.items.length, 0);

  f.emit("agent_start", { runId: RUN });
  f.emit("turn_start", { runId: RUN, turn: 1 });
  assert.equal(f.view.running, true);
  assert.equal(f.view.turn, 1);
  const prompt = user("Tidy up notes.md", 1000);
  f.emit("message_start", { runId: RUN, message: prompt });
  f.emit("message_end", { runId: RUN, message: prompt, entryId: "e1" });

  f.emit("message_start", { runId: RUN, message: reply([], 1001) });
  const deltas: EventParams<"message_update">["delta"][] = [
    { type: "thinking", contentIndex: 0, text: "Let me " },
    { type: "thinking", contentIndex: 0, text: "look." },
    { type: "text", contentIndex: 1, text: "I'll read " },
    { type: "text", contentIndex: 1, text: "the notes first." },
    { type: "toolcall_start", contentIndex: 2, toolCallId: "tc1", toolName: "read" },
    { type: "toolcall_delta", contentIndex: 2, text: '{"path":' },
  ];
  f.emit("message_update", { runId: RUN, delta: deltas[0] });
  f.emit("message_update", { runId: RUN, delta: deltas[1] });
  f.emit("message_update", { runId: RUN, delta: deltas[2] });
  // what was handed out is never changed by later events (the next delta extends this text block)
  const midRun = f.view;
  const midRunCopy = structuredClone(midRun);
  for (const delta of deltas.slice(3)) f.emit("message_update", { runId: RUN, delta });
  const streaming = f.item("assistant");
  assert.equal(streaming.status, "streaming");
  assert.deepEqual(streaming.message.content, [
    { type: "thinking", thinking: "Let me look." },
    { type: "text", text: "I'll read the notes first." },
    { type: "toolCall", id: "tc1", name: "read", arguments: {} },
  ]);
  assert.deepEqual(f.view.transcript.tools.get("tc1"), { id: "tc1", name: "read", status: "streaming", rawArgs: '{"path":' }, "the arguments' JSON so far");

  f.emit("message_update", { runId: RUN, delta: { type: "toolcall_delta", contentIndex: 2, text: '"notes.md"}' } });
  f.emit("message_update", { runId: RUN, delta: { type: "toolcall_end", contentIndex: 2, toolCallId: "tc1", toolName: "read" } });
  assert.deepEqual(f.view.transcript.tools.get("tc1"), { id: "tc1", name: "read", status: "pending", args: { path: "notes.md" } }, "arguments parsed once whole");

  const first = reply([{ type: "thinking", thinking: "Let me look." }, { type: "text", text: "I'll read the notes first." }, { type: "toolCall", id: "tc1", name: "read", arguments: { path: "notes.md" } }], 1001, "toolUse");
  f.emit("message_end", { runId: RUN, message: first, entryId: "e2" });
  assert.equal(f.item("assistant").status, "done");
  assert.equal(f.item("assistant").message, first, "the reply is message_end's message");
  assert.equal(f.view.transcript.streaming, undefined);

  f.emit("tool_execution_start", { runId: RUN, toolCallId: "tc1", toolName: "read", args: { path: "notes.md" } });
  assert.equal(f.view.transcript.tools.get("tc1")?.status, "running");
  f.emit("tool_execution_update", { runId: RUN, toolCallId: "tc1", toolName: "read", partial: { content: [{ type: "text", text: "# pith" }] } });
  assert.deepEqual(f.view.transcript.tools.get("tc1")?.partial, [{ type: "text", text: "# pith" }]);
  const result = toolResult("tc1", "# pith notes\n", 1002);
  f.emit("tool_execution_end", { runId: RUN, toolCallId: "tc1", toolName: "read", result, isError: false, entryId: "e3" });
  assert.equal(f.view.transcript.tools.get("tc1")?.status, "done");
  assert.equal(f.view.transcript.tools.get("tc1")?.result, result);
  // the tool result also comes as a message: shown already (with its call), not again
  const itemsBefore = f.items;
  const toolsBefore = f.view.transcript.tools;
  f.emit("message_start", { runId: RUN, message: result });
  f.emit("message_end", { runId: RUN, message: result, entryId: "e3" });
  assert.equal(f.items, itemsBefore, "no item for the tool result message");
  assert.equal(f.view.transcript.tools, toolsBefore, "nor anything to redraw");
  // a replayed tool_execution_start does not take a finished call back to running
  f.emit("tool_execution_start", { runId: RUN, toolCallId: "tc1", toolName: "read", args: { path: "notes.md" } });
  assert.equal(f.view.transcript.tools.get("tc1")?.status, "done");

  f.emit("turn_end", { runId: RUN, turn: 1, message: first, usage });
  f.emit("turn_start", { runId: RUN, turn: 2 });
  assert.equal(f.view.turn, 2);
  f.stream(reply([{ type: "text", text: "Done: notes.md is tidy." }], 1003));
  f.emit("usage_update", { contextTokens: 17_020, contextWindow: 32_000, threshold: 16_000 });
  f.emit("agent_end", { runId: RUN, stopReason: "stop", usage });

  assert.equal(f.view.running, false);
  assert.equal(f.view.turn, 0);
  assert.deepEqual(f.view.context, { tokens: 17_020, window: 32_000, threshold: 16_000 });
  assert.deepEqual(
    f.items.map((i) => (i.type === "message" ? `message:${i.message.role}` : i.type === "assistant" ? `assistant:${i.status}` : i.type)),
    ["message:user", "assistant:done", "assistant:done"],
    "a run that simply stopped leaves no outcome note",
  );
  assert.deepEqual(f.item("assistant").message.content, [{ type: "text", text: "Done: notes.md is tidy." }]);
  assert.deepEqual(midRun, midRunCopy, "an earlier view is left as it was");
  assert.equal(f.view.seq, f.seq);
});

test("a compaction: the summary as it is written (chunks start it over), applying, then the result", () => {
  const history = [user("Tidy up notes.md", 1000), reply([{ type: "text", text: "Done." }], 1001)];
  const f = new Feed(sessionViewFrom(stateOf({ contextTokens: 17_020 }), history, { lastSeq: 40 }));
  assert.equal(f.items.length, 2);
  f.emit("compaction_start", { reason: "threshold", tokensBefore: 17_020, compactionId: "c1" });
  assert.equal(f.view.compacting, true);
  const c = (u: Omit<EventParams<"compaction_update">, "sessionId" | "seq" | "compactionId" | "reason">) => f.emit("compaction_update", { compactionId: "c1", reason: "threshold", ...u });
  c({ phase: "summarizing" });
  c({ phase: "chunk", chunk: { index: 1, count: 2 } });
  c({ phase: "summarizing", delta: "## Goal\n" });
  c({ phase: "summarizing", delta: "- tidy" });
  assert.equal(f.item("compaction").live, "## Goal\n- tidy");
  c({ phase: "chunk", chunk: { index: 2, count: 2 } });
  c({ phase: "summarizing", delta: "## Goal\n- tidy notes.md" });
  let marker = f.item("compaction");
  assert.equal(marker.state, "running");
  assert.equal(marker.live, "## Goal\n- tidy notes.md", "the second chunk rewrote the summary: only its text shows");
  assert.equal(marker.applying, false);
  c({ phase: "applying" });
  assert.equal(f.item("compaction").applying, true);
  // updates for another compaction do not touch this marker
  f.emit("compaction_update", { compactionId: "other", reason: "prepare", phase: "summarizing", delta: "unrelated" });
  assert.equal(f.item("compaction").live, "## Goal\n- tidy notes.md");

  const result = { summary: "## Goal\n- tidy notes.md", firstKeptEntryId: "e9", tokensBefore: 17_020, tokensAfter: 4_100, details: { readFiles: ["notes.md"], modifiedFiles: ["notes.md"] } };
  f.emit("compaction_end", { reason: "threshold", compactionId: "c1", result, aborted: false, willRetry: false });
  f.emit("usage_update", { contextTokens: 4_100, contextWindow: 32_000, threshold: 16_000 });
  marker = f.item("compaction");
  assert.equal(f.view.compacting, false);
  assert.equal(marker.state, "done");
  assert.equal(marker.result, result);
  assert.equal(marker.tokensBefore, 17_020);
  assert.equal(f.items.filter((i) => i.type === "compaction").length, 1, "the running marker became the result, not a second marker");
  assert.equal(f.items.at(-1), marker, "in the place the running marker had");
  assert.equal(f.view.transcript.liveSummaries.has("c1"), false, "its text is dropped");
  assert.equal(f.view.transcript.compactionItem, undefined);
  assert.equal(f.view.context.tokens, 4_100);
});

test("a summary written ahead of time: the view says so, and its compaction's marker shows all of it", () => {
  const f = new Feed(sessionViewFrom(stateOf({ contextTokens: 15_000 }), [], { lastSeq: 3 }));
  assert.equal(f.view.prepared, null);
  const p = (u: Omit<EventParams<"compaction_update">, "sessionId" | "seq" | "compactionId" | "reason">) => f.emit("compaction_update", { compactionId: "p1", reason: "prepare", ...u });
  p({ phase: "summarizing" });
  assert.equal(f.view.prepared, "summarizing");
  p({ phase: "chunk", chunk: { index: 1, count: 1 } });
  p({ phase: "summarizing", delta: "SUMMARY-AHEAD: " });
  p({ phase: "summarizing", delta: "ready before it is needed." });
  p({ phase: "ready" });
  assert.equal(f.view.prepared, "ready");
  assert.equal(f.items.length, 0, "nothing is shown in the transcript before the trigger");
  f.emit("compaction_start", { reason: "threshold", tokensBefore: 23_000, compactionId: "p1", prepared: true });
  assert.equal(f.view.prepared, null, "applied: nothing is waiting any more");
  assert.equal(f.item("compaction").live, "SUMMARY-AHEAD: ready before it is needed.");
  assert.equal(f.item("compaction").prepared, true);

  // one that is thrown away (the tree moved) is forgotten
  const g = new Feed(sessionViewFrom(stateOf({ preparedCompaction: { compactionId: "p2", status: "summarizing", firstKeptEntryId: "e5", tokensBefore: 15_000, requests: 1 } }), [], { lastSeq: 9 }));
  assert.equal(g.view.prepared, "summarizing", "from getState");
  g.emit("compaction_update", { compactionId: "p2", reason: "prepare", phase: "summarizing", delta: "partial" });
  assert.equal(g.view.transcript.liveSummaries.get("p2"), "partial");
  g.emit("compaction_update", { compactionId: "p2", reason: "prepare", phase: "discarded" });
  assert.equal(g.view.prepared, null);
  assert.equal(g.view.transcript.liveSummaries.has("p2"), false);
});

test("an aborted compaction and a failed one: markers say so, the session is no longer compacting", () => {
  const f = new Feed(sessionViewFrom(stateOf(), [user("hi", 1)], { lastSeq: 0 }));
  f.emit("compaction_start", { reason: "manual", tokensBefore: 9_000, compactionId: "c1" });
  f.emit("compaction_update", { compactionId: "c1", reason: "manual", phase: "summarizing", delta: "## Go" });
  const runningId = f.item("compaction").id;
  f.emit("compaction_end", { reason: "manual", compactionId: "c1", aborted: true, willRetry: false });
  const aborted = f.item("compaction");
  assert.equal(aborted.state, "aborted");
  assert.equal(aborted.id, runningId, "the running marker, ended");
  assert.equal(aborted.result, undefined);
  assert.equal(aborted.tokensBefore, 9_000);
  assert.equal(f.view.compacting, false);
  assert.equal(f.view.transcript.liveSummaries.size, 0);

  f.emit("compaction_start", { reason: "overflow", tokensBefore: 40_000, compactionId: "c2" });
  f.emit("compaction_end", { reason: "overflow", compactionId: "c2", aborted: false, willRetry: false, error: "summarizer unavailable" });
  const failed = f.item("compaction");
  assert.equal(failed.state, "failed");
  assert.equal(failed.error, "summarizer unavailable");
  assert.deepEqual(
    f.items.map((i) => (i.type === "compaction" ? `${i.reason}:${i.state}` : i.type)),
    ["message", "manual:aborted", "overflow:failed"],
  );

  // a compaction_start while one runs (events lost in between) replaces the stale marker
  f.emit("compaction_start", { reason: "threshold", tokensBefore: 1, compactionId: "c3" });
  f.emit("compaction_start", { reason: "threshold", tokensBefore: 2, compactionId: "c4" });
  assert.equal(f.items.filter((i) => i.type === "compaction" && i.state === "running").length, 1);
});

test("errors: provider errors, retries, a failed attempt, a skipped compaction and a run that failed", () => {
  const f = new Feed(sessionViewFrom(stateOf(), [], { lastSeq: 0 }));
  f.emit("agent_start", { runId: RUN });
  f.emit("message_start", { runId: RUN, message: user("go", 10) });
  f.emit("message_end", { runId: RUN, message: user("go", 10), entryId: "e1" });
  // an attempt that fails and will be retried: shown, marked, and not taken as seen
  const failedAttempt = reply([{ type: "text", text: "Partial" }], 11, "error", { errorMessage: "overloaded" });
  f.stream(failedAttempt, true);
  assert.equal(f.item("assistant").retried, true);
  assert.equal(f.view.transcript.seen.has("assistant:11"), false);
  f.emit("retry_start", { attempt: 2, maxAttempts: 3, delayMs: 3000, error: { message: "overloaded", errorClass: "transient", status: 529 } });
  assert.deepEqual(
    (({ id: _id, ...r }) => r)(f.item("retry")),
    { type: "retry", state: "waiting", attempt: 2, maxAttempts: 3, delayMs: 3000, error: { message: "overloaded", errorClass: "transient", status: 529 } },
  );
  f.emit("retry_end", { attempt: 2, aborted: false });
  assert.equal(f.item("retry").state, "retried");
  assert.equal(f.item("retry").endedAttempt, 2);
  assert.equal(f.view.transcript.retryItem, f.item("retry").id, "kept for the call's next retry, if it fails again");

  // the next attempt's reply has the failed one's timestamp: it is still shown
  f.stream(reply([{ type: "text", text: "Second try" }], 11, "toolUse", { content: [{ type: "text", text: "Second try" }, { type: "toolCall", id: "tc9", name: "bash", arguments: { command: "sleep 9" } }] }));
  assert.equal(f.items.filter((i) => i.type === "assistant").length, 2);
  assert.equal(f.view.transcript.retryItem, undefined, "the call got through: a later call's retries get their own block");
  f.emit("tool_execution_start", { runId: RUN, toolCallId: "tc9", toolName: "bash", args: { command: "sleep 9" } });
  f.emit("retry_start", { attempt: 1, maxAttempts: 3, delayMs: 1000, error: { message: "overloaded" } });

  f.emit("error", { code: ErrorCodes.ProviderError, message: "boom", data: { class: "fatal", status: 500, retryable: false } });
  f.emit("agent_end", { runId: RUN, stopReason: "error", error: { message: "boom", status: 500 }, usage });
  assert.equal(f.view.running, false);
  assert.equal(f.view.transcript.tools.get("tc9")?.status, "pending", "a tool cut off by a failed run did not finish");
  // one block for the failure: the error event, in the place of the call's retry block; no "run failed" beside it
  assert.deepEqual((({ id: _id, ...e }) => e)(f.item("error")), { type: "error", code: -32014, message: "boom", data: { class: "fatal", status: 500, retryable: false } });
  assert.deepEqual(f.items.slice(-1).map((i) => i.type), ["error"]);
  assert.equal(f.items.filter((i) => i.type === "retry").length, 1, "the first call's retry block stays; the second's became the error");
  assert.equal(f.items.filter((i) => i.type === "runEnd").length, 0);

  // a run that fails on every attempt: its empty failed replies and retries are one block, updated in place
  f.emit("agent_start", { runId: "r1" });
  const failed = (ts: number) => reply([], ts, "error", { errorMessage: "cannot reach provider local" });
  const before = f.items.length;
  for (const attempt of [1, 2]) {
    f.emit("message_start", { runId: "r1", message: failed(15) });
    f.emit("message_end", { runId: "r1", message: failed(15), willRetry: true });
    f.emit("retry_start", { attempt, maxAttempts: 2, delayMs: 1, error: { message: "cannot reach provider local" } });
    assert.equal(f.items.length, before + 1, `attempt ${attempt}: one block`);
    f.emit("retry_end", { attempt, aborted: false });
  }
  assert.equal(f.item("retry").attempt, 2);
  f.emit("message_start", { runId: "r1", message: failed(15) });
  f.emit("message_end", { runId: "r1", message: failed(15), entryId: "e15" });
  f.emit("error", { code: ErrorCodes.ProviderError, message: "cannot reach provider local", data: { class: "transient", retryable: true } });
  f.emit("agent_end", { runId: "r1", stopReason: "error", error: { message: "cannot reach provider local" }, usage });
  assert.deepEqual(f.items.slice(before).map((i) => i.type), ["error"]);
  // without an error event (a client that joined late): agent_end's error is the block
  f.emit("agent_start", { runId: "r3" });
  f.emit("message_start", { runId: "r3", message: failed(16) });
  f.emit("message_end", { runId: "r3", message: failed(16), entryId: "e16" });
  f.emit("agent_end", { runId: "r3", stopReason: "error", error: { message: "down" }, usage });
  assert.deepEqual(f.items.slice(before + 1).map((i) => i.type), ["runEnd"]);

  // an aborted run: what was still running ends in error, a reply mid-stream is cut off
  f.emit("agent_start", { runId: "r2" });
  f.emit("message_start", { runId: "r2", message: reply([], 20) });
  f.emit("message_update", { runId: "r2", delta: { type: "toolcall_start", contentIndex: 0, toolCallId: "tc10", toolName: "write" } });
  f.emit("agent_end", { runId: "r2", stopReason: "aborted", usage });
  assert.equal(f.item("assistant").status, "interrupted");
  assert.equal(f.view.transcript.tools.get("tc10")?.status, "error");
  assert.equal(f.item("runEnd").stopReason, "aborted");

  // outside a run: an automatic compaction that was skipped
  f.emit("compaction_skipped", { reason: "threshold", code: "too_little_gain", tokensBefore: 16_500, message: "skipped" });
  assert.deepEqual({ ...f.item("compactionSkipped"), id: 0 }, { type: "compactionSkipped", id: 0, reason: "threshold", code: "too_little_gain", tokensBefore: 16_500, message: "skipped" });
  assert.equal(f.view.transcript.items.at(-1)?.type, "compactionSkipped", "a line of its own, not an error item");
});

test("a replay after a reconnect, and a refetch after a gap: nothing twice, nothing lost", () => {
  // the view after a fetch that covered seq 1..5, and the run going on in it
  const history = [user("Tidy up notes.md", 1000)];
  const f = new Feed(sessionViewFrom(stateOf({ isRunning: true }), history, { lastSeq: 5 }));
  assert.equal(f.view.running, true);
  // events the fetch already covered (they overlapped it) change nothing
  const fetched = f.view;
  f.emit("message_end", { runId: RUN, message: history[0], entryId: "e1" }, 4);
  f.emit("agent_start", { runId: RUN }, 5);
  assert.equal(f.view, fetched, "seq 4 and 5 were part of the fetch");
  // seq 6: the reply streaming, joined mid-way (its message_start was before the fetch)
  f.emit("message_update", { runId: RUN, delta: { type: "text", contentIndex: 0, text: "late " } }, 6);
  f.emit("message_update", { runId: RUN, delta: { type: "text", contentIndex: 0, text: "start" } }, 7);
  const joined = f.item("assistant");
  assert.equal(joined.joined, true);
  assert.equal(joined.status, "streaming");
  assert.deepEqual(joined.message.content, [{ type: "text", text: "late start" }]);
  assert.equal(joined.message.provider, "anthropic", "the session's model, from getState");

  // a dropped connection: the client replays from seq 7 on; repeats of 6 and 7 are ignored
  const beforeReplay = f.view;
  f.emit("message_update", { runId: RUN, delta: { type: "text", contentIndex: 0, text: "start" } }, 7);
  assert.equal(f.view, beforeReplay);
  const whole = reply([{ type: "text", text: "late start, now whole" }], 1001);
  f.emit("message_end", { runId: RUN, message: whole, entryId: "e2" }, 8);
  assert.equal(f.item("assistant").message, whole);
  assert.equal(f.item("assistant").joined, true);
  assert.equal(f.items.length, 2);

  // a prepared summary in progress, then a gap: the client refetches (the run went on meanwhile)
  f.emit("compaction_update", { compactionId: "p1", reason: "prepare", phase: "summarizing", delta: "ahead " }, 9);
  const refetched = [...history, whole, user("next", 1002), reply([{ type: "text", text: "Answer" }], 1003)];
  const g = new Feed(sessionViewFrom(stateOf({ isRunning: true, contextTokens: 9_000 }), refetched, { lastSeq: 30, previous: f.view }), 30);
  assert.equal(g.view.transcript.liveSummaries.get("p1"), "ahead ", "what no fetch reports carries over");
  assert.equal(g.view.context.tokens, 9_000);
  assert.deepEqual(
    g.items.map((i) => (i.type === "message" || i.type === "assistant" ? i.message.timestamp : i.type)),
    [1000, 1001, 1002, 1003],
  );
  // events that came during the refetch: those it covered, then the new ones
  g.emit("message_start", { runId: RUN, message: refetched[3] }, 29);
  g.emit("message_end", { runId: RUN, message: refetched[3], entryId: "e5" }, 30);
  assert.equal(g.items.length, 4, "covered by the fetch (seq)");
  // an overlap the seq cannot tell (the fetch ran after subscribe): the message key can
  g.emit("message_start", { runId: RUN, message: refetched[3] }, 31);
  g.emit("message_update", { runId: RUN, delta: { type: "text", contentIndex: 0, text: "Answer" } }, 32);
  g.emit("message_end", { runId: RUN, message: refetched[3], entryId: "e5" }, 33);
  assert.equal(g.items.length, 4, "a message shown whole is not shown again");
  g.emit("compaction_update", { compactionId: "p1", reason: "prepare", phase: "summarizing", delta: "more" }, 34);
  assert.equal(g.view.transcript.liveSummaries.get("p1"), "ahead more");
  g.emit("agent_end", { runId: RUN, stopReason: "stop", usage }, 35);
  assert.equal(g.view.running, false);
  // events of another session never change this one
  const other = reduceSessionView(g.view, { type: "agent_start", sessionId: "s2", seq: 99, runId: "x" });
  assert.equal(other, g.view);
});

test("what requests answer: a later getState, the auto-compaction switch, the client's notices; the meter", () => {
  const v = sessionViewFrom(stateOf(), [user("hi", 1)], { lastSeq: 2 });
  const queued = withState(v, stateOf({ isRunning: true, pending: { steer: 1, followUp: 2 }, contextTokens: 20_000, threshold: undefined }));
  assert.equal(queued.running, true);
  assert.deepEqual(queued.pending, { steer: 1, followUp: 2 });
  assert.deepEqual(queued.context, { tokens: 20_000, window: 32_000 });
  assert.equal(queued.transcript, v.transcript, "the transcript is untouched");
  assert.equal(withState(v, stateOf({ sessionId: "s2", isRunning: true })), v, "another session's state is ignored");

  const off = withAutoCompaction(v, false);
  assert.equal(off.autoCompaction, false);
  assert.equal(off.info.autoCompactionEnabled, false);
  assert.equal(v.autoCompaction, true);
  assert.equal(withAutoCompaction(v, true), v);

  const noted = withNotice(v, "error", "Not sent: busy", "send-error");
  assert.deepEqual((({ id: _id, ...n }) => n)(noted.transcript.items.at(-1)!), { type: "notice", kind: "error", text: "Not sent: busy", tag: "send-error" });
  assert.equal(v.transcript.items.length, 1);

  // the server's threshold when it sends one; else window - min(reserve, window/2)
  assert.deepEqual(contextMeter({ tokens: 17_020, window: 32_000, threshold: 16_000 }), { tokens: 17_020, window: 32_000, threshold: 16_000, percent: (17_020 / 32_000) * 100, over: true });
  assert.equal(contextMeter({ tokens: 100, window: 200_000 }, 16_384).threshold, 183_616);
  assert.equal(contextMeter({ tokens: 100, window: 32_000 }, 16_384).threshold, 16_000);
  assert.equal(contextMeter({ tokens: 0, window: 0 }).percent, 0);
});

test("a fetched call without a result: 'unanswered' when nothing runs (a tree move left its result behind), still pending while a run goes on", () => {
  const call = reply([{ type: "toolCall", id: "tc-left", name: "read", arguments: { path: "notes.md" } }], 2, "toolUse");
  const messages = [user("Read the notes", 1), call];
  assert.equal(sessionViewFrom(stateOf(), messages).transcript.tools.get("tc-left")?.status, "unanswered");
  assert.equal(sessionViewFrom(stateOf({ isRunning: true }), messages).transcript.tools.get("tc-left")?.status, "pending");
  // with its result fetched too it is done, as before
  const done = sessionViewFrom(stateOf(), [...messages, toolResult("tc-left", "# pith", 3)]);
  assert.equal(done.transcript.tools.get("tc-left")?.status, "done");
});

test("MCP servers: the fetched list, then each mcp_server event replaces its server (a replayed one changes nothing); a call's server from its result, the list or its name", () => {
  const notes = { name: "notes", source: "settings" as const, transport: "stdio" as const, state: "connecting" as const, tools: [] };
  const feed = new Feed(sessionViewFrom(stateOf(), [], { lastSeq: 4, mcpServers: [notes] }));
  assert.deepEqual(feed.view.mcpServers, [notes]);
  const ready = { ...notes, state: "ready" as const, tools: [{ name: "mcp__notes__echo", serverName: "echo", readOnly: true }] };
  feed.emit("mcp_server", { server: ready });
  const broken = { name: "my.db", source: "client" as const, transport: "http" as const, state: "failed" as const, tools: [], error: "refused" };
  feed.emit("mcp_server", { server: broken });
  assert.deepEqual(feed.view.mcpServers, [ready, broken]);
  assert.equal(feed.view.transcript.items.length, 0, "no transcript item");
  // covered by the fetch: the state it reported stays
  feed.emit("mcp_server", { server: notes }, 3);
  assert.deepEqual(feed.view.mcpServers, [ready, broken]);
  // a reload without the list keeps what the view had
  assert.deepEqual(sessionViewFrom(stateOf(), [], { previous: feed.view }).mcpServers, [ready, broken]);

  const servers = feed.view.mcpServers;
  assert.deepEqual(mcpToolOrigin("mcp__notes__echo", servers), { server: "notes", tool: "echo" });
  assert.deepEqual(mcpToolOrigin("mcp__my_db__q", servers, { mcp: { server: "my.db", tool: "q.run" } }), { server: "my.db", tool: "q.run" });
  assert.deepEqual(mcpToolOrigin("mcp__gone__look_up", []), { server: "gone", tool: "look_up" });
  assert.equal(mcpToolOrigin("read", servers), undefined);
});

test("the queued prompts with their text: getState.queue, then each queue_update (the counts follow); an older server's state has none", () => {
  const steer = { delivery: "steer" as const, text: "look at b.ts instead", timestamp: 5 };
  const follow = { delivery: "followUp" as const, text: "then run the tests", timestamp: 6 };
  const v = sessionViewFrom(stateOf({ isRunning: true, pending: { steer: 1, followUp: 0 }, queue: [steer] }), [user("hi", 1)], { lastSeq: 2 });
  assert.deepEqual(v.queue, [steer]);
  const both = reduceSessionView(v, { type: "queue_update", sessionId: SID, seq: 3, queue: [steer, follow] });
  assert.deepEqual(both.queue, [steer, follow]);
  assert.deepEqual(both.pending, { steer: 1, followUp: 1 });
  assert.equal(both.transcript, v.transcript, "no message changes");
  const delivered = reduceSessionView(both, { type: "queue_update", sessionId: SID, seq: 4, queue: [follow] });
  assert.deepEqual(delivered.pending, { steer: 0, followUp: 1 });
  assert.equal(reduceSessionView(delivered, { type: "queue_update", sessionId: SID, seq: 4, queue: [] }), delivered, "a replayed event changes nothing");
  assert.deepEqual(sessionViewFrom(stateOf(), []).queue, [], "a server without getState.queue");
});
