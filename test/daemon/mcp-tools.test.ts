// MCP servers through the real daemon over JSON-RPC: real servers written with the official SDK
// (stdio, started by the daemon from the user's settings, and streamable HTTP in this process),
// a model scripted on the fake Messages API calling their tools. One daemon for the whole file.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { byType, Cleanup, poll, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { modelCalls, toolResultsSent } from "../support/model-tools.js";
import { startMcpHttpServer, type McpHttpServer } from "../support/mcp-http-server.js";
import { running } from "../support/processes.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const SERVER = join(repoRoot, "test/support/mcp-server.mjs");
const WIDE = { id: "wide", contextWindow: 2_000_000, maxOutputTokens: 4_000 };

let fake: FakeAnthropic;
let http: McpHttpServer;
let d: RpcDaemon;
let sessionId: string;
let dirs: { home: string; cwd: string; notes: string; cancelLog: string; pids: string };
const pidOf = (name: string) => Number(readFileSync(join(dirs.pids, name), "utf8").trim());

const cleanup = new Cleanup();
before(async () => {
  const t = cleanup;
  fake = await startFakeAnthropic();
  http = await startMcpHttpServer({ bearer: "tok-123" });
  const home = tempDir(t);
  const cwd = tempDir(t);
  dirs = { home, cwd, notes: join(home, "notes"), cancelLog: join(home, "cancel.log"), pids: join(home, "pids") };
  mkdirSync(dirs.notes);
  mkdirSync(dirs.pids);
  const stdio = (name: string, ...args: string[]) => ({ command: process.execPath, args: [SERVER, "--pid-file", join(dirs.pids, name), ...args] });
  writeSettings(home, {
    // windows no test here fills: a compaction would take a scripted reply
    model: "wide",
    models: [WIDE, { ...WIDE, id: "wide-2" }],
    mcpServers: {
      notes: { ...stdio("notes"), env: { NOTES_DIR: dirs.notes, CANCEL_LOG: dirs.cancelLog }, requestTimeoutMs: 1500 },
      // two names that reduce alike: both servers' tools must be there, under distinct names
      "my.db": { ...stdio("my.db", "--only", "echo"), env: {} },
      my_db: { ...stdio("my_db", "--only", "echo") },
      web: { url: http.url, bearerTokenEnv: "WEB_MCP_TOKEN", tools: { deny: ["crash"] } },
      broken: stdio("broken", "--fail-start"),
      fragile: { ...stdio("fragile", "--only", "crash,echo"), requestTimeoutMs: 1500 },
      off: { command: "/nonexistent", enabled: false },
    },
  });
  // a project that tries to add a server of its own
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith/settings.json"), JSON.stringify({ mcpServers: { sneaky: { command: "/bin/sh", args: ["-c", "touch sneaky"] } } }));
  d = startRpcDaemon(t, { home, fake, cwd, env: { WEB_MCP_TOKEN: "tok-123" } });
  await d.peer.initialize({ permissions: true });
  sessionId = (await d.peer.request("createSession", { cwd })).sessionId;
});

after(async () => {
  await cleanup.run();
  await http?.close();
  await fake?.close();
});

test("listMcpServers: the settings' servers, ready with their tools, the failed one with why, the disabled one not started; the project's ignored with a warning", async () => {
  let { servers } = await d.peer.request("listMcpServers", { sessionId });
  for (let i = 0; i < 200 && servers.some((s) => s.state === "connecting"); i++) {
    await new Promise((r) => setTimeout(r, 50));
    ({ servers } = await d.peer.request("listMcpServers", { sessionId }));
  }
  const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
  assert.deepEqual(Object.keys(byName).sort(), ["broken", "fragile", "my.db", "my_db", "notes", "off", "web"]);
  assert.equal(byName.notes.state, "ready");
  assert.equal(byName.notes.transport, "stdio");
  assert.equal(byName.notes.source, "settings");
  const echo = byName.notes.tools.find((t) => t.serverName === "echo");
  assert.deepEqual(echo, { name: "mcp__notes__echo", serverName: "echo", readOnly: true });
  assert.equal(byName.notes.tools.find((t) => t.serverName === "write_note")?.readOnly, false);
  assert.equal(byName.web.state, "ready");
  assert.equal(byName.web.transport, "http");
  assert.ok(!byName.web.tools.some((t) => t.serverName === "crash"), "tools.deny honoured");
  const dbNames = [byName["my.db"].tools[0].name, byName.my_db.tools[0].name];
  assert.equal(new Set(dbNames).size, 2, `distinct names: ${dbNames}`);
  assert.ok(dbNames.every((n) => /^mcp__my_db__echo/.test(n) && n.length <= 64 && /^[A-Za-z0-9_-]+$/.test(n)));
  assert.equal(byName.broken.state, "failed");
  assert.match(byName.broken.error ?? "", /cannot open the database/);
  assert.match(d.stderr, /MCP server broken failed to start/);
  assert.equal(byName.off.state, "disabled");
  assert.equal(existsSync(join(dirs.cwd, "sneaky")), false);
  const { warnings } = await d.peer.request("getSettings", { cwd: dirs.cwd });
  assert.ok(warnings?.some((w) => w.key === "mcpServers" && w.file.endsWith(join(".pith", "settings.json"))), JSON.stringify(warnings));
  // the bearer token went with every HTTP request
  assert.ok(http.headersSeen.length > 0 && http.headersSeen.every((h) => h.authorization === "Bearer tok-123"));
});

test("the model is offered the servers' tools with their schemas and its calls are answered by the servers (stdio and HTTP), both colliding servers included", async () => {
  const from = fake.requests.length;
  const stdio = await modelCalls(d.peer, fake, sessionId, "mcp__notes__echo", { text: "over stdio" });
  assert.deepEqual([stdio.text, stdio.isError], ["echo: over stdio", false]);
  const offered = fake.requests[from].body.tools as { name: string; input_schema: { properties?: object } }[];
  const echo = offered.find((t) => t.name === "mcp__notes__echo");
  assert.ok(echo && echo.input_schema.properties && "text" in echo.input_schema.properties, "schema sent");
  assert.ok(offered.some((t) => t.name === "read"), "built-ins still there");
  assert.ok(!offered.some((t) => t.name.startsWith("mcp__broken") || t.name.startsWith("mcp__sneaky")));
  const web = await modelCalls(d.peer, fake, sessionId, "mcp__web__echo", { text: "over http" });
  assert.deepEqual([web.text, web.isError], ["echo: over http", false]);
  const { servers } = await d.peer.request("listMcpServers", { sessionId });
  for (const name of servers.filter((s) => s.name.startsWith("my")).map((s) => s.tools[0].name)) {
    assert.equal((await modelCalls(d.peer, fake, sessionId, name, { text: name })).text, `echo: ${name}`);
  }
  assert.ok(toolResultsSent(fake, from).some((r) => r.includes("echo: over http")), "the result reached the model");
  const failing = await modelCalls(d.peer, fake, sessionId, "mcp__notes__fail", {});
  assert.deepEqual([failing.text, failing.isError], ["the tool failed on purpose", true]);
});

test("images come back as image blocks; a changed tool list is read again before the next request; progress restarts the timeout", async () => {
  let from = fake.requests.length;
  await modelCalls(d.peer, fake, sessionId, "mcp__notes__image", {});
  const blocks = JSON.parse(toolResultsSent(fake, from)[0]) as { type: string; source?: { media_type: string } }[];
  assert.deepEqual(blocks.map((b) => b.type), ["text", "image"]);
  assert.equal(blocks[1].source?.media_type, "image/png");
  from = fake.requests.length;
  assert.equal((await modelCalls(d.peer, fake, sessionId, "mcp__notes__add_tool", {})).text, "added");
  const names = (i: number) => (fake.requests[i].body.tools as { name: string }[]).map((t) => t.name);
  assert.ok(!names(from).includes("mcp__notes__late"));
  assert.ok(names(from + 1).includes("mcp__notes__late"), "the request after the change offers the new tool");
  assert.equal((await modelCalls(d.peer, fake, sessionId, "mcp__notes__late", {})).text, "late tool");
  // 3 x 700 ms: past the 1500 ms timeout in all, never 1500 ms without a word
  const slow = await modelCalls(d.peer, fake, sessionId, "mcp__notes__progress", { steps: 3, ms: 700 });
  assert.deepEqual([slow.text, slow.isError], ["done after 3 steps", false]);
});

test("permission modes decide from readOnlyHint: ask asks for write_note and not for echo; readonly refuses write_note and runs echo", async () => {
  await d.peer.request("setPermissionMode", { sessionId, mode: "ask" });
  const asked: string[] = [];
  d.peer.onServerRequest.requestPermission = (p) => {
    asked.push(p.toolName);
    return { outcome: "allow" };
  };
  assert.equal((await modelCalls(d.peer, fake, sessionId, "mcp__notes__echo", { text: "no question" })).text, "echo: no question");
  assert.deepEqual(asked, []);
  const wrote = await modelCalls(d.peer, fake, sessionId, "mcp__notes__write_note", { name: "a.txt", text: "asked first" });
  assert.deepEqual(asked, ["mcp__notes__write_note"]);
  assert.equal(wrote.text, "wrote a.txt");
  assert.equal(readFileSync(join(dirs.notes, "a.txt"), "utf8"), "asked first");
  await d.peer.request("setPermissionMode", { sessionId, mode: "readonly" });
  const refused = await modelCalls(d.peer, fake, sessionId, "mcp__notes__write_note", { name: "b.txt", text: "never" });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /Not permitted/);
  assert.equal(existsSync(join(dirs.notes, "b.txt")), false);
  assert.equal((await modelCalls(d.peer, fake, sessionId, "mcp__web__echo", { text: "ro" })).text, "echo: ro");
  await d.peer.request("setPermissionMode", { sessionId, mode: "auto" });
});

test("a 5 MB result reaches the model bounded, with the path of a file its read opens for the rest", async () => {
  const from = fake.requests.length;
  const big = await modelCalls(d.peer, fake, sessionId, "mcp__notes__big", { bytes: 5_000_000 });
  const sent = (JSON.parse(toolResultsSent(fake, from)[0]) as { text: string }[])[0].text;
  assert.ok(Buffer.byteLength(sent) < 60 * 1024, `bounded: ${Buffer.byteLength(sent)} bytes`);
  assert.match(sent, /^BIG-START/);
  assert.match(sent, /BIG-END$/);
  const file = /The full output is in (\S+) \(read it/.exec(big.text)?.[1];
  assert.ok(file, big.text.slice(0, 300));
  assert.equal(readFileSync(file, "utf8").length, 5_000_000);
  const read = await modelCalls(d.peer, fake, sessionId, "read", { path: file, offset: 78_000 });
  assert.equal(read.isError, false, read.text.slice(0, 200));
  assert.match(read.text, /BIG-END/);
});

test("a hung call is cancelled at requestTimeoutMs and by abort: the server is told, the model gets a tool error", async () => {
  const timedOut = await modelCalls(d.peer, fake, sessionId, "mcp__notes__hang", {});
  assert.equal(timedOut.isError, true);
  assert.match(timedOut.text, /did not answer within 1500 ms/);
  await poll(() => (existsSync(dirs.cancelLog) && readFileSync(dirs.cancelLog, "utf8").split("\n").filter(Boolean).length === 1) || undefined, "the server saw the cancellation");

  fake.enqueue(toolUseReply("mcp__notes__hang", {}));
  const mark = d.peer.mark();
  const { runId } = await d.peer.request("prompt", { sessionId, text: "hang" });
  await d.peer.waitEvent((e) => e.type === "tool_execution_start" && e.toolName === "mcp__notes__hang", "the call started", mark);
  const t0 = Date.now();
  await d.peer.request("abort", { sessionId });
  const events = await d.peer.runEvents(sessionId, runId, mark);
  assert.ok(Date.now() - t0 < 2000, `answered within 2 s: ${Date.now() - t0} ms`);
  const end = byType(events, "tool_execution_end")[0];
  assert.equal(end.isError, true);
  await poll(() => (readFileSync(dirs.cancelLog, "utf8").split("\n").filter(Boolean).length === 2) || undefined, "the second cancellation");
});

test("a server that crashes mid-call: a tool error saying so, and the next call finds it restarted", async () => {
  const before = pidOf("notes");
  const crashed = await modelCalls(d.peer, fake, sessionId, "mcp__notes__crash", {});
  assert.equal(crashed.isError, true);
  assert.match(crashed.text, /stopped during the call/);
  const again = await modelCalls(d.peer, fake, sessionId, "mcp__notes__echo", { text: "back" });
  assert.equal(again.text, "echo: back");
  assert.notEqual(pidOf("notes"), before, "a new process");
  assert.equal(running(before), false);
});

test("a server that dies again within a minute of its restart stays failed, and says so", async () => {
  const mark = d.peer.mark();
  assert.match((await modelCalls(d.peer, fake, sessionId, "mcp__fragile__crash", {})).text, /stopped during the call/);
  await modelCalls(d.peer, fake, sessionId, "mcp__fragile__crash", {});
  const failed = await d.peer.waitEvent((e) => e.type === "mcp_server" && e.server.name === "fragile" && e.server.state === "failed", "fragile failed", mark);
  assert.match((failed as { server: { error?: string } }).server.error ?? "", /again within a minute/);
  const { servers } = await d.peer.request("listMcpServers", { sessionId });
  assert.equal(servers.find((s) => s.name === "fragile")?.state, "failed");
  const from = fake.requests.length;
  await modelCalls(d.peer, fake, sessionId, "mcp__notes__echo", { text: "still here" });
  assert.ok(!(fake.requests[from].body.tools as { name: string }[]).some((t) => t.name.startsWith("mcp__fragile")), "its tools are gone from the list");
});

test("an HTTP server that went away is reached again for the next call", async () => {
  await http.restart();
  // its MCP session is gone with it: the call that finds out says so
  const first = await modelCalls(d.peer, fake, sessionId, "mcp__web__echo", { text: "lost" });
  assert.equal(first.isError, true);
  assert.match(first.text, /could not be reached .*reconnecting/);
  const answered = await modelCalls(d.peer, fake, sessionId, "mcp__web__echo", { text: "after restart" });
  assert.deepEqual([answered.text, answered.isError], ["echo: after restart", false]);
});

test("setModel keeps the same server process; closeSession stops every server within 5 s", async () => {
  const pid = pidOf("notes");
  await d.peer.request("setModel", { sessionId, model: "wide-2" });
  assert.equal((await modelCalls(d.peer, fake, sessionId, "mcp__notes__pid", {})).text, String(pid));
  const pids = ["notes", "my.db", "my_db"].map(pidOf);
  const t0 = Date.now();
  await d.peer.request("closeSession", { sessionId });
  await poll(() => (pids.every((p) => !running(p)) ? true : undefined), "servers gone", 5000);
  assert.ok(Date.now() - t0 < 5000);
});

test("reopened without its servers, the session reads, and goes on, with the MCP calls it stored", async () => {
  await d.peer.request("updateSettings", { patch: { mcpServers: null } });
  await d.peer.request("openSession", { sessionId });
  const { servers } = await d.peer.request("listMcpServers", { sessionId });
  assert.deepEqual(servers, []);
  const { messages } = await d.peer.request("getMessages", { sessionId });
  assert.ok(messages.some((m) => m.role === "toolResult" && m.toolName === "mcp__notes__echo"));
  const from = fake.requests.length;
  const gone = await modelCalls(d.peer, fake, sessionId, "mcp__notes__echo", { text: "anyone?" });
  assert.equal(gone.isError, true);
  assert.match(gone.text, /Unknown tool "mcp__notes__echo"/);
  const sent = fake.requests[from].body;
  assert.ok(!(sent.tools as { name: string }[]).some((t) => t.name.startsWith("mcp__")));
  assert.ok(JSON.stringify(sent.messages).includes('"name":"mcp__notes__echo"'), "the stored calls go to the model as they were");
});
