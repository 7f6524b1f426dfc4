// The agent loop end to end with the offline provider and the real tools, in a temp project.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { Agent, toolSpecsOf, type AgentOptions } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { NOTES_FILES, NOTES_SCRIPT } from "../support/notes-script.js";
import { SCRIPTED_MODEL } from "../../src/llm/models.js";
import { ScriptedProvider, type Script } from "../../src/llm/scripted.js";
import type { ToolResultMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";
import { createCodingTools } from "../../src/tools/index.js";
import type { Tool } from "../../src/tools/types.js";
import { orphans } from "../support/sessions.js";
import { tempDir } from "../support/tmp.js";
import { isRunning } from "../tools/helpers.js";
import { zodTool } from "../../src/tools/zod-tool.js";

function setup(t: Parameters<typeof tempDir>[0], script: Script, extra: Partial<AgentOptions> = {}) {
  const cwd = tempDir(t, "pith-agent-cwd-");
  for (const [name, content] of Object.entries(NOTES_FILES)) writeFileSync(join(cwd, name), content);
  const session = SessionFile.create({ cwd, sessionsDir: tempDir(t, "pith-agent-sessions-") });
  t.after(() => session.close());
  const agent = new Agent({ session, provider: new ScriptedProvider(script), model: SCRIPTED_MODEL, tools: createCodingTools(), systemPrompt: "test", toolContext: { cwd }, ...extra });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { cwd, session, agent, events };
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);

/** A tool that takes `ms` to answer: a call the run is in the middle of. */
const slow = zodTool<{ ms: number }>({
  name: "wait",
  effects: "read",
  description: "waits",
  schema: z.object({ ms: z.number() }),
  async execute(p) {
    await new Promise((r) => setTimeout(r, p.ms));
    return { content: [{ type: "text", text: `waited ${p.ms}` }] };
  },
});

test("the demo script runs end to end: read, edit, bash, write, each result stored after its call", async (t) => {
  const { cwd, session, agent, events } = setup(t, { turns: NOTES_SCRIPT.turns.slice(0, 5) });
  const result = await agent.run({ text: "Tidy up the notes" });
  assert.equal(result.stopReason, "stop");
  assert.equal(result.error, undefined);
  assert.match(readFileSync(join(cwd, "notes.md"), "utf8"), /- compaction\n- branch summaries\n/);
  assert.match(readFileSync(join(cwd, "report.md"), "utf8"), /^# Report/);
  const ctx = session.buildContext();
  assert.deepEqual(
    ctx.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant"],
  );
  assert.deepEqual(orphans(ctx.messages), []);
  const bash = ctx.messages[6] as ToolResultMessage;
  assert.equal(bash.isError, false);
  assert.match((bash.content[0] as { text: string }).text, /6 notes.md\n3/);
  assert.equal(result.usage.input, 3200 + 6400 + 9800 + 13_400 + 16_900);

  const seq = types(events);
  assert.equal(seq[0], "agent_start");
  assert.equal(seq.at(-1), "agent_end");
  assert.deepEqual(seq.slice(1, 3), ["message_start", "message_end"], "the user message is stored and announced first");
  assert.equal(seq.filter((s) => s === "turn_start").length, 5);
  assert.equal(seq.filter((s) => s === "tool_execution_end").length, 4);
  assert.ok(seq.filter((s) => s === "message_update").length > 10, "the reply streams in");
  // every announced message was stored before it was announced
  const reopened = SessionFile.open(session.file, { readOnly: true });
  t.after(() => reopened.close());
  for (const e of events) if (e.type === "message_end" && e.entryId) assert.ok(reopened.has(e.entryId));
});

test("tool errors go back to the model as error results and the run goes on", async (t) => {
  const { session, agent } = setup(t, {
    turns: [
      { toolCalls: [{ name: "nope", arguments: {} }, { name: "read", arguments: { path: 42 } }, { name: "read", arguments: { path: "../../etc/passwd" } }, { name: "edit", arguments: { path: "notes.md", oldText: "absent", newText: "x" } }] },
      { text: "I see the errors." },
    ],
  });
  const result = await agent.run({ text: "try things" });
  assert.equal(result.stopReason, "stop");
  const results = session.buildContext().messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
  assert.equal(results.length, 4);
  assert.ok(results.every((r) => r.isError));
  const texts = results.map((r) => (r.content[0] as { text: string }).text);
  assert.match(texts[0], /Unknown tool "nope"/);
  assert.match(texts[1], /Invalid arguments for read/);
  assert.match(texts[2], /outside the working directory/);
  assert.match(texts[3], /not found|no match|does not contain|Could not find/i);
});

test("abort during a stream stores the partial reply as aborted", async (t) => {
  const { session, agent, events } = setup(t, { turns: [{ text: "a".repeat(4000), chunkSize: 10, delayMs: 2 }] });
  const running = agent.run({ text: "talk" });
  await new Promise((r) => setTimeout(r, 60));
  agent.abort();
  const result = await running;
  assert.equal(result.stopReason, "aborted");
  const last = session.buildContext().messages.at(-1)!;
  assert.equal(last.role, "assistant");
  assert.equal(last.role === "assistant" && last.stopReason, "aborted");
  const text = last.role === "assistant" && last.content[0]?.type === "text" ? last.content[0].text : "";
  assert.ok(text.length > 0 && text.length < 4000, `partial text of ${text.length} chars`);
  assert.equal(events.at(-1)!.type, "agent_end");
});

test("abort during a long bash command kills it and answers the remaining calls", async (t) => {
  const { cwd, session, agent } = setup(t, {
    turns: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 30 & echo $! > child.pid; wait" } }, { name: "read", arguments: { path: "notes.md" } }] }],
  });
  const running = agent.run({ text: "run it" });
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    try {
      if (readFileSync(join(cwd, "child.pid"), "utf8").trim()) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  agent.abort();
  const result = await running;
  assert.equal(result.stopReason, "aborted");
  const pid = Number(readFileSync(join(cwd, "child.pid"), "utf8"));
  // a killed orphan may linger as a zombie until it is reaped: that does not count as running
  for (let i = 0; i < 30 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(isRunning(pid), false, "the backgrounded sleep was killed with its group");
  const msgs = session.buildContext().messages;
  assert.deepEqual(orphans(msgs), []);
  const results = msgs.filter((m): m is ToolResultMessage => m.role === "toolResult");
  assert.equal(results.length, 2);
  assert.ok(results.every((r) => r.isError));
  assert.match((results[1].content[0] as { text: string }).text, /Aborted/);
});

test("a steer skips the turn's remaining calls and is delivered after the running tool", async (t) => {
  const { session, agent } = setup(t, { turns: [{ toolCalls: [{ name: "wait", arguments: { ms: 100 } }, { name: "wait", arguments: { ms: 1 } }] }, { text: "ok, changing course" }] }, { tools: [slow as Tool] });
  agent.followUp({ text: "and then this" });
  const running = agent.run({ text: "go" });
  await new Promise((r) => setTimeout(r, 30));
  agent.steer({ text: "stop, do something else" });
  const result = await running;
  assert.equal(result.stopReason, "stop");
  const msgs = session.buildContext().messages;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["user", "assistant", "toolResult", "toolResult", "user", "assistant", "user", "assistant"],
  );
  const [first, second] = msgs.filter((m): m is ToolResultMessage => m.role === "toolResult");
  assert.equal(first.isError, false);
  assert.match((second.content[0] as { text: string }).text, /Skipped/);
  assert.equal((msgs[4] as { content: string }).content, "stop, do something else");
  assert.equal((msgs[6] as { content: string }).content, "and then this", "the follow-up waited for the model to stop");
});

test("a failed model call can be retried by the host without storing the failed attempt", async (t) => {
  let asked = 0;
  const { session, agent, events } = setup(
    t,
    { turns: [{ text: "par", error: { errorClass: "transient", message: "529 overloaded", status: 529, afterChars: 3 } }, { text: "second try works" }] },
    {
      hooks: {
        onModelError: async (err) => {
          asked++;
          assert.equal(err.errorClass, "transient");
          return { action: "retry" };
        },
      },
    },
  );
  const result = await agent.run({ text: "hi" });
  assert.equal(result.stopReason, "stop");
  assert.equal(asked, 1);
  assert.deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
  assert.ok(events.some((e) => e.type === "message_end" && e.willRetry));
});

test("without a retry, a provider error ends the run with the error stored and reported", async (t) => {
  const { session, agent } = setup(t, { turns: [{ error: { errorClass: "auth", message: "invalid x-api-key", status: 401 } }] });
  const result = await agent.run({ text: "hi" });
  assert.equal(result.stopReason, "error");
  assert.deepEqual(result.error, { message: "invalid x-api-key", errorClass: "auth", status: 401 });
  const last = session.buildContext().messages.at(-1)!;
  assert.equal(last.role === "assistant" && last.stopReason, "error");
});

test("a reply cut at the output limit is continued; the turn guard stops endless tool loops", async (t) => {
  const { session, agent } = setup(t, { turns: [{ text: "part one", stopReason: "length" }, { text: " and the end" }] });
  assert.equal((await agent.run({ text: "long answer" })).stopReason, "stop");
  assert.deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "assistant", "assistant"]);

  const calls: number[] = [];
  const loop = setup(t, { turns: [{ toolCalls: [{ name: "ls", arguments: {} }] }], loop: true }, { maxTurns: 3, hooks: { beforeModelCall: async ({ turn }) => void calls.push(turn) } });
  const result = await loop.agent.run({ text: "loop" });
  assert.equal(result.stopReason, "max_turns");
  assert.deepEqual(calls, [1, 2, 3], "the host hook runs before every model call");
  assert.deepEqual(orphans(loop.session.buildContext().messages), []);
});

test("running twice at once is refused", async (t) => {
  const { agent } = setup(t, { turns: [{ text: "x".repeat(200), delayMs: 1, chunkSize: 5 }] });
  const first = agent.run({ text: "a" });
  await assert.rejects(agent.run({ text: "b" }), /already running/);
  await first;
});

test("a prompt queued while the run ends (in beforeEnd) keeps the run going; what a run leaves queued goes to queueLeft before agent_end", async (t) => {
  let ending = 0;
  const left: { texts: string[]; stopReason: string; aborted: boolean }[] = [];
  const { session, agent, events } = setup(t, { turns: [{ text: "first answer" }, { text: "answer to the late one" }] }, {
    hooks: {
      beforeEnd: async () => {
        // the first end: a follow-up arrives while the host compacts
        if (ending++ === 0) agent.followUp({ text: "late follow-up" });
      },
      queueLeft: (prompts, end) => left.push({ texts: prompts.map((p) => p.text), stopReason: end.stopReason, aborted: end.aborted }),
    },
  });
  const result = await agent.run({ text: "go" });
  assert.equal(result.stopReason, "stop");
  assert.deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.equal(byRole(session, "user")[1], "late follow-up");
  assert.equal(types(events).filter((e) => e === "agent_start").length, 1, "one run");
  assert.deepEqual(left, [], "nothing left");
  assert.equal(ending, 2, "the run's end is checked again after the late prompt's turn");
});

test("queueLeft: on the last allowed turn a steer is not stored (max_turns leaves it queued), and an abort's leftovers say aborted", async (t) => {
  const left: { texts: string[]; stopReason: string; aborted: boolean; beforeEnd: boolean }[] = [];
  let ended = false;
  const { session, agent } = setup(t, { turns: [{ toolCalls: [{ name: "wait", arguments: { ms: 50 } }] }, { text: "never" }] }, {
    tools: [slow as Tool],
    maxTurns: 1,
    hooks: { queueLeft: (prompts, end) => left.push({ texts: prompts.map((p) => p.text), stopReason: end.stopReason, aborted: end.aborted, beforeEnd: !ended }) },
  });
  agent.on((e) => {
    if (e.type === "agent_end") ended = true;
    if (e.type === "tool_execution_start") agent.steer({ text: "steer on the last turn" });
  });
  const result = await agent.run({ text: "go" });
  assert.equal(result.stopReason, "max_turns");
  assert.deepEqual(byRole(session, "user"), ["go"], "the steer is not stored: no model call of this run would answer it");
  assert.deepEqual(left, [{ texts: ["steer on the last turn"], stopReason: "max_turns", aborted: false, beforeEnd: true }]);
  assert.deepEqual(agent.pending, { steer: 0, followUp: 0 }, "handed over, not kept");

  left.length = 0;
  const aborting = setup(t, { turns: [{ toolCalls: [{ name: "wait", arguments: { ms: 100 } }] }] }, {
    tools: [slow as Tool],
    hooks: { queueLeft: (prompts, end) => left.push({ texts: prompts.map((p) => p.text), stopReason: end.stopReason, aborted: end.aborted, beforeEnd: true }) },
  });
  aborting.agent.on((e) => {
    if (e.type !== "tool_execution_start") return;
    aborting.agent.followUp({ text: "follow-up before the abort" });
    aborting.agent.abort();
  });
  assert.equal((await aborting.agent.run({ text: "go" })).stopReason, "aborted");
  assert.deepEqual(left, [{ texts: ["follow-up before the abort"], stopReason: "aborted", aborted: true, beforeEnd: true }]);
});

function byRole(session: SessionFile, role: "user"): string[] {
  return session.buildContext().messages.filter((m) => m.role === role).map((m) => (m as { content: string }).content);
}

test("a tool without zod (JSON Schema and its own check, as an MCP server's will be) is offered to the model as it describes itself, and run", async (t) => {
  const inputSchema = { type: "object" as const, properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false };
  const seen: unknown[] = [];
  const lookup: Tool<{ q: string }> = {
    name: "notes__search",
    description: "searches notes",
    effects: "read",
    inputSchema,
    parse: (args) => {
      seen.push(args);
      if (typeof (args as { q?: unknown }).q !== "string") throw new Error("q must be a string");
      return args as { q: string };
    },
    execute: async (p) => ({ content: [{ type: "text", text: `found ${p.q}` }] }),
  };
  assert.deepEqual(toolSpecsOf([lookup as Tool]), [{ name: "notes__search", description: "searches notes", inputSchema }]);
  const { session, agent } = setup(t, { turns: [{ toolCalls: [{ name: "notes__search", arguments: { q: "port" } }] }, { text: "done" }] }, { tools: [lookup as Tool] });
  assert.equal((await agent.run({ text: "search" })).stopReason, "stop");
  assert.deepEqual(seen, [{ q: "port" }]);
  const result = session.buildContext().messages.find((m): m is ToolResultMessage => m.role === "toolResult");
  assert.equal((result?.content[0] as { text: string }).text, "found port");
  assert.equal(agent.effectsOf("notes__search"), "read");
  assert.equal(agent.effectsOf("no-such-tool"), "unknown");
});
