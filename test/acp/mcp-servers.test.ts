// The editor's MCP servers through `pith acp`, driven by the ACP SDK's client, with real MCP servers
// written with the official SDK (test/support/mcp-server.mjs over stdio, mcp-http-server.ts over
// streamable HTTP in this process): initialize advertises them, session/new connects them, the
// model's calls are answered by them and shown with the server's name, "ask" asks for a tool the
// server did not mark read-only and not for one it did, a server that fails to start and an SSE
// entry are told as notices, bad entries are -32602 naming them, and session/load connects the
// servers it is given while its replay still shows the calls of one it was not.
// One daemon for the file: the tests run in order on its one session.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { clientMcpServers } from "../../src/acp/mcp-servers.js";
import { mcpToolRef } from "../../src/acp/mcp-tool-calls.js";
import { toolCallStart } from "../../src/acp/tool-calls.js";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { startMcpHttpServer, type McpHttpServer } from "../support/mcp-http-server.js";
import { tempDir } from "../support/tmp.js";

const SERVER = fileURLToPath(new URL("../support/mcp-server.mjs", import.meta.url));

const cleanups: (() => unknown)[] = [];
const hooks = { after: (fn: () => unknown) => void cleanups.push(fn) };
let fake: FakeAnthropic;
let web: McpHttpServer;
let a: AcpDaemon;
let cwd: string;
let notesDir: string;
/** the session the tests share */
let sessionId: string;

const notes = (): acp.McpServer => ({ name: "notes", command: process.execPath, args: [SERVER], env: [{ name: "NOTES_DIR", value: notesDir }] });
const text = (t: string): acp.ContentBlock[] => [{ type: "text", text: t }];

before(async () => {
  fake = await startFakeAnthropic();
  web = await startMcpHttpServer();
  const home = tempDir(hooks);
  cwd = tempDir(hooks);
  notesDir = tempDir(hooks);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  a = await startAcp(hooks, { home, fake, cwd, clientCapabilities: { session: { notices: {} } } });
});

after(async () => {
  await drainFake(fake);
  assert.deepEqual(a.violations, [], "every message parsed by the SDK's client");
  assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid and lossless as sent");
  // stdin closed: the daemon closes its sessions, their servers with them
  await a.end();
  for (const fn of cleanups.reverse()) await fn();
  await Promise.all([fake.close(), web.close()]);
});

/** The tool_call updates since `from`, and the last update of each. */
function calls(from: number): { call: Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>; last: acp.SessionUpdate }[] {
  const got = a.since(from, sessionId);
  return got.flatMap((u) => (u.sessionUpdate === "tool_call" ? [{ call: u, last: got.filter((v) => "toolCallId" in v && v.toolCallId === u.toolCallId).at(-1)! }] : []));
}

/** The text of the tool results the i-th model request carried. */
function toolResultsSent(i: number): string {
  const messages = fake.requests[i].body.messages as { role: string; content: unknown }[];
  return JSON.stringify(messages.at(-1)?.content);
}

test("the editor's list as pith's servers by name: variables and headers as records, an SSE entry left out with a note shown, a name given twice keeps the later entry (logged)", () => {
  const { servers, notes: said } = clientMcpServers([
    { name: "db", command: "/usr/bin/db-mcp", args: ["--ro"], env: [{ name: "DB_URL", value: "postgres://x" }] },
    { type: "http", name: "issues", url: "https://mcp.example.com/mcp", headers: [{ name: "X-Team", value: "core" }] },
    { type: "sse", name: "old", url: "https://old.example.com/sse", headers: [] },
    { name: "db", command: "/opt/db-mcp", args: [], env: [] },
  ]);
  assert.deepEqual(servers, { db: { command: "/opt/db-mcp", args: [] }, issues: { url: "https://mcp.example.com/mcp", headers: { "X-Team": "core" } } });
  assert.deepEqual(said.map((n) => [n.server, n.shown]), [["old", true], ["db", false]]);
  assert.match(said[1].message, /more than once; the later entry \(mcpServers\[3\]\) is used/);
  assert.deepEqual(clientMcpServers([]), { servers: undefined, notes: [] });
  assert.throws(() => clientMcpServers([{ name: "__proto__", command: "x", args: [], env: [] }]), /cannot be used/, "never silently lost");
  assert.throws(() => clientMcpServers([{ name: "e", command: "x", args: [], env: [{ name: "A=B", value: "v" }] }]), /mcpServers\[0\] \("e"\): the variable "A=B" is not a valid name/);
});

test("an MCP call's card: the servers' own names where a server lists the tool, else read from mcp__<server>__<tool>; names shown, never obeyed", () => {
  const servers = [{ name: "my.db", source: "client" as const, transport: "stdio" as const, state: "ready" as const, tools: [{ name: "mcp__my_db__run_q", serverName: "run q", readOnly: true }] }];
  const listed = toolCallStart("c1", "mcp__my_db__run_q", { sql: "select 1" }, "/w", "pending", mcpToolRef("mcp__my_db__run_q", servers));
  assert.deepEqual([listed.title, listed.kind, listed.rawInput, listed.locations], ["run q (MCP my.db)", "read", { sql: "select 1" }, undefined]);
  const gone = toolCallStart("c2", "mcp__notes__write_note", { path: "a" }, "/w");
  assert.deepEqual([gone.title, gone.kind, gone.locations], ["write_note (MCP notes)", "other", undefined], "no server lists it: effects unknown, and its path argument is no location of pith's");
  for (const name of ["mcp__x", "mcp____t", "mcp__s__", "read"]) assert.equal(mcpToolRef(name), undefined, name);
  assert.equal(toolCallStart("c3", "mcp__evil__t", {}, "/w", "pending", { server: "ev\u001b]0;x\u0007il", tool: "t\u202e", readOnly: false }).title, "t\\u202e (MCP ev\\x1b]0;x\\x07il)");
});

test("initialize advertises MCP servers over http (stdio is every agent's); SSE is left out, not sent as false", async () => {
  const init = await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { session: { notices: {} } } });
  assert.equal(init.agentCapabilities?.mcpCapabilities?.http, true);
  const sent = a.stdoutLines.map((l) => JSON.parse(l) as { result?: { agentCapabilities?: { mcpCapabilities?: unknown } } }).filter((m) => m.result?.agentCapabilities);
  assert.deepEqual(sent.at(-1)?.result?.agentCapabilities?.mcpCapabilities, { http: true });
});

test("bad entries are -32602 naming the entry; nothing is opened", async () => {
  const before = (await a.request(acp.methods.agent.session.list, {})).sessions.length;
  const refused = async (server: acp.McpServer, message: RegExp) =>
    assert.rejects(a.request(acp.methods.agent.session.new, { cwd, mcpServers: [notes(), server] }), (err: acp.RequestError) => {
      assert.equal(err.code, -32602);
      assert.match(err.message, message);
      return true;
    });
  await refused({ name: "blank", command: "  ", args: [], env: [] }, /mcpServers\[1\] \("blank"\): command is empty/);
  await refused({ type: "http", name: "ftp", url: "ftp://example.com/mcp", headers: [] }, /mcpServers\[1\] \("ftp"\): url "ftp:\/\/example.com\/mcp" is not an http\(s\) URL/);
  await refused({ type: "http", name: "hdr", url: web.url, headers: [{ name: "Bad Header", value: "x" }] }, /mcpServers\[1\] \("hdr"\): the header "Bad Header" is not a valid name/);
  await refused({ name: "", command: "x", args: [], env: [] }, /mcpServers\[1\]: name is empty/);
  assert.equal((await a.request(acp.methods.agent.session.list, {})).sessions.length, before, "no session was created");
});

test("session/new connects the editor's stdio and http servers: the model's calls are answered by them and shown with the server's name; a server that fails to start and an SSE entry are notices", async () => {
  const from = a.updates.length;
  const s = await a.request(acp.methods.agent.session.new, {
    cwd,
    mcpServers: [
      notes(),
      { type: "http", name: "web", url: web.url, headers: [{ name: "X-Team", value: "core" }] },
      { name: "broken", command: process.execPath, args: [SERVER, "--fail-start"], env: [] },
      { type: "sse", name: "old", url: "http://127.0.0.1:9/sse", headers: [] },
    ],
  });
  sessionId = s.sessionId;
  const failed = await a.waitUpdate((u) => u.sessionUpdate === "notice" && /"broken" failed/.test(u.title), "the failure notice", from);
  assert.ok(failed.sessionUpdate === "notice");
  assert.equal(failed.severity, "warning");
  assert.match(failed.description ?? "", /cannot open the database/, "the server's own words");
  await a.waitUpdate((u) => u.sessionUpdate === "notice" && /"old" is not connected.*SSE/.test(u.title), "the SSE notice", from);

  const req0 = fake.requests.length;
  const at = a.updates.length;
  fake.enqueue(toolUseReply("mcp__notes__echo", { text: "from stdio" }), toolUseReply("mcp__web__echo", { text: "from http" }), textReply("done"));
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text("echo twice") });
  assert.equal(r.stopReason, "end_turn");
  const offered = (fake.requests[req0].body.tools as { name: string }[]).map((t) => t.name);
  for (const name of ["mcp__notes__echo", "mcp__notes__write_note", "mcp__web__echo"]) assert.ok(offered.includes(name), `${name} offered: ${offered.join(", ")}`);
  assert.ok(!offered.some((n) => n.startsWith("mcp__broken__") || n.startsWith("mcp__old__")), "nothing of the failed or the SSE server");
  assert.match(toolResultsSent(req0 + 1), /echo: from stdio/, "the stdio server's answer reached the model");
  assert.match(toolResultsSent(req0 + 2), /echo: from http/, "the http server's answer reached the model");
  assert.ok(web.headersSeen.some((h) => h["x-team"] === "core"), "the editor's header was sent");

  const shown = calls(at);
  assert.deepEqual(
    shown.map(({ call }) => [call.title, call.kind, call.rawInput]),
    [
      ["echo (MCP notes)", "read", { text: "from stdio" }],
      ["echo (MCP web)", "read", { text: "from http" }],
    ],
  );
  for (const { last } of shown) assert.ok(last.sessionUpdate === "tool_call_update" && last.status === "completed", JSON.stringify(last));
  assert.match(JSON.stringify(shown[0].last), /echo: from stdio/);
});

test("ask mode: a call of write_note (no readOnlyHint) asks with session/request_permission, echo (read-only) does not", async () => {
  await a.request(acp.methods.agent.session.setMode, { sessionId, modeId: "ask" });
  const asked: acp.RequestPermissionRequest[] = [];
  a.onPermission((req) => (asked.push(req), { outcome: { outcome: "selected", optionId: "allow_once" } }));
  const at = a.updates.length;
  fake.enqueue(toolUseReply("mcp__notes__write_note", { name: "n.txt", text: "hello" }), toolUseReply("mcp__notes__echo", { text: "unasked" }), textReply("noted"));
  await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text("note it") });
  assert.deepEqual(
    asked.map((q) => [q.toolCall.title, q.toolCall.kind, q.toolCall.rawInput]),
    [["write_note (MCP notes)", "other", { name: "n.txt", text: "hello" }]],
    "asked once, for write_note",
  );
  assert.equal(readFileSync(join(notesDir, "n.txt"), "utf8"), "hello", "allowed: the server wrote it");
  const shown = calls(at);
  assert.deepEqual(
    shown.map(({ call, last }) => [call.title, call.status, last.sessionUpdate === "tool_call_update" ? last.status : undefined]),
    [
      ["write_note (MCP notes)", "pending", "completed"],
      ["echo (MCP notes)", "pending", "completed"],
    ],
  );
  // pending until allowed: the question came before write_note ran; echo ran at once
  const echoId = shown[1].call.toolCallId;
  assert.ok(a.since(at, sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === echoId && u.status === "in_progress"));
});

test("session/load with mcpServers connects them; the replay shows the MCP calls by tool and server, those of a server not passed again too", async () => {
  await a.request(acp.methods.agent.session.close, { sessionId });
  const from = a.updates.length;
  await a.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [notes()] });
  const replayed = calls(from).map(({ call }) => [call.title, call.status]);
  assert.deepEqual(replayed, [
    ["echo (MCP notes)", "completed"],
    ["echo (MCP web)", "completed"],
    ["write_note (MCP notes)", "completed"],
    ["echo (MCP notes)", "completed"],
  ]);

  const req0 = fake.requests.length;
  fake.enqueue(toolUseReply("mcp__notes__echo", { text: "after load" }), textReply("again"));
  await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text("echo again") });
  const offered = (fake.requests[req0].body.tools as { name: string }[]).map((t) => t.name);
  assert.ok(offered.includes("mcp__notes__echo") && !offered.includes("mcp__web__echo"), offered.join(", "));
  assert.match(toolResultsSent(req0 + 1), /echo: after load/, "the server the load passed answered");
});

test("a server that dies again soon after its restart is a notice naming it, sent as its state changes", async () => {
  a.onPermission(() => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
  const from = a.updates.length;
  fake.enqueue(toolUseReply("mcp__notes__crash", {}), toolUseReply("mcp__notes__crash", {}), textReply("it keeps dying"));
  await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: text("crash it twice") });
  const notice = await a.waitUpdate((u) => u.sessionUpdate === "notice" && /"notes" failed/.test(u.title), "the notice of the failure", from);
  assert.ok(notice.sessionUpdate === "notice");
  assert.match(notice.description ?? "", /again within a minute of being restarted/);
  assert.equal(a.since(from, sessionId).filter((u) => u.sessionUpdate === "notice").length, 1, "told once");
});
