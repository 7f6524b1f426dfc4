// Secrets in the tool environment: bash (the model's, and the user's own `bash` method, whose
// output goes into the transcript the model reads) gets an allow-list of the daemon's
// environment (PATH, HOME, locale, terminal...) plus the user's allowEnv, minus secretEnv and
// minus pith's never-list (PITH_*, PG*, the API keys, the agent sockets), which allowEnv cannot
// lift. A fleet daemon's PITH_STORE (the database URL with its password) used to be visible.
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
  PITH_STORE: "postgres://pith:store-password-577@db.internal/pith",
  PGPASSWORD: "pg-password-value-1414",
  SSH_AUTH_SOCK: "/tmp/ssh-agent-sock-1732",
  DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/0/bus-2236",
  XYZ_SECRET: "xyz-secret-value-2449",
  PITH_CLUSTER_TOKEN: "cluster-token-value-3316",
};

test("toolEnvironment keeps the fixed allow-list only", () => {
  const env = toolEnvironment({ PATH: "/bin", HOME: "/h", LANG: "C.UTF-8", LC_ALL: "C", TERM: "xterm", ANTHROPIC_API_KEY: "k", PITH_TOKEN: "t", PITH_STORE: "postgres://u:p@h/d", PGPASSWORD: "p", X: "1", PWD: "/old" });
  assert.deepEqual(env, { PATH: "/bin", HOME: "/h", LANG: "C.UTF-8", LC_ALL: "C", TERM: "xterm" });
});

test("allowEnv adds names, even credential-like ones named exactly; never PITH_*, PG*, the API keys or the agent sockets; secretEnv wins", () => {
  const env = toolEnvironment(
    { PATH: "/bin", X: "1", NPM_TOKEN: "n", PITH_STORE: "s", PGPASSWORD: "p", SSH_AUTH_SOCK: "/s", DBUS_SESSION_BUS_ADDRESS: "d", ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "o", Y: "2", LC_SECRET: "c" },
    { allow: ["X", "NPM_TOKEN", "PITH_STORE", "PGPASSWORD", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "Y"], secret: ["Y"] },
  );
  assert.deepEqual(env, { PATH: "/bin", X: "1", NPM_TOKEN: "n" });
});

/** `env` run by the model and by the user in a daemon with these settings; both outputs. */
async function envSeenByTools(t: Parameters<typeof tempDir>[0], settings: object): Promise<{ model: string; user: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, settings);
  // --store file wins over PITH_STORE: the daemon runs on files, its environment still holds the URL
  const d = startRpcDaemon(t, { home, fake, cwd, args: ["--store", "file"], env: { ...SECRETS, PITH_VISIBLE_MARKER: "visible-42", MY_PROJECT_FLAG: "flag-value-42" } });
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

test("`env` in the model's bash and in the user's bash shows none of the daemon's secrets: the store URL, PG*, the agent sockets, the tokens, the API key; an allowEnv name is given", async (t) => {
  const { model, user } = await envSeenByTools(t, { ...FLOW_SETTINGS, allowEnv: ["MY_PROJECT_FLAG"] });
  for (const [where, out] of Object.entries({ model, user })) {
    // the fake API's key is "test-key": the daemon has it in its environment
    assert.doesNotMatch(out, /ANTHROPIC_API_KEY|test-key/, `${where}: the API key`);
    for (const [name, value] of Object.entries(SECRETS)) {
      assert.ok(!out.includes(name) && !out.includes(value), `${where}: ${name} leaked:\n${out}`);
    }
    assert.doesNotMatch(out, /PITH_VISIBLE_MARKER/, `${where}: a name nobody allowed is not given`);
    assert.match(out, /MY_PROJECT_FLAG=flag-value-42/, `${where}: a name in allowEnv is given`);
    assert.match(out, /^PATH=/m, `${where}: the fixed set is given`);
  }
});

test("allowEnv cannot lift the never-list; secretEnv removes even an allowed name", async (t) => {
  const { model, user } = await envSeenByTools(t, { ...FLOW_SETTINGS, allowEnv: ["PITH_STORE", "PGPASSWORD", "SSH_AUTH_SOCK", "MY_DEPLOY_KEY", "MY_PROJECT_FLAG"], secretEnv: ["MY_PROJECT_FLAG"] });
  for (const [where, out] of Object.entries({ model, user })) {
    for (const name of ["PITH_STORE", "PGPASSWORD", "SSH_AUTH_SOCK"] as const) assert.ok(!out.includes(SECRETS[name]), `${where}: ${name} leaked:\n${out}`);
    assert.doesNotMatch(out, /MY_PROJECT_FLAG/, `${where}: secretEnv wins over allowEnv`);
    assert.match(out, /MY_DEPLOY_KEY=deploy-key-value-1618/, `${where}: a credential-like name the user allowed by name is given`);
  }
});
