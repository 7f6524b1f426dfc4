// The sandbox's network: off by default; on (sandbox.network: true) it is the command's own,
// through slirp4netns, with no path to the host's loopback. The attack: the model's bash
// connects to `pith serve` on 127.0.0.1 (the old default shared the host's network, so it could).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { sandboxAvailable } from "../../src/tools/sandbox.js";
import { isolatedNetworkAvailable } from "../../src/tools/sandbox-net.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, startServeDaemon, writeSettings } from "../support/daemon-client.js";
import { sandboxSummary } from "../../src/host/policy/tool-policy.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

const probe = sandboxAvailable();
const skip = probe.ok ? false : `${probe.reason}; skipping the sandbox tests (CI installs the Debian package bubblewrap)`;
const skipNet = skip || (isolatedNetworkAvailable() ? false : "slirp4netns is not installed (Debian package slirp4netns; CI installs it)");

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** Bash that tries the port over TCP; prints "connected" if it opened. */
const tryPort = (port: number) => `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected) 2>&1; (exec 3<>/dev/tcp/10.0.2.2/${port} && echo connected-via-gateway) 2>&1; true`;

/** The host can reach the daemon's port: what the sandbox cannot is not refused for another reason. */
async function reachable(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => {
      s.destroy();
      resolve();
    });
    s.on("error", reject);
  });
}

for (const network of [undefined, true] as const) {
  const label = network ? "network on (isolated)" : "network off (the default)";
  test(`${label}: the model's bash cannot reach pith serve on 127.0.0.1`, { skip: network ? skipNet : skip }, async (t) => {
    const home = tempDir(t);
    const cwd = tempDir(t);
    writeSettings(home, { ...FLOW_SETTINGS, ...(network !== undefined ? { sandbox: { network } } : {}) });
    const d = await startServeDaemon(t, { home, fake, cwd, stdio: true });
    const peer = d.peer!;
    await peer.initialize();
    await reachable(d.port);
    const s = await peer.request("createSession", { cwd });
    const attack = await modelCalls(peer, fake, s.sessionId, "bash", { command: tryPort(d.port) });
    assert.doesNotMatch(attack.text, /connected/, attack.text);
    assert.match(attack.text, /refused|unreachable/i, attack.text);

    const ifaces = await modelCalls(peer, fake, s.sessionId, "bash", { command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; awk 'NR > 1 && $2 == \"00000000\" { print \"default via \" $1 }' /proc/net/route" });
    if (network) {
      // slirp4netns ran: tap0 is there, with the default route
      assert.match(ifaces.text, /^tap0$/m, ifaces.text);
      assert.match(ifaces.text, /^default via tap0$/m, ifaces.text);
    } else {
      assert.doesNotMatch(ifaces.text, /^(?!lo$)\w+$/m, `only the loopback: ${ifaces.text}`);
    }
    assert.deepEqual(peer.violations, []);
    d.proc.kill("SIGTERM");
    await d.waitExit();
    await drainFake(fake);
  });
}

test("the start banner's line says what the sandbox's network is", { skip }, () => {
  assert.equal(sandboxSummary({}), "sandbox: workspace-write, network off");
  assert.equal(sandboxSummary({ sandbox: { network: false } }), "sandbox: workspace-write, network off");
  assert.equal(sandboxSummary({ sandbox: { mode: "readonly", network: true } }), `sandbox: readonly, network on (${isolatedNetworkAvailable() ? "isolated" : "host network"})`);
  assert.equal(sandboxSummary({ sandbox: { mode: "off", network: true } }), "sandbox: off (the model's bash commands run as you, unconfined)");
});

test("network on without slirp4netns: commands share the host's network, and the daemon says so at start", { skip }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, sandbox: { network: true } });
  // a PATH with node, the shells and bwrap, without slirp4netns (outside /tmp, which the sandbox replaces)
  const bin = mkdtempSync("/var/tmp/pith-bin-");
  t.after(() => rmSync(bin, { recursive: true, force: true }));
  for (const tool of [process.execPath, "/bin/sh", "/bin/bash", "/usr/bin/bwrap"]) symlinkSync(tool, join(bin, tool.split("/").pop()!));
  const d = startRpcDaemon(t, { home, fake, cwd, env: { PATH: bin } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  assert.match(d.stderr, /slirp4netns is not installed: sandboxed commands share the host's network/);
  const port = Number(new URL(fake.url).port);
  const shared = await modelCalls(d.peer, fake, s.sessionId, "bash", { command: `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected) 2>&1` });
  assert.match(shared.text, /connected/, "what the warning says: the host's network, loopback included");
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
