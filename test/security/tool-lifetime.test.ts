// Tool processes never outlive the daemon, however it dies. Without the sandbox (where a pid
// namespace does the same job) the reaper does: a running command, a background job a finished
// command left behind, and the user's own `bash` are all gone shortly after a kill -9.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, poll, processWithArg, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("after kill -9 of an unsandboxed daemon, no command it started survives (running, background, the user's)", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd, args: ["--sandbox", "off"] });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const tag = `${process.pid % 1000}`;
  const background = `sleep 801.${tag}`;
  const running = `sleep 802.${tag}`;
  const users = `sleep 803.${tag}`;

  // a command that returns at once, leaving a job behind; then one that keeps running
  fake.enqueue(toolUseReply("bash", { command: `nohup ${background} >/dev/null 2>&1 & echo started` }), toolUseReply("bash", { command: running }));
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId: s.sessionId, text: "start things" });
  await d.peer.waitEvent((e) => e.type === "tool_execution_end" && e.toolName === "bash", "the first command to return", from);
  await poll(() => processWithArg(running), "the running command");
  const second = await startRpcDaemon(t, { home, fake, cwd, args: ["--sandbox", "off"] });
  await second.peer.initialize();
  const other = await second.peer.request("createSession", { cwd });
  void second.peer.call("bash", { sessionId: other.sessionId, command: users }, 60_000);
  await poll(() => processWithArg(users), "the user's command in the second daemon");
  assert.ok(processWithArg(background), "the background job is running");

  await d.kill9();
  await poll(() => (processWithArg(background) === undefined && processWithArg(running) === undefined ? true : undefined), "the first daemon's commands to end", 5000);
  assert.equal(s.state.sandbox, "off", "this was the reaper's work, not the sandbox's");
  assert.ok(processWithArg(users), "another daemon's commands are not touched");
  await second.kill9();
  await poll(() => (processWithArg(users) === undefined ? true : undefined), "the user's command to end with its daemon", 5000);
  fake.enqueue(textReply("unused")); // keep the queue shape predictable for drainFake
  await drainFake(fake);
});
