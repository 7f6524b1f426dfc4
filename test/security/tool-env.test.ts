// Secrets in the tool environment: bash (the model's, and the user's own `bash` method, whose
// output goes into the transcript the model reads) gets the daemon's environment minus pith's
// secrets: the API key variables, the daemon's token, and names the user's settings add.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { toolEnvironment } from "../../src/tools/tool-env.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const SECRETS = {
  ANTHROPIC_AUTH_TOKEN: "auth-token-value-3141",
  PITH_TOKEN: "pith-token-value-2718",
  MY_DEPLOY_KEY: "deploy-key-value-1618",
};

test("toolEnvironment drops pith's secrets and the extra names, keeps the rest", () => {
  const env = toolEnvironment({ PATH: "/bin", ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: "a", PITH_TOKEN: "t", PITH_CLUSTER_TOKEN: "c", X: "1", Y: "2" }, ["Y"]);
  assert.deepEqual(env, { PATH: "/bin", X: "1" });
});

/** `env` run by the model and by the user in a daemon with these settings; both outputs. */
async function envSeenByTools(t: Parameters<typeof tempDir>[0], settings: object): Promise<{ model: string; user: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, settings);
  const d = startRpcDaemon(t, { home, fake, cwd, env: { ...SECRETS, PITH_VISIBLE_MARKER: "visible-42" } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const model = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: "env" });
  assert.equal(model.isError, false, model.text);
  const user = (await d.peer.request("bash", { sessionId: s.sessionId, command: "env" })).output as string;
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
  return { model: model.text, user };
}

test("`env` in the model's bash and in the user's bash shows neither the API key nor the daemon's tokens", async (t) => {
  const { model, user } = await envSeenByTools(t, FLOW_SETTINGS);
  for (const [where, out] of Object.entries({ model, user })) {
    assert.match(out, /PITH_VISIBLE_MARKER=visible-42/, `${where}: the rest of the environment is kept`);
    // the fake API's key is "test-key": the daemon has it in its environment
    assert.doesNotMatch(out, /ANTHROPIC_API_KEY|test-key/, `${where}: the API key`);
    for (const name of ["ANTHROPIC_AUTH_TOKEN", "PITH_TOKEN"] as const) {
      assert.ok(!out.includes(name) && !out.includes(SECRETS[name]), `${where}: ${name} leaked:\n${out}`);
    }
    assert.match(out, /MY_DEPLOY_KEY=deploy-key-value-1618/, `${where}: not a secret unless settings say so`);
  }
});

test("settings' secretEnv removes more names from every tool process", async (t) => {
  const { model, user } = await envSeenByTools(t, { ...FLOW_SETTINGS, secretEnv: ["MY_DEPLOY_KEY"] });
  for (const [where, out] of Object.entries({ model, user })) {
    assert.ok(!out.includes("MY_DEPLOY_KEY") && !out.includes(SECRETS.MY_DEPLOY_KEY), `${where}: MY_DEPLOY_KEY leaked:\n${out}`);
    assert.match(out, /PITH_VISIBLE_MARKER=visible-42/);
  }
});
