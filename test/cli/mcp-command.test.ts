// `pith mcp` as a user runs it (bin/pith, the compiled CLI): the MCP servers of the user's settings,
// each started from the current directory with the real stdio test server (official SDK), listed
// with their tools or why they failed, a disabled one listed without starting, a project file's
// servers reported as ignored; exit 1 when one failed, 0 when all are ready, 2 for invalid
// settings; and no server left running once it has exited, even one that ignores the end of its
// stdin and SIGTERM.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { McpServerInfo } from "../../protocol/mcp.js";
import "../support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { repoRoot, tempDir } from "../support/tmp.js";
import { runAsUser, type UserRun } from "../support/user-run.js";

const SERVER = join(repoRoot, "test", "support", "mcp-server.mjs");

/** Running and not a zombie (an orphan PID 1 has not reaped yet has ended for us). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

function pidIn(file: string): number {
  assert.ok(existsSync(file), `the server wrote ${file}`);
  return Number(readFileSync(file, "utf8").trim());
}

function show(r: UserRun): string {
  return `exit ${r.status}${r.signal ? ` (${r.signal})` : ""}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`;
}

test("pith mcp starts each server of the user's settings, prints its tools or why it failed, and leaves none running", { timeout: 60_000 }, async (t) => {
  const home = realpathSync(tempDir(t, "pith-mcp-home-"));
  const cwd = realpathSync(tempDir(t, "pith-mcp-cwd-"));
  const goodPid = join(home, "good.pid");
  const brokenPid = join(home, "broken.pid");
  const offPid = join(home, "off.pid");
  const mcpServers = {
    notes: { command: process.execPath, args: [SERVER, "--only", "echo,write_note", "--pid-file", goodPid, "--ignore-end"] },
    broken: { command: process.execPath, args: [SERVER, "--fail-start", "--pid-file", brokenPid] },
    off: { command: process.execPath, args: [SERVER, "--pid-file", offPid], enabled: false },
  };
  writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers }));
  // a repository may not add servers: named, and not started
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith", "settings.json"), JSON.stringify({ mcpServers: { sneaky: { command: process.execPath, args: [SERVER] } } }));

  const r = await runAsUser(["mcp"], { cwd, home });
  assert.equal(r.status, 1, show(r));
  const out = r.stdout;
  assert.match(out, /^notes {2}\(stdio\) {2}ready {2}2 tools$/m, show(r));
  assert.match(out, /^ {2}mcp__notes__echo +echo +read-only$/m, show(r));
  assert.match(out, /^ {2}mcp__notes__write_note +write_note +not read-only/m, show(r));
  assert.match(out, /^broken {2}\(stdio\) {2}failed$/m, show(r));
  assert.match(out, /^ {2}failed: it exited before it was ready \(it said: cannot open the database: \/nope\)$/m, show(r));
  assert.match(out, /^off {2}\(stdio\) {2}disabled \(not started\)$/m, show(r));
  assert.doesNotMatch(out, /sneaky/);
  assert.match(r.stderr, new RegExp(`${join(cwd, ".pith", "settings.json").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} sets "mcpServers".*ignored`), show(r));
  assert.equal(existsSync(offPid), false, "a disabled server is not started");
  const pid = pidIn(goodPid);
  pidIn(brokenPid);
  assert.equal(running(pid), false, `the server (pid ${pid}, which ignores the end of its stdin) is gone once pith mcp exited`);

  // only the good one: exit 0, and --json is what listMcpServers answers
  writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { notes: mcpServers.notes } }));
  const j = await runAsUser(["mcp", "--json"], { cwd, home });
  assert.equal(j.status, 0, show(j));
  const { servers } = JSON.parse(j.stdout) as { servers: McpServerInfo[] };
  assert.deepEqual(servers, [
    {
      name: "notes",
      source: "settings",
      transport: "stdio",
      state: "ready",
      tools: [
        { name: "mcp__notes__echo", serverName: "echo", readOnly: true },
        { name: "mcp__notes__write_note", serverName: "write_note", readOnly: false },
      ],
    },
  ]);
  assert.equal(running(pidIn(goodPid)), false, "gone after the --json run too");

  // settings that are not valid: a usage-class error, said in one line
  writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { bad: { args: ["x"] } } }));
  const bad = await runAsUser(["mcp"], { cwd, home });
  assert.equal(bad.status, 2, show(bad));
  assert.match(bad.stderr, /^pith: invalid settings in .*mcpServers\.bad/m, show(bad));
  assert.equal(bad.stdout, "");
});
