// The model as clients that read `models` see it (agent-shell, acp.el's set-model, the Python
// SDK): SessionModelState in the session/new, load and resume responses, and session/set_model;
// kept in step with the "model" config option. `models` is read from the lines as sent: the
// SDK's client drops what its schema does not know.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { after, before, test, type TestContext } from "node:test";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

const OTHER_MODEL = { id: "other-model", contextWindow: 50_000, maxOutputTokens: 4_000 };

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

interface ModelState {
  currentModelId: string;
  availableModels: { modelId: string; name: string }[];
}

async function acpWith(t: TestContext): Promise<{ a: AcpDaemon; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, models: [SMALL_MODEL, OTHER_MODEL], model: SMALL_MODEL.id });
  const a = await startAcp(t, { home, fake, cwd });
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid and lossless as sent"));
  return { a, cwd };
}

/** The `models` of the responses as sent, in order (the SDK's client drops the field). */
function sentModels(a: AcpDaemon): ModelState[] {
  return a.stdoutLines.flatMap((l) => {
    const m = JSON.parse(l) as { result?: { models?: ModelState } };
    return m.result?.models ? [m.result.models] : [];
  });
}

const modelOption = (options: readonly acp.SessionConfigOption[] | null | undefined) => options?.find((o) => o.id === "model")?.currentValue;
const setModel = (a: AcpDaemon, sessionId: string, modelId: unknown) => a.request<Record<string, unknown>>("session/set_model", { sessionId, modelId });

test("session/new answers `models` with the current model and the known ones, beside configOptions", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const models = sentModels(a);
  assert.equal(models.length, 1, "the session/new response carries models");
  assert.equal(models[0].currentModelId, SMALL_MODEL.id);
  assert.equal(models[0].currentModelId, modelOption(s.configOptions), "in step with the model config option");
  for (const id of [SMALL_MODEL.id, OTHER_MODEL.id]) assert.ok(models[0].availableModels.some((m) => m.modelId === id && m.name.length > 0), id);
});

test("session/set_model changes the model: the next request to the model uses it, and configOptions report it", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const from = a.updates.length;
  const r = await setModel(a, s.sessionId, OTHER_MODEL.id);
  assert.deepEqual(r, {});
  const update = await a.waitUpdate((u) => u.sessionUpdate === "config_option_update", "config_option_update after set_model", from);
  assert.equal(update.sessionUpdate === "config_option_update" ? modelOption(update.configOptions) : undefined, OTHER_MODEL.id);

  const at = fake.requests.length;
  fake.enqueue(textReply("from the other model"));
  await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] });
  const sent = fake.requests.slice(at).filter((q) => q.path === "/v1/messages");
  assert.equal(sent.length, 1);
  assert.equal(sent[0].body.model, OTHER_MODEL.id, "the prompt went to the model set");

  const resumed = await a.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assert.equal(modelOption(resumed.configOptions), OTHER_MODEL.id);
  assert.equal(sentModels(a).at(-1)?.currentModelId, OTHER_MODEL.id);
});

test("a model set through configOptions shows in `models` of a later load and resume; an unknown model id is -32602", async (t) => {
  const { a, cwd } = await acpWith(t);
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const r = await a.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: OTHER_MODEL.id });
  assert.equal(modelOption(r.configOptions), OTHER_MODEL.id);
  await a.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assert.equal(sentModels(a).at(-1)?.currentModelId, OTHER_MODEL.id, "resume");
  await a.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  assert.equal(sentModels(a).length, 3, "new, resume and load all carry models");
  assert.equal(sentModels(a).at(-1)?.currentModelId, OTHER_MODEL.id, "load");

  const isInvalid = (e: acp.RequestError) => e.code === -32602;
  await assert.rejects(setModel(a, s.sessionId, "no-such-model"), isInvalid);
  await assert.rejects(setModel(a, s.sessionId, 42), isInvalid);
  const after = await a.request(acp.methods.agent.session.resume, { sessionId: s.sessionId, cwd });
  assert.equal(modelOption(after.configOptions), OTHER_MODEL.id, "an unknown id changes nothing");
  assert.equal(sentModels(a).at(-1)?.currentModelId, OTHER_MODEL.id);
});
