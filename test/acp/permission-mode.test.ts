// The options an ACP client sets are kept in the session across processes: set_mode ask, the
// process exits, a new `pith acp` that loads or resumes the session reports ask (currentModeId)
// and asks before a write (issue 22: the mode came back "auto" and the next edit ran unasked).
// The thinking level and auto-compaction set with set_config_option come back the same way.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
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

const option = (opts: acp.SessionConfigOption[] | null | undefined, id: string) => opts?.find((o) => o.id === id)?.currentValue;

test("set_mode ask, thinking level and auto-compaction survive the process: session/load and session/resume in a new pith acp report them, and a write asks", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  const a = await startAcp(t, { home, fake, cwd });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  assert.equal(s.modes?.currentModeId, "auto");
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "high" });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "autocompact", value: "off" });
  assert.deepEqual(a.violations, []);
  await a.end();

  const b = await startAcp(t, { home, fake, cwd });
  const loaded = await b.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  assert.equal(loaded.modes?.currentModeId, "ask", "session/load in a new process: ask");
  assert.equal(option(loaded.configOptions, "thought_level"), "high");
  assert.equal(option(loaded.configOptions, "autocompact"), "off");
  const asked: acp.RequestPermissionRequest[] = [];
  b.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "reject_once" } }));
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }), textReply("ok, not written"));
  await b.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "write x" }] });
  assert.equal(asked.length, 1, "the write asked");
  assert.equal(existsSync(join(cwd, "x.txt")), false, "rejected: not written");
  assert.deepEqual(b.violations, []);
  await b.end();

  const c = await startAcp(t, { home, fake, cwd });
  const resumed = await c.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assert.equal(resumed.modes?.currentModeId, "ask", "session/resume in a new process: ask");
  assert.equal(option(resumed.configOptions, "thought_level"), "high");
  assert.deepEqual(c.violations, []);
  await c.end();
});
