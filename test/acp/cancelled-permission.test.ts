// A permission question the user cancels cancels the turn (issue 22, item 2). agent-shell answers
// session/request_permission with `outcome: cancelled` and then sends session/cancel; pith used to
// read "cancelled" as "deny", call the model again, ask a new question and withdraw it with
// $/cancel_request, which agent-shell does not know (the dialog stayed on screen). Now the prompt
// answers `cancelled`, the model is not called again for that turn, nothing more is asked, and
// this holds with or without the session/cancel, whichever comes first. The turn is stored as an
// abort stores it, and session/load in a new process replays it as interrupted.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { agentText, startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const text = (t: string): acp.ContentBlock[] => [{ type: "text", text: t }];
const modelRequests = (from: number) => fake.requests.slice(from).filter((r) => r.path === "/v1/messages");
const cancelRequests = (a: AcpDaemon) => a.stdoutLines.filter((l) => (JSON.parse(l) as { method?: string }).method === "$/cancel_request");

interface Setup {
  a: AcpDaemon;
  home: string;
  cwd: string;
  sessionId: string;
}

async function askSession(t: TestContext): Promise<Setup> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  const a = await startAcp(t, { home, fake, cwd });
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid"));
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  return { a, home, cwd, sessionId: s.sessionId };
}

/**
 * The model asks to write x.txt; what it would do next (another write, which asks again) is queued
 * behind it, so a second model call would show as a second request and a second question.
 */
function queueTurn(): void {
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }, { id: "toolu_asked" }), toolUseReply("write", { path: "y.txt", content: "y" }, { id: "toolu_next" }));
}

/** A prompt right after a cancel may find the aborted run still ending: tried again until the session is free. */
async function promptWhenFree(a: AcpDaemon, sessionId: string, prompt: string): Promise<acp.PromptResponse> {
  for (let i = 0; ; i++) {
    try {
      return await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(prompt) });
    } catch (err) {
      if (i >= 100 || (err as { code?: number }).code !== -32011) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * Only one model call was made for the cancelled turn: the write queued behind it is still queued,
 * and once the session takes a prompt again (the cancelled run is over), the next call is the new
 * prompt's, sent after the cancelled call and its result.
 */
async function assertNothingFollowed(s: Setup, from: number): Promise<void> {
  assert.equal(fake.remaining(), 1, "the reply queued behind the cancelled call was never asked for");
  // the next prompt takes that queued write (rejected this time), then the answer
  s.a.onPermission(() => ({ outcome: { outcome: "selected", optionId: "reject_once" } }));
  fake.enqueue(textReply("next turn"));
  assert.equal((await promptWhenFree(s.a, s.sessionId, "next")).stopReason, "end_turn");
  const calls = modelRequests(from);
  assert.equal(calls.length, 3, "one model call for the cancelled turn, two for the next prompt");
  const messages = calls[1].body.messages as { role: string; content: unknown }[];
  // (the cancelled call's result and the new prompt go as one user message)
  const last = JSON.stringify(messages.at(-1));
  assert.match(last, /toolu_asked.*Aborted by the user before this tool ran.*"next"/, "the call after the cancelled one is the next prompt's, after the cancelled call's result");
  assert.match(JSON.stringify(messages.at(-2)), /toolu_asked/);
  assert.equal(existsSync(join(s.cwd, "x.txt")), false, "the cancelled write did not run");
}

test("the client answers cancelled: the prompt answers cancelled, no further model call, no second question, no $/cancel_request", async (t) => {
  const s = await askSession(t);
  const asked: string[] = [];
  s.a.onPermission((req) => (asked.push(req.toolCall.toolCallId), { outcome: { outcome: "cancelled" } }));
  queueTurn();
  const from = fake.requests.length;
  const updatesFrom = s.a.updates.length;
  const answer = await s.a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write x") });
  assert.equal(answer.stopReason, "cancelled");
  assert.equal(modelRequests(from).length, 1, "no model call after the one that asked for the write");
  assert.deepEqual(asked, ["toolu_asked"], "one question");
  assert.deepEqual(cancelRequests(s.a), [], "no $/cancel_request");
  const statuses = s.a
    .since(updatesFrom, s.sessionId)
    .filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === "toolu_asked" && u.status)
    .map((u) => (u as { status: string }).status);
  assert.deepEqual(statuses, ["pending", "failed"], "the card asked about ends failed, never in_progress");
  await assertNothingFollowed(s, from);
  assert.deepEqual(asked, ["toolu_asked"]);
  assert.deepEqual(cancelRequests(s.a), []);
});

test("the client answers cancelled, then sends session/cancel (agent-shell): the prompt answers cancelled once, nothing follows", async (t) => {
  const s = await askSession(t);
  const asked: string[] = [];
  s.a.onPermission((req) => {
    asked.push(req.toolCall.toolCallId);
    // after the answer has gone out
    setImmediate(() => void s.a.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId }));
    return { outcome: { outcome: "cancelled" } };
  });
  queueTurn();
  const from = fake.requests.length;
  const answer = await s.a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write x") });
  assert.equal(answer.stopReason, "cancelled");
  await assertNothingFollowed(s, from);
  assert.deepEqual(asked, ["toolu_asked"], "one question");
  assert.deepEqual(cancelRequests(s.a), [], "the question was answered: nothing to withdraw");
});

test("the client sends session/cancel, then answers cancelled: the prompt answers cancelled, nothing follows", async (t) => {
  const s = await askSession(t);
  const asked: string[] = [];
  s.a.onPermission(async (req) => {
    asked.push(req.toolCall.toolCallId);
    await s.a.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
    return { outcome: { outcome: "cancelled" } };
  });
  queueTurn();
  const from = fake.requests.length;
  const answer = await s.a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write x") });
  assert.equal(answer.stopReason, "cancelled");
  await assertNothingFollowed(s, from);
  assert.deepEqual(asked, ["toolu_asked"], "one question");
});

test("session/load in a new process replays the cancelled turn as interrupted: the call failed, then a line saying so", async (t) => {
  const s = await askSession(t);
  s.a.onPermission(() => ({ outcome: { outcome: "cancelled" } }));
  queueTurn();
  assert.equal((await s.a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text("write x") })).stopReason, "cancelled");
  await s.a.end();

  // stored as an abort stores it: the call answered as aborted (details say so), nothing after it
  const dir = join(s.home, "sessions");
  const file = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(`${s.sessionId}.jsonl`));
  assert.ok(file, "the session file");
  const messages = readFileSync(join(dir, file), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; message?: { role: string; toolCallId?: string; isError?: boolean; details?: unknown; content?: unknown } })
    .filter((e) => e.type === "message")
    .map((e) => e.message!);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult"]);
  assert.equal(messages[2].toolCallId, "toolu_asked");
  assert.equal(messages[2].isError, true);
  assert.match(JSON.stringify(messages[2].content), /Aborted by the user before this tool ran/);
  assert.deepEqual(messages[2].details, { aborted: true });

  const b = await startAcp(t, { home: s.home, fake, cwd: s.cwd });
  await b.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd: s.cwd, mcpServers: [] });
  const replayed = b.since(0, s.sessionId);
  const call = replayed.findIndex((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "toolu_asked");
  assert.ok(call >= 0, "the call asked about is shown");
  const shown = replayed[call] as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
  assert.equal(shown.status, "failed");
  const end = replayed.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "toolu_asked");
  assert.ok(end > call);
  assert.match(JSON.stringify(replayed[end]), /Aborted by the user before this tool ran/);
  const note = replayed.findIndex((u) => u.sessionUpdate === "agent_message_chunk" && /interrupted/i.test(agentText([u])));
  assert.ok(note > end, `a line says the turn was interrupted, after the call: ${agentText(replayed)}`);
  assert.deepEqual(b.violations, []);
  assert.deepEqual(b.wireProblems(), []);
  await b.end();
});
