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
