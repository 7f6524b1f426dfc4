// The user's own commands (the bash method, Pi's `!cmd`) are not sandboxed, but their output is
// handled like the model's: cut output is kept in the session's own temp dir (private, removed at
// close) instead of the shared temp dir, and output past sandbox.limits.outputMB kills the command.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const OUTPUT_MB = 5;

function spillPath(output: string): string {
  const path = /Full output: (\S+)\]/.exec(output)?.[1];
  assert.ok(path, `the full output's file is named: ${output.slice(-300)}`);
  return path;
}

test("the user's bash: cut output goes to the session's own temp dir, output past outputMB kills it, the dir goes at close", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { limits: { outputMB: OUTPUT_MB } } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });

  const big = await d.peer.request("bash", { sessionId: s.sessionId, command: "seq 1 200000" });
  assert.equal(big.truncated, true);
  const dir = dirname(spillPath(big.output));
  assert.equal(dirname(dir), tmpdir(), "under the OS temp dir");
  assert.match(basename(dir), /^pith-\d+-[0-9a-f]{8,32}-/, "in the session's own directory, not the shared temp dir");
  assert.equal(statSync(dir).mode & 0o777, 0o700);

  const flood = await d.peer.request("bash", { sessionId: s.sessionId, command: "yes 0123456789abcdef | head -c 50000000" });
  assert.match(flood.output, /Command killed: its output passed 5 MiB \(sandbox\.limits\.outputMB\)/, flood.output.slice(-500));
  const floodPath = spillPath(flood.output);
  assert.equal(dirname(floodPath), dir);
  assert.ok(statSync(floodPath).size <= OUTPUT_MB * 1024 * 1024, `spill file of ${statSync(floodPath).size} bytes`);

  await d.peer.request("closeSession", { sessionId: s.sessionId });
  assert.equal(existsSync(dir), false, "removed when the session closed");
  assert.deepEqual(d.peer.violations, []);
  d.endStdin();
  await d.waitExit();
});
