// All memory-backed space a sandboxed command can fill is bounded by sandbox.limits.tmpMB: /tmp
// and /dev/shm are tmpfs of their own whose sizes add up to it, and /dev (a tmpfs as large as half
// the RAM, which no limit counts) is read-only, its device nodes still working. Each is written
// 64 MiB with tmpMB 16. (sandbox-as-user.test.ts runs the same probe as a normal user.)
import { after, before, test } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { assertMemoryBounded, MEMORY_BACKED_PROBE, PROBE_TMP_MB } from "../support/memory-backed.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

test(`/dev/shm and /tmp together hold sandbox.limits.tmpMB (${PROBE_TMP_MB} MiB), /dev is read-only`, { skip }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { limits: { tmpMB: PROBE_TMP_MB } } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  const r = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: MEMORY_BACKED_PROBE, timeout: 30 });
  assertMemoryBounded(r.text);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
