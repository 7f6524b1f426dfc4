// The permission mode a client sets is kept in the session: a new daemon process that opens the
// session starts in it (issue 22: after setPermissionMode ask, a reopen said "auto" and the next
// write ran without asking).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test("setPermissionMode ask survives the process: a new daemon opens the session in ask mode and asks before a write", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize({ permissions: true });
  const s = await d.peer.request("createSession", { cwd });
  assert.equal(s.state.permissionMode, "auto");
  assert.deepEqual(await d.peer.request("setPermissionMode", { sessionId: s.sessionId, mode: "ask" }), { mode: "ask" });
  d.endStdin();
  await d.waitExit();

  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize({ permissions: true });
  const asked: string[] = [];
  const askedIn: (string | undefined)[] = [];
  d2.peer.onServerRequest.requestPermission = (p) => {
    asked.push(p.toolName);
    askedIn.push(p.runId);
    return { outcome: "deny" };
  };
  const opened = await d2.peer.request("openSession", { sessionFile: s.sessionFile });
  assert.equal(opened.state.permissionMode, "ask", "openSession's state");
  assert.equal((await d2.peer.request("getState", { sessionId: s.sessionId })).permissionMode, "ask", "getState");
  fake.enqueue(toolUseReply("write", { path: "note.txt", content: "written" }));
  fake.enqueue(textReply("done"));
  const run = await d2.peer.runPrompt(s.sessionId, "write note.txt");
  assert.equal(agentEnd(run.events).stopReason, "stop");
  assert.deepEqual(asked, ["write"], "the write asked");
  assert.deepEqual(askedIn, [run.runId], "the question names the run the call belongs to");
  assert.equal(existsSync(join(cwd, "note.txt")), false, "denied, so not written");

  // set back to auto: the next process starts in auto
  await d2.peer.request("setPermissionMode", { sessionId: s.sessionId, mode: "auto" });
  d2.endStdin();
  await d2.waitExit();
  const d3 = startRpcDaemon(t, { home, fake, cwd });
  await d3.peer.initialize();
  assert.equal((await d3.peer.request("openSession", { sessionFile: s.sessionFile })).state.permissionMode, "auto");
  d3.endStdin();
  await d3.waitExit();
  await drainFake(fake);
});

test("a mode stored in the session never widens the user's configured mode: stored auto opens as ask when settings say ask", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  await d.peer.request("setPermissionMode", { sessionId: s.sessionId, mode: "auto" });
  d.endStdin();
  await d.waitExit();

  writeSettings(home, { ...FLOW_SETTINGS, permissionMode: "ask" });
  const d2 = startRpcDaemon(t, { home, fake, cwd });
  await d2.peer.initialize();
  assert.equal((await d2.peer.request("openSession", { sessionFile: s.sessionFile })).state.permissionMode, "ask");
  d2.endStdin();
  await d2.waitExit();
});
