// MCP server processes never outlive what they serve: a daemon that exits stops them, and one
// killed with SIGKILL (no chance to do anything) leaves none behind either, servers that ignore
// the end of their stdin and SIGTERM included (the reaper ends their process groups).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { poll, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { running } from "../support/processes.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const SERVER = join(repoRoot, "test/support/mcp-server.mjs");

async function daemonWithServers(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const stdio = (name: string, ...args: string[]) => ({ command: process.execPath, args: [SERVER, "--pid-file", join(home, name), ...args] });
  writeSettings(home, { mcpServers: { polite: stdio("polite"), stubborn: stdio("stubborn", "--ignore-end") } });
  const cwd = tempDir(t);
  const d = startRpcDaemon(t, { home, cwd });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd });
  for (let i = 0; i < 200; i++) {
    const { servers } = await d.peer.request("listMcpServers", { sessionId });
    if (servers.every((s) => s.state === "ready")) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const pids = ["polite", "stubborn"].map((n) => Number(readFileSync(join(home, n), "utf8")));
  assert.ok(pids.every(running));
  return { d, pids };
}

test("kill -9 of the daemon: its MCP servers are gone within 3 s, one that ignores stdin's end and SIGTERM included", async (t) => {
  const { d, pids } = await daemonWithServers(t);
  await d.kill9();
  const t0 = Date.now();
  await poll(() => (pids.every((p) => !running(p)) ? true : undefined), "servers gone after kill -9", 3000);
  t.diagnostic(`gone ${Date.now() - t0} ms after the daemon died`);
});

test("a daemon that exits stops its sessions' MCP servers", async (t) => {
  const { d, pids } = await daemonWithServers(t);
  d.endStdin();
  assert.equal((await d.waitExit()).code, 0);
  await poll(() => (pids.every((p) => !running(p)) ? true : undefined), "servers gone after exit", 3000);
});
