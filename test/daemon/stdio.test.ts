// The daemon over stdio (`pith --mode rpc`), end to end against the fake Messages API: one daemon
// and one fake server for the whole file, each test in its own session (see
// test/support/daemon-flows.ts for the flows, shared with ws.test.ts).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, Cleanup, FLOW_SETTINGS, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { registerFlowTests } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
let daemon: RpcDaemon;
let cwd: string;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
  const home = tempDir(cleanup, "pith-daemon-home-");
  cwd = tempDir(cleanup, "pith-daemon-cwd-");
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  writeSettings(home, FLOW_SETTINGS);
  daemon = startRpcDaemon(cleanup, { home, fake, cwd });
});

after(async () => {
  if (daemon.exit === null) {
    daemon.endStdin();
    await daemon.waitExit().catch(() => daemon.kill9());
  }
  await fake.close();
  await cleanup.run();
});

test("stdio: initialize answers the version, the server info and the capabilities", async (t) => {
  checkDist(t);
  const init = await daemon.peer.initialize({ permissions: true, hooks: ["beforeCompact"] });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.serverInfo.name, "pith");
  assert.equal(init.capabilities.permissions, true);
  assert.ok(Array.isArray(init.capabilities.hooks));
  assert.ok(Number.isInteger(init.capabilities.replayBufferSize) && init.capabilities.replayBufferSize > 0);
  const models = await daemon.peer.request("listModels", {});
  assert.ok(models.models.some((m: { id: string; contextWindow: number }) => m.id === "small-model" && m.contextWindow === 40_000), "settings.json's models are listed");
});

registerFlowTests("stdio", () => ({ fake, peer: daemon.peer, cwd }));

test("stdio: the daemon is still the same process, and wrote nothing but JSON-RPC to stdout", () => {
  assert.equal(daemon.exit, null);
  assert.deepEqual(daemon.peer.garbage, []);
  assert.equal(daemon.stderr.includes("Error"), false, `stderr: ${daemon.stderr.slice(0, 2000)}`);
});

test("stdio: updateSettings applies to sessions created afterwards (compaction settings, default model)", async () => {
  const peer = daemon.peer;
  const { settings: original } = await peer.request("getSettings", {});
  try {
    const { settings } = await peer.request("updateSettings", { patch: { model: "small-model", compaction: { reserveTokens: 5000 } } });
    assert.equal(settings.model, "small-model");
    assert.equal(settings.compaction?.reserveTokens, 5000);
    assert.equal(settings.compaction?.keepRecentTokens, 200, "merged, not replaced");
    const { sessionId, state } = await peer.request("createSession", { cwd });
    assert.equal(state.model.id, "small-model", "the new default model");
    assert.equal(state.contextWindow, 40_000);
    await peer.request("closeSession", { sessionId });
    const removed = await peer.request("updateSettings", { patch: { model: null } });
    assert.equal(removed.settings.model, undefined, "null removes a key");
  } finally {
    await peer.request("updateSettings", { patch: { model: null, compaction: null } });
    await peer.request("updateSettings", { patch: original });
  }
  assert.deepEqual((await peer.request("getSettings", {})).settings, original);
});

test("stdio: a model added with updateSettings is known to sessions created afterwards", async () => {
  const peer = daemon.peer;
  const { settings: original } = await peer.request("getSettings", {});
  try {
    await peer.request("updateSettings", { patch: { models: [...(original.models ?? []), { id: "tiny-model", contextWindow: 30_000, maxOutputTokens: 2_000 }] } });
    const { models } = await peer.request("listModels", {});
    const { sessionId, state } = await peer.request("createSession", { cwd, model: "tiny-model" });
    await peer.request("closeSession", { sessionId });
    assert.equal(state.contextWindow, 30_000, "the session has the model's window");
    assert.ok(models.some((m: { id: string }) => m.id === "tiny-model"), "listModels lists it");
  } finally {
    await peer.request("updateSettings", { patch: { models: original.models } });
  }
});
