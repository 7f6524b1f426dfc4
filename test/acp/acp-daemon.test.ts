// `pith acp` driven by the ACP SDK's own client over real pipes, against the fake Messages API:
// the handshake, sessions (new, load, resume, list, close, delete), prompts with their updates
// and stop reasons, cancel (mid-stream and during a permission question), permission modes,
// config options, /compact and /autocompact, compaction reported with and without the client's
// compaction capability, the replay of a compacted session and of Pi's own file, bad input, and
// shutdown at stdin EOF. Every update was parsed by the SDK's client with its schema.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { agentText, startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { bigText, FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { hang, httpError, overloaded, startFakeAnthropic, textReply, thinkingReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { fixtureSkip, PI_FIXTURE } from "../support/fixture.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const text = (t: string): acp.ContentBlock[] => [{ type: "text", text: t }];
const summarizerRequests = (from = 0) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages" && (r.body.tools ?? []).length === 0);

async function acpWith(t: TestContext, caps: acp.ClientCapabilities = {}, settings: object = {}): Promise<{ a: AcpDaemon; home: string; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id, ...settings });
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: caps });
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid and lossless as sent"));
  return { a, home, cwd };
}

test("initialize advertises what pith does; session/new needs an absolute cwd; the commands come after the response", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const a = await startAcp(t, { home, fake, cwd });
  const init = await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities?.loadSession, true);
  assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
  assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
  // as sent (the SDK's client fills in false for what is missing): what pith lacks is left out,
  // not sent as false, which Emacs acp.el reads as present
  const sent = a.stdoutLines.map((l) => JSON.parse(l) as { result?: { agentCapabilities?: Record<string, unknown> } }).filter((m) => m.result?.agentCapabilities);
  assert.equal(sent.length, 2, "both initialize responses");
  for (const m of sent) {
    const caps = m.result!.agentCapabilities!;
    assert.deepEqual(caps.promptCapabilities, { image: true, embeddedContext: true }, "no audio key");
    const mcp = (caps.mcpCapabilities ?? {}) as Record<string, unknown>;
    assert.deepEqual(Object.entries(mcp).filter(([, v]) => v === false), [], "no false mcp capability");
  }
  for (const k of ["list", "close", "delete", "resume"] as const) assert.ok(init.agentCapabilities?.sessionCapabilities?.[k], k);

  await assert.rejects(a.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }), (err: acp.RequestError) => err.code === -32602);
  const from = a.updates.length;
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [{ name: "quits-at-once", command: "/bin/true", args: [], env: [] }] });
  // (that server exits before it is ready: its failure is a notice after the response, never before it)
  assert.equal(a.since(from).length, 0, "nothing is sent before the response");
  assert.equal(s.modes?.currentModeId, "auto");
  assert.deepEqual(s.modes?.availableModes.map((m) => m.id), ["ask", "auto", "readonly"]);
  assert.deepEqual(s.configOptions?.map((o) => [o.id, o.category ?? null, o.type]), [["model", "model", "select"], ["thought_level", "thought_level", "select"], ["autocompact", null, "select"]]);
  const cmds = await a.waitUpdate((u) => u.sessionUpdate === "available_commands_update", "the commands");
  assert.ok(cmds.sessionUpdate === "available_commands_update");
  assert.deepEqual(cmds.availableCommands.map((c) => c.name), ["compact", "autocompact"]);
  assert.ok(a.stdoutLines.every((l) => JSON.parse(l).jsonrpc === "2.0"), "stdout carries ACP messages only");
});

test("a prompt streams thought and message chunks, a tool call with its result, usage, and answers end_turn", async (t) => {
  const { a, cwd } = await acpWith(t);
  writeFileSync(join(cwd, "notes.md"), "line one\nline two\n");
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("read", { path: "notes.md" }, { text: "Reading." }), thinkingReply("Let me think.", "sig-1", "The notes have two lines."));
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("What is in notes.md?") });
  assert.equal(r.stopReason, "end_turn");
  const got = a.since(from, s.sessionId);
  assert.match(agentText(got), /Reading\.[\s\S]*The notes have two lines\./);
  // the thinking may come in several chunks (how the deltas were cut depends on the machine's load)
  const thought = got.map((u) => (u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
  assert.ok(thought.includes("Let me think"), `the thinking: ${JSON.stringify(thought)}`);
  const call = got.find((u) => u.sessionUpdate === "tool_call");
  assert.ok(call && call.sessionUpdate === "tool_call");
  assert.equal(call.kind, "read");
  assert.deepEqual(call.locations?.map((l) => l.path), [join(cwd, "notes.md")]);
  assert.deepEqual(call.rawInput, { path: "notes.md" });
  const done = got.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === call.toolCallId).at(-1);
  assert.ok(done && done.sessionUpdate === "tool_call_update");
  assert.equal(done.status, "completed");
  assert.match(JSON.stringify(done.content), /line two/);
  const usage = got.filter((u) => u.sessionUpdate === "usage_update");
  assert.ok(usage.length >= 2, "after each model call");
  const last = usage.at(-1)!;
  assert.ok(last.sessionUpdate === "usage_update" && last.size === SMALL_MODEL.contextWindow && last.used > 0);
});

test("prompt content: a resource_link names the file for the read tool, an embedded resource is inlined, an image is passed on; audio is -32602", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const req0 = fake.requests.length;
  fake.enqueue(textReply("seen"));
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  await a.request(acp.methods.agent.session.prompt, {
    sessionId: s.sessionId,
    prompt: [
      { type: "text", text: "Look at these." },
      { type: "resource_link", uri: `file://${join(cwd, "big.log")}`, name: "big.log" },
      { type: "resource", resource: { uri: `file://${join(cwd, "a.ts")}`, text: "export const A = 1;", mimeType: "text/x-typescript" } },
      { type: "image", data: png, mimeType: "image/png" },
    ],
  });
  const body = JSON.stringify(fake.requests[req0].body.messages);
  assert.match(body, new RegExp(`Attached file: ${join(cwd, "big.log").replace(/[/.]/g, "\\$&")}`));
  assert.match(body, /export const A = 1;/);
  assert.match(body, /"type":"image"/);
  await assert.rejects(
    a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] }),
    (e: acp.RequestError) => e.code === -32602,
  );
});

test("a transient error's retry is a notice where the client shows notices, a visible line otherwise", async (t) => {
  for (const notices of [true, false]) {
    const { a, cwd } = await acpWith(t, notices ? { session: { notices: {} } } : {}, {});
    const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    fake.enqueue(overloaded({ retryAfter: 0 }), textReply("after the retry"));
    const from = a.updates.length;
    assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("hi") })).stopReason, "end_turn");
    const got = a.since(from, s.sessionId);
    if (notices) assert.ok(got.some((u) => u.sessionUpdate === "notice" && /Retrying/.test(u.title)), JSON.stringify(got));
    else assert.match(agentText(got), /Retrying[\s\S]*after the retry/);
  }
});

test("stop reasons: max_tokens, max_turn_requests; a failed run is a JSON-RPC error with pith's data", async (t) => {
  const { a, cwd } = await acpWith(t, {}, { maxTurns: 4 });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  // pith continues a reply cut at max_tokens up to three times; the fourth cut ends the run
  for (let i = 0; i < 4; i++) fake.enqueue(textReply(`cut ${i}`, { stopReason: "max_tokens" }));
  assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("long") })).stopReason, "max_tokens");
  for (let i = 0; i < 4; i++) fake.enqueue(toolUseReply("ls", { path: "." }));
  assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("loop") })).stopReason, "max_turn_requests");
  fake.enqueue(httpError(401, "authentication_error", "invalid x-api-key"));
  await assert.rejects(a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("fail") }), (err: acp.RequestError) => {
    assert.equal(err.code, -32014);
    assert.equal((err.data as { class?: string }).class, "auth");
    return true;
  });
  // the session keeps working
  fake.enqueue(textReply("fine"));
  assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("again") })).stopReason, "end_turn");
});

test("cancel mid-stream: the prompt answers cancelled within 1 s, nothing of that run follows, the session keeps working", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "streaming for ever and ever", chunkSize: 3 }] }, afterFrames: 6 }));
  const from = a.updates.length;
  const pending = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("go") });
  await a.waitUpdate((u) => u.sessionUpdate === "agent_message_chunk", "the first chunk", from);
  const t0 = performance.now();
  await a.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
  assert.equal((await pending).stopReason, "cancelled");
  assert.ok(performance.now() - t0 < 1000, "within 1 s");
  const at = a.updates.length;
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(a.since(at, s.sessionId), [], "no update after the answer");
  fake.enqueue(textReply("still here"));
  assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("again") })).stopReason, "end_turn");
  assert.match(agentText(a.since(at, s.sessionId)), /still here/);
});

test("ask mode: writes ask with allow_once / allow_always / reject_once; reject fails the call; cancel during the question answers cancelled", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  const asked: acp.RequestPermissionRequest[] = [];
  a.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "reject_once" } }));
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }), textReply("ok, not written"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write x") });
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
  assert.equal(asked[0].toolCall.kind, "edit");
  assert.equal(existsSync(join(cwd, "x.txt")), false, "rejected: not written");

  a.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "allow_always" } }));
  fake.enqueue(toolUseReply("write", { path: "y.txt", content: "y" }), toolUseReply("write", { path: "z.txt", content: "z" }), textReply("written"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write y and z") });
  assert.equal(asked.length, 2, "allow_always: asked once for both writes");
  assert.equal(readFileSync(join(cwd, "z.txt"), "utf8"), "z");

  // a question pending when the user cancels: the prompt answers cancelled, the question is withdrawn
  let withdrawn = false;
  a.onPermission((req, signal) => (asked.push(req), new Promise((resolve) => signal.addEventListener("abort", () => ((withdrawn = true), resolve({ outcome: { outcome: "cancelled" } }))))));
  fake.enqueue(toolUseReply("bash", { command: "echo hi" }));
  const pending = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("run it") });
  for (let i = 0; i < 500 && asked.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(asked.length, 3, "the bash call is asked about");
  await a.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
  assert.equal((await pending).stopReason, "cancelled");
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(withdrawn, "the pending permission request was cancelled");
});

test("ask mode: read runs without a question; a write asks, and leaves pending only once allowed (no in_progress before the question)", async (t) => {
  const { a, cwd } = await acpWith(t);
  writeFileSync(join(cwd, "notes.md"), "hello notes\n");
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  const from = a.updates.length;
  const asked: { id: string; title?: string | null; at: number }[] = [];
  a.onPermission((req) => (asked.push({ id: req.toolCall.toolCallId, title: req.toolCall.title, at: a.updates.length }), { outcome: { outcome: "selected", optionId: "allow_once" } }));
  fake.enqueue(toolUseReply("read", { path: "notes.md" }, { id: "toolu_read1" }), toolUseReply("write", { path: "w.txt", content: "w" }, { id: "toolu_write1" }), textReply("read and written"));
  assert.equal((await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("read then write") })).stopReason, "end_turn");
  assert.deepEqual(asked.map((q) => q.id), ["toolu_write1"], "only the write asks");
  assert.equal(readFileSync(join(cwd, "w.txt"), "utf8"), "w");
  const statuses = (id: string, upTo?: number) =>
    a.updates
      .slice(from, upTo)
      .map((n) => n.update)
      .filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id && u.status)
      .map((u) => (u as { status: string }).status);
  assert.deepEqual(statuses("toolu_read1"), ["pending", "in_progress", "completed"], "the read runs at once");
  assert.deepEqual(statuses("toolu_write1", asked[0].at), ["pending"], "nothing but pending before the question");
  assert.deepEqual(statuses("toolu_write1"), ["pending", "in_progress", "completed"], "in_progress once allowed");
});

test("config options: model, thought level, auto-compaction (boolean where the client shows booleans); bad values are -32602", async (t) => {
  const { a, cwd } = await acpWith(t, { session: { configOptions: { boolean: {} } } });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const auto = s.configOptions?.find((o) => o.id === "autocompact");
  assert.equal(auto?.type, "boolean");
  const r = await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "high" });
  assert.equal(r.configOptions.find((o) => o.id === "thought_level")?.currentValue, "high");
  const r2 = await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "autocompact", type: "boolean", value: false });
  assert.equal(r2.configOptions.find((o) => o.id === "autocompact")?.currentValue, false);
  await assert.rejects(a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "extreme" }), (e: acp.RequestError) => e.code === -32602);
  await assert.rejects(a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: "no-such-model" }), (e: acp.RequestError) => e.code === -32602);
  await assert.rejects(a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "yolo" }), (e: acp.RequestError) => e.code === -32602);
});

/** A session with enough history to compact: two big exchanges. */
async function historyOf(a: AcpDaemon, sessionId: string): Promise<void> {
  fake.enqueue(textReply("answer one", { usage: { input_tokens: 2000 } }));
  await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(bigText("FIRST")) });
  fake.enqueue(textReply("answer two", { usage: { input_tokens: 4000 } }));
  await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(bigText("SECOND")) });
}

test("/compact with instructions: they reach the summarizer (not the model as a prompt); compaction_update in_progress → completed", async (t) => {
  const { a, cwd } = await acpWith(t, { session: { compaction: {} } });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await historyOf(a, s.sessionId);
  const req0 = fake.requests.length;
  fake.enqueue(textReply("## Goal\nSUMMARY-OF-ACP", { chunkSize: 5 }));
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("/compact focus on the FIRST message") });
  assert.equal(r.stopReason, "end_turn");
  const sum = summarizerRequests(req0);
  assert.equal(sum.length, 1, "one summarizer request, and no model turn");
  assert.equal(fake.requests.length - req0, 1);
  assert.match(JSON.stringify(sum[0].body), /focus on the FIRST message/);
  assert.ok(a.since(from, s.sessionId).some((u) => u.sessionUpdate === "compaction_summary_chunk"), "the summary streams as it is written");
  const comp = a.since(from, s.sessionId).filter((u) => u.sessionUpdate === "compaction_update");
  assert.deepEqual(comp.map((u) => u.sessionUpdate === "compaction_update" && u.status), ["in_progress", "completed"]);
  assert.match(JSON.stringify(comp.at(-1)), /SUMMARY-OF-ACP/);
  // /autocompact
  const r2 = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("/autocompact off") });
  assert.equal(r2.stopReason, "end_turn");
  assert.match(agentText(a.since(from, s.sessionId)), /Automatic compaction is off/);
});

test("without the compaction capability a compaction is a short visible message; automatic compaction is reported too", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await historyOf(a, s.sessionId);
  // the next reply reports a context past the threshold (40,000 - 16,384): the run compacts before it ends
  fake.enqueue(textReply("big", { usage: { input_tokens: 30_000 } }), textReply("## Goal\nAUTO-SUMMARY"));
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("third") });
  assert.equal(r.stopReason, "end_turn");
  const got = a.since(from, s.sessionId);
  assert.equal(got.filter((u) => u.sessionUpdate === "compaction_update").length, 0);
  assert.match(agentText(got), /compact/i);
});

test("session/load replays the whole active branch (history before the summary too), with the compaction at its place; resume does not replay", async (t) => {
  const { a, cwd, home } = await acpWith(t, { session: { compaction: {} } });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await historyOf(a, s.sessionId);
  fake.enqueue(textReply("## Goal\nSTORED-SUMMARY"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("/compact") });
  fake.enqueue(textReply("after the summary"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("THIRD question") });
  await a.request(acp.methods.agent.session.close, { sessionId: s.sessionId });
  await a.end();

  const b = await startAcp(t, { home, fake, cwd, clientCapabilities: { session: { compaction: {} } } });
  const from = b.updates.length;
  const loaded = await b.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  assert.ok(loaded.configOptions);
  const replay = b.since(from, s.sessionId);
  const kinds = replay.map((u) => u.sessionUpdate);
  const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => JSON.stringify(u));
  assert.equal(users.length, 3);
  assert.match(users[0], /FIRST/, "the history before the summary is replayed");
  const compactAt = kinds.indexOf("compaction_update");
  assert.ok(compactAt > kinds.indexOf("user_message_chunk") && compactAt < kinds.lastIndexOf("user_message_chunk"), "the compaction sits between SECOND and THIRD");
  assert.match(JSON.stringify(replay[compactAt]), /STORED-SUMMARY/);
  assert.match(agentText(replay), /answer one[\s\S]*answer two[\s\S]*after the summary/);
  await b.waitUpdate((u) => u.sessionUpdate === "available_commands_update", "commands after load", from);

  const list = await b.request(acp.methods.agent.session.list, { cwd });
  assert.deepEqual(list.sessions.map((x) => x.sessionId), [s.sessionId]);
  const at = b.updates.length;
  await b.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  // A replay goes out before the answer (as load's did above) and the commands follow the answer,
  // so once the commands are here any replay would be too; the mode change is a second fence for
  // anything sent later still: its update follows everything the session sent before it.
  await b.waitUpdate((u) => u.sessionUpdate === "available_commands_update", "commands after resume", at);
  await b.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "readonly" });
  await b.waitUpdate((u) => u.sessionUpdate === "current_mode_update", "the mode change after resume", at);
  assert.deepEqual(b.since(at, s.sessionId).map((u) => u.sessionUpdate), ["available_commands_update", "current_mode_update"], "resume replays nothing");
  await b.request(acp.methods.agent.session.delete, { sessionId: s.sessionId });
  assert.deepEqual((await b.request(acp.methods.agent.session.list, { cwd })).sessions, []);
  assert.deepEqual(b.violations, []);
  assert.deepEqual(b.wireProblems(), []);
});

test("session/load of Pi's own session file: every user message of the branch, every update valid", async (t) => {
  if (fixtureSkip) return t.skip(fixtureSkip);
  const home = tempDir(t);
  const header = JSON.parse(readFileSync(PI_FIXTURE, "utf8").split("\n")[0]) as { id: string; cwd: string };
  const dir = join(home, "sessions", "--fixture--");
  mkdirSync(dir, { recursive: true });
  copyFileSync(PI_FIXTURE, join(dir, "fixture.jsonl"));
  const a = await startAcp(t, { home, fake, clientCapabilities: { session: { compaction: {} } } });
  const from = a.updates.length;
  await a.request(acp.methods.agent.session.load, { sessionId: header.id, cwd: header.cwd.startsWith("/") ? header.cwd : "/", mcpServers: [] });
  const replay = a.since(from, header.id);
  assert.equal(replay.filter((u) => u.sessionUpdate === "user_message_chunk").length, 88);
  assert.ok(replay.filter((u) => u.sessionUpdate === "tool_call").length >= 300);
  assert.deepEqual(a.violations, []);
  assert.deepEqual(a.wireProblems(), []);
});

test("bad input: unknown session -32002, unknown method -32601, malformed params -32602; stdin EOF ends the process within 5 s", async (t) => {
  const { a, cwd } = await acpWith(t);
  await assert.rejects(a.request(acp.methods.agent.session.prompt, { sessionId: "no-such-session", prompt: text("hi") }), (e: acp.RequestError) => e.code === -32002);
  await assert.rejects(a.request(acp.methods.agent.session.load, { sessionId: "no-such-session", cwd, mcpServers: [] }), (e: acp.RequestError) => e.code === -32002);
  await assert.rejects(a.request("session/teleport", {}), (e: acp.RequestError) => e.code === -32601);
  await assert.rejects(a.request("session/prompt", { sessionId: 42 }), (e: acp.RequestError) => e.code === -32602);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "never ends at all", chunkSize: 2 }] }, afterFrames: 6 }));
  void a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("hang") }).catch(() => undefined);
  await a.waitUpdate((u) => u.sessionUpdate === "agent_message_chunk", "the run to stream");
  const { code, ms } = await a.end();
  assert.equal(code, 0);
  assert.ok(ms < 5000, `exited in ${Math.round(ms)} ms`);
});
