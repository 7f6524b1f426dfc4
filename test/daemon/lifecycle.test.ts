// The daemon's life and death: stdin EOF ends `--mode rpc` (exit 0) after answering what it read,
// with runs in progress stored as aborted and files synced and unlocked; SIGTERM ends `serve`
// (exit 0); after kill -9 mid-run a new daemon opens the session file and finds every message
// that was announced before the kill.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { AgentMessage, ResultOf } from "../../protocol/index.js";
import { hang, startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, asMessage, byType, checkDist, Cleanup, FLOW_SETTINGS, orphanCalls, poll, processWithArg, seqProblems, startRpcDaemon, startServeDaemon, writeSettings, type Ev } from "../support/daemon-client.js";
import { drainFake, rebuild } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
});

after(async () => {
  await fake.close();
  await cleanup.run();
});

function places(t: Parameters<typeof tempDir>[0]): { home: string; cwd: string } {
  const home = tempDir(t, "pith-life-home-");
  const cwd = tempDir(t, "pith-life-cwd-");
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  writeSettings(home, FLOW_SETTINGS);
  return { home, cwd };
}

/** The messages and entry ids the events announced as stored, in order. */
function announced(events: readonly Ev[]): Array<{ message: AgentMessage; entryId: string }> {
  const out: Array<{ message: AgentMessage; entryId: string }> = [];
  for (const e of events) {
    if (e.type === "message_end" && e.entryId) out.push({ message: e.message, entryId: e.entryId });
    if (e.type === "tool_execution_end") out.push({ message: e.result, entryId: e.entryId });
  }
  return out;
}

test("stdin EOF: the requests already read are answered, then exit 0", async (t) => {
  checkDist(t);
  const { home, cwd } = places(t);
  const d = startRpcDaemon(t, { home, fake, cwd });
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientInfo: { name: "eof" } } },
    { jsonrpc: "2.0", id: 2, method: "createSession", params: { cwd } },
    { jsonrpc: "2.0", id: 3, method: "listSessions", params: {} },
    { jsonrpc: "2.0", id: 4, method: "listModels" },
  ];
  d.proc.stdin!.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const exit = await d.waitExit();
  assert.deepEqual(exit, { code: 0, signal: null }, d.stderr);
  // every request read is answered (in any order: listing yields to the event loop while it reads)
  const answers = d.peer.received.filter((m) => "id" in m).sort((x, y) => Number(x.id) - Number(y.id));
  assert.deepEqual(answers.map((m) => m.id), [1, 2, 3, 4]);
  for (const a of answers) assert.equal(a.error, undefined, JSON.stringify(a.error));
  assert.equal((answers[2].result as ResultOf<"listSessions">).sessions.length, 1);
  const file = (answers[1].result as ResultOf<"createSession">).sessionFile;
  assert.equal(existsSync(`${file}.lock`), false, "the lock is released");
});

test("stdin EOF during runs (one streaming, one in a bash tool): exit 0, both stored as aborted, files synced and unlocked", async (t) => {
  const { home, cwd } = places(t);
  const d = startRpcDaemon(t, { home, fake, cwd });
  const peer = d.peer;
  await peer.initialize();
  const a = await peer.request("createSession", { cwd });
  const b = await peer.request("createSession", { cwd });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "streaming forever and ever", chunkSize: 4 }] }, afterFrames: 5 }));
  const fromA = peer.mark();
  const runA = await peer.request("prompt", { sessionId: a.sessionId, text: "stream" });
  // the hang comes after two text deltas (the daemon may send them as one event): wait for both
  const textSoFar = () =>
    peer
      .sessionEvents(a.sessionId, fromA)
      .filter((e) => e.type === "message_update" && e.delta.type === "text")
      .map((e) => (e.type === "message_update" ? (e.delta.text ?? "") : ""))
      .join("");
  await peer.until(() => (textSoFar().length >= 8 ? true : undefined), "a's two text deltas");
  const command = `sleep 29.${process.pid}${Math.floor(Math.random() * 1000)}`;
  fake.enqueue(toolUseReply("bash", { command }));
  const fromB = peer.mark();
  const runB = await peer.request("prompt", { sessionId: b.sessionId, text: "sleep" });
  await peer.waitEvent((e) => e.sessionId === b.sessionId && e.type === "tool_execution_start", "b's tool start", fromB);
  await poll(() => (processWithArg(command) !== undefined ? true : undefined), "the bash command to run");

  const t0 = Date.now();
  d.endStdin();
  const exit = await d.waitExit();
  assert.deepEqual(exit, { code: 0, signal: null }, d.stderr);
  assert.ok(Date.now() - t0 < 5000, "shutdown does not wait for the command or the stream");
  // (the connection's subscriptions end with its stdin, so the aborted runs' agent_end is not
  // required to reach this client; if it does, it says aborted)
  for (const runId of [runA.runId, runB.runId]) {
    const end = byType(peer.events, "agent_end").find((e) => e.runId === runId);
    if (end) assert.equal(end.stopReason, "aborted");
  }
  let left: number | undefined;
  for (let i = 0; i < 50 && (left = processWithArg(command)) !== undefined; i++) await sleep(20);
  if (left !== undefined) process.kill(left, "SIGKILL");
  assert.equal(left, undefined, "the bash command did not outlive the daemon");
  for (const s of [a, b]) assert.equal(existsSync(`${s.sessionFile}.lock`), false, "the lock is released");

  // what a new daemon reads from the files
  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const ra = await d2.peer.request("openSession", { sessionFile: a.sessionFile });
  const ma = (await d2.peer.request("getMessages", { sessionId: ra.sessionId })).messages;
  assert.deepEqual(ma.map((m) => [m.role, "stopReason" in m ? m.stopReason : undefined]), [["user", undefined], ["assistant", "aborted"]]);
  const streamed = rebuild(peer.sessionEvents(a.sessionId, fromA)).get(0);
  assert.ok(streamed && streamed.length > 0);
  assert.equal(asMessage(ma[1], "assistant").content.map((b) => (b.type === "text" ? b.text : "")).join(""), streamed, "the partial text is what was streamed");
  const rb = await d2.peer.request("openSession", { sessionFile: b.sessionFile });
  const mb = (await d2.peer.request("getMessages", { sessionId: rb.sessionId })).messages;
  assert.deepEqual(mb.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.equal(asMessage(mb[2], "toolResult").isError, true);
  assert.deepEqual(orphanCalls(mb), []);
  assert.equal(ra.state.isRunning, false);
  d2.endStdin();
  assert.equal((await d2.waitExit()).code, 0);
  await drainFake(fake);
});

test("serve: stdin EOF does not end it (with --stdio); SIGTERM ends it with exit 0, clients get 1001, a run in progress is stored as aborted", async (t) => {
  const { home, cwd } = places(t);
  const d = await startServeDaemon(t, { home, fake, cwd, stdio: true });
  d.proc.stdin!.end();
  await sleep(200);
  assert.equal(d.exit, null, "serve outlives its stdin");
  const ws = await d.connect(t);
  await ws.initialize();
  const s = await ws.request("createSession", { cwd });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "never finishing", chunkSize: 4 }] }, afterFrames: 5 }));
  const from = ws.mark();
  const { runId } = await ws.request("prompt", { sessionId: s.sessionId, text: "go" });
  await ws.waitEvent((e) => e.type === "message_update", "a text delta", from);
  d.proc.kill("SIGTERM");
  const exit = await d.waitExit();
  assert.deepEqual(exit, { code: 0, signal: null }, d.stderr);
  assert.equal((await ws.whenClosed).code, 1001);
  assert.equal(existsSync(`${s.sessionFile}.lock`), false, "the lock is released");

  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const r = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  const { messages } = await d2.peer.request("getMessages", { sessionId: r.sessionId });
  assert.deepEqual(messages.map((m) => [m.role, "stopReason" in m ? m.stopReason : undefined]), [["user", undefined], ["assistant", "aborted"]]);
  const end = byType(ws.events, "agent_end").find((e) => e.runId === runId);
  if (end) assert.equal(end.stopReason, "aborted"); // may or may not reach the client before the close
  d2.endStdin();
  await d2.waitExit();
  await drainFake(fake);
});

test("serve --stdio: SIGTERM exits 0 even while stdin is still open", async (t) => {
  const { home, cwd } = places(t);
  const d = await startServeDaemon(t, { home, fake, cwd, stdio: true });
  await d.peer!.initialize();
  d.proc.kill("SIGTERM");
  assert.deepEqual(await d.waitExit(2000), { code: 0, signal: null }, d.stderr);
});

test("--mode rpc: SIGTERM mid-run exits 0 while stdin is still open; the run is stored as aborted", async (t) => {
  const { home, cwd } = places(t);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "never finishing", chunkSize: 4 }] }, afterFrames: 5 }));
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "go" });
  await d.peer.waitEvent((e) => e.type === "message_update", "a text delta", from);
  d.proc.kill("SIGTERM");
  const end = await d.peer.waitEvent((e) => e.type === "agent_end", "agent_end", from);
  assert.equal(end.stopReason, "aborted");
  await drainFake(fake);
  await poll(() => (existsSync(`${s.sessionFile}.lock`) ? undefined : true), "the lock to be released");
  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const r = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  const { messages } = await d2.peer.request("getMessages", { sessionId: r.sessionId });
  assert.deepEqual(messages.map((m) => [m.role, "stopReason" in m ? m.stopReason : undefined]), [["user", undefined], ["assistant", "aborted"]]);
  d2.endStdin();
  await d2.waitExit();
  assert.deepEqual(await d.waitExit(2000), { code: 0, signal: null }, d.stderr);
});

test("serve: SIGINT also exits 0", async (t) => {
  const { home, cwd } = places(t);
  const d = await startServeDaemon(t, { home, fake, cwd });
  const ws = await d.connect(t);
  await ws.initialize();
  d.proc.kill("SIGINT");
  assert.deepEqual(await d.waitExit(), { code: 0, signal: null }, d.stderr);
});

test("kill -9 mid-run: a new daemon opens the file (stale lock taken over) and has every message announced before the kill", async (t) => {
  const { home, cwd } = places(t);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(textReply("first answer"));
  const first = await d.peer.runPrompt(s.sessionId, "first question");
  fake.enqueue(
    toolUseReply("read", { path: "a.txt" }, { text: "Reading." }),
    toolUseReply("bash", { command: "echo from-bash" }),
    hang({ reply: { content: [{ type: "text", text: "this reply is cut by the kill", chunkSize: 4 }] }, afterFrames: 5 }),
  );
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "second question" });
  const turn3 = await d.peer.waitEvent((e) => e.type === "turn_start" && e.turn === 3, "the third turn", from);
  await d.peer.waitEvent((e) => e.type === "message_update" && e.delta.type === "text", "a text delta of the third turn", d.peer.events.indexOf(turn3));
  const events = d.peer.sessionEvents(s.sessionId);
  assert.deepEqual(seqProblems(events), []);
  const before = announced(events);
  assert.deepEqual(before.map((a) => a.message.role), ["user", "assistant", "user", "assistant", "toolResult", "assistant", "toolResult"]);
  assert.equal(announced(first.events).length, 2);

  const exit = await d.kill9();
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(existsSync(`${s.sessionFile}.lock`), true, "the dead daemon's lock is still there");

  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  const r = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.equal(r.sessionId, s.sessionId);
  assert.equal(r.state.isRunning, false);
  const { messages } = await d2.peer.request("getMessages", { sessionId: r.sessionId });
  assert.deepEqual(messages, before.map((a) => a.message), "every announced message, as announced, and nothing else");
  const tree = await d2.peer.request("getTree", { sessionId: r.sessionId });
  assert.deepEqual(tree.entries.filter((e) => e.type === "message").map((e) => e.id), before.map((a) => a.entryId));
  assert.equal(tree.leafId, before.at(-1)!.entryId);
  assert.deepEqual(orphanCalls(messages), []);

  // the session goes on in the new daemon, seq starting again at 1
  fake.enqueue(textReply("picking up again"));
  const again = await d2.peer.runPrompt(r.sessionId, "are you there?");
  assert.equal(agentEnd(again.events).stopReason, "stop");
  assert.equal(again.events[0].seq, 1);
  assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages), /from-bash/, "the model sees the stored history");
  d2.endStdin();
  assert.equal((await d2.waitExit()).code, 0);
  assert.equal(existsSync(`${s.sessionFile}.lock`), false);
  await drainFake(fake);
});
