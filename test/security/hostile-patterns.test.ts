// A model-supplied pattern cannot freeze the daemon. Before, `grep {pattern: "^(a+)+$"}` over
// "a"×27 + "!" blocked every session for 4.6 s, and `find` with `*a*a*a…b` over a 36-character
// name for 8.9 s, both doubling with each character, and abort could not stop them. Here the
// inputs are bigger (minutes for a backtracking engine); the daemon must keep answering and end
// the tool. No wall-clock bound is asserted: a frozen daemon misses even the generous safety
// timeouts, a working one answers in milliseconds (npm run bench -- hostile has the figures).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hang, startFakeAnthropic, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { asEvent, byType, FLOW_SETTINGS, startRpcDaemon, textOf, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

async function setup(t: Parameters<typeof tempDir>[0], env: Record<string, string> = {}) {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  writeFileSync(join(cwd, "victim.txt"), `${"a".repeat(40)}!\n`);
  writeFileSync(join(cwd, "a".repeat(48)), "a file with a long name of a's\n");
  const d = startRpcDaemon(t, { home, fake, cwd, env });
  await d.peer.initialize();
  const a = await d.peer.request("createSession", { cwd });
  const b = await d.peer.request("createSession", { cwd });
  return { d, a, b };
}

/** Starts a run whose model calls `tool` once and then waits (a hanging reply), so the run stays open. */
async function startTool(d: Awaited<ReturnType<typeof setup>>["d"], sessionId: string, tool: string, args: object): Promise<number> {
  fake.enqueue(toolUseReply(tool, args), hang());
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId, text: `run ${tool}` });
  await d.peer.waitEvent((e) => e.sessionId === sessionId && e.type === "tool_execution_start", "the tool to start", from);
  return from;
}

test("a backtracking grep pattern (ripgrep, or JavaScript when ripgrep is missing) does not freeze the daemon", async (t) => {
  const { d, a, b } = await setup(t);
  const from = await startTool(d, a.sessionId, "grep", { pattern: "^(a+)+$", path: "victim.txt" });
  const state = await d.peer.request("getState", { sessionId: b.sessionId });
  assert.equal(state.sessionId, b.sessionId, "another session is served");
  const end = asEvent(await d.peer.waitEvent((e) => e.sessionId === a.sessionId && e.type === "tool_execution_end", "the grep to finish", from), "tool_execution_end");
  assert.equal(textOf(end.result), "No matches found");
  await d.peer.request("abort", { sessionId: a.sessionId });
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("the JavaScript engine (no ripgrep): other sessions are answered while it backtracks, and abort ends it", async (t) => {
  const { d, a, b } = await setup(t, { PITH_GREP_ENGINE: "js" });
  const from = await startTool(d, a.sessionId, "grep", { pattern: "^(a+)+$", path: "victim.txt" });
  await d.peer.request("getState", { sessionId: b.sessionId });
  assert.equal(
    d.peer.events.slice(from).some((e) => e.sessionId === a.sessionId && e.type === "tool_execution_end"),
    false,
    "getState was answered while the search was still running",
  );
  await d.peer.request("abort", { sessionId: a.sessionId });
  const end = asEvent(await d.peer.waitEvent((e) => e.sessionId === a.sessionId && e.type === "agent_end", "the run to end after abort", from), "agent_end");
  assert.equal(end.stopReason, "aborted");
  const toolEnd = byType(d.peer.events.slice(from), "tool_execution_end").find((e) => e.sessionId === a.sessionId);
  assert.equal(toolEnd?.isError, true);
  assert.match(textOf(toolEnd!.result), /Aborted/);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("a backtracking find glob does not freeze the daemon", async (t) => {
  const { d, a, b } = await setup(t);
  const from = await startTool(d, a.sessionId, "find", { pattern: `${"*a".repeat(11)}*b` });
  const state = await d.peer.request("getState", { sessionId: b.sessionId });
  assert.equal(state.sessionId, b.sessionId);
  const end = asEvent(await d.peer.waitEvent((e) => e.sessionId === a.sessionId && e.type === "tool_execution_end", "the find to finish", from), "tool_execution_end");
  assert.equal(textOf(end.result), "No files found matching the pattern");
  await d.peer.request("abort", { sessionId: a.sessionId });
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
