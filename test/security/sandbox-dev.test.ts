// All memory-backed space a sandboxed command can fill is bounded by sandbox.limits.tmpMB: /tmp
// and /dev/shm are tmpfs of their own whose sizes add up to it, and /dev (a tmpfs as large as half
// the RAM, which no limit counts) is read-only, its device nodes still working. Each is written
// 64 MiB with tmpMB 16. (sandbox-as-user.test.ts runs the same probe as a normal user.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bwrapArgs, DEFAULT_LIMITS, sandboxAvailable } from "../../src/tools/sandbox.js";
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

test("bwrap's arguments: /dev, then its /dev/shm sized within tmpMB, then /dev read-only, before any other mount; its own IPC namespace", (t) => {
  // a real directory: the mounts are checked on disk when the arguments are built
  const app = tempDir(t);
  const policy = { mode: "workspace-write" as const, network: "off" as const, writableRoots: [], limits: { ...DEFAULT_LIMITS, tmpMB: 512 } };
  const args = bwrapArgs(policy, { cwd: app, hidden: [], readOnly: [] }, ["sh"]);
  const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
  const dev = at("--dev", "/dev");
  assert.ok(dev > 0, args.join(" "));
  assert.deepEqual(args.slice(dev + 2, dev + 10), ["--perms", "1777", "--size", String(64 * 1024 * 1024), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]);
  assert.equal(args[at("--tmpfs", "/tmp") - 1], String(448 * 1024 * 1024), "/tmp gets the rest of tmpMB");
  assert.ok(at("--tmpfs", "/tmp") > dev + 9 && at("--bind", app) > dev + 9);
  assert.ok(args.includes("--unshare-ipc"));
  const small = bwrapArgs({ ...policy, limits: { ...DEFAULT_LIMITS, tmpMB: 16 } }, { cwd: app, hidden: [], readOnly: [] }, ["sh"]);
  assert.equal(small[small.indexOf("/dev/shm") - 2], String(4 * 1024 * 1024), "a quarter of a small tmpMB");
});
