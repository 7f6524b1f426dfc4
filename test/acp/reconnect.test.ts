// A reconnect in a new process restores what the client set (issue 22): the permission mode, the
// model (set with session/set_model and with the "model" config option), the thinking level and
// automatic compaction are stored when they are set, so a `pith acp` started after the first one
// was killed (SIGKILL: nothing written at exit) reports them from session/load and session/resume
// (currentModeId, models.currentModelId, configOptions), sends the next prompt to that model, and
// asks before the next write in ask mode. `models` is read from the lines as sent: the SDK's
// client drops the field.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

const OTHER_MODEL = { id: "other-model", contextWindow: 50_000, maxOutputTokens: 4_000 };

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const option = (opts: readonly acp.SessionConfigOption[] | null | undefined, id: string) => opts?.find((o) => o.id === id)?.currentValue;

/** The `models.currentModelId` of the latest response that carried `models`, as sent. */
function sentModel(a: AcpDaemon): string | undefined {
  let current: string | undefined;
  for (const l of a.stdoutLines) {
    const m = JSON.parse(l) as { result?: { models?: { currentModelId?: string } } };
    if (m.result?.models) current = m.result.models.currentModelId;
  }
  return current;
}

interface Setup {
  home: string;
  cwd: string;
  start(clientCapabilities?: acp.ClientCapabilities): Promise<AcpDaemon>;
}

function setup(t: TestContext): Setup {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, models: [SMALL_MODEL, OTHER_MODEL], model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  return {
    home,
    cwd,
    start: async (clientCapabilities) => {
      const a = await startAcp(t, { home, fake, cwd, ...(clientCapabilities ? { clientCapabilities } : {}) });
      t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
      t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid and lossless as sent"));
      return a;
    },
  };
}

/** Ends the process the hard way: whatever it stores must be stored before it answers. */
async function kill(a: AcpDaemon): Promise<void> {
  if (a.proc.exitCode !== null || a.proc.signalCode !== null) return;
  const exited = once(a.proc, "exit");
  a.proc.kill("SIGKILL");
  await exited;
}

interface Expected {
  mode: string;
  model: string;
  thinking: string;
  autocompact: string | boolean;
}

function assertRestored(a: AcpDaemon, r: acp.LoadSessionResponse | acp.ResumeSessionResponse, want: Expected, how: string): void {
  assert.equal(r.modes?.currentModeId, want.mode, `${how}: currentModeId`);
  assert.equal(sentModel(a), want.model, `${how}: models.currentModelId`);
  assert.equal(option(r.configOptions, "model"), want.model, `${how}: the model config option`);
  assert.equal(option(r.configOptions, "thought_level"), want.thinking, `${how}: the thought_level config option`);
  assert.equal(option(r.configOptions, "autocompact"), want.autocompact, `${how}: the autocompact config option`);
}

test("mode, model (session/set_model), thinking level and auto-compaction set in one process come back in a new one after SIGKILL, by load and by resume; the next write asks", async (t) => {
  const { cwd, start } = setup(t);
  const a = await start();
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  assert.equal(s.modes?.currentModeId, "auto");
  assert.equal(sentModel(a), SMALL_MODEL.id);
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
  await a.request("session/set_model", { sessionId: s.sessionId, modelId: OTHER_MODEL.id });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "high" });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "autocompact", value: "off" });
  await kill(a);
  const want: Expected = { mode: "ask", model: OTHER_MODEL.id, thinking: "high", autocompact: "off" };

  const b = await start();
  const loaded = await b.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  assertRestored(b, loaded, want, "session/load in a new process");
  const asked: acp.RequestPermissionRequest[] = [];
  b.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "reject_once" } }));
  const at = fake.requests.length;
  fake.enqueue(toolUseReply("edit", { path: "x.txt", oldText: "a", newText: "b" }), textReply("not edited"));
  const r = await b.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "edit x" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(asked.length, 1, "the edit asked (ask mode restored)");
  assert.equal(asked[0].toolCall.title, "Edit x.txt");
  const sent = fake.requests.slice(at).filter((q) => q.path === "/v1/messages");
  assert.ok(sent.length >= 1);
  for (const q of sent) assert.equal(q.body.model, OTHER_MODEL.id, "the prompt went to the restored model");
  assert.equal(existsSync(join(cwd, "x.txt")), false);
  await kill(b);

  const c = await start();
  const resumed = await c.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assertRestored(c, resumed, want, "session/resume in a new process");
  const askedAgain: acp.RequestPermissionRequest[] = [];
  c.onPermission((req) => (askedAgain.push(req), { outcome: { outcome: "selected", optionId: "reject_once" } }));
  fake.enqueue(toolUseReply("write", { path: "y.txt", content: "y" }), textReply("not written"));
  await c.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "write y" }] });
  assert.equal(askedAgain.length, 1, "the write asked after resume");
  assert.equal(existsSync(join(cwd, "y.txt")), false);
  await kill(c);
});

test("a model and options set through configOptions (a client showing booleans) come back in a new process in both configOptions and models; set back, they come back set back", async (t) => {
  const { cwd, start } = setup(t);
  const booleans: acp.ClientCapabilities = { session: { configOptions: { boolean: {} } } };
  const a = await start(booleans);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  assert.equal(option(s.configOptions, "autocompact"), true, "a boolean for this client");
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: OTHER_MODEL.id });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "low" });
  await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "autocompact", type: "boolean", value: false });
  await a.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "readonly" });
  await kill(a);

  const b = await start(booleans);
  const resumed = await b.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assertRestored(b, resumed, { mode: "readonly", model: OTHER_MODEL.id, thinking: "low", autocompact: false }, "session/resume");
  // set back in this process, through the other way for the model
  await b.request("session/set_model", { sessionId: s.sessionId, modelId: SMALL_MODEL.id });
  await b.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "off" });
  await b.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "autocompact", type: "boolean", value: true });
  await b.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "auto" });
  await kill(b);

  const c = await start(booleans);
  const loaded = await c.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  assertRestored(c, loaded, { mode: "auto", model: SMALL_MODEL.id, thinking: "off", autocompact: true }, "session/load after setting back");
  await kill(c);
});
