// The protocol package: schema.json is current, params are checked the way the contract says
// (types strict, ids opaque non-empty strings, unknown keys rejected, useful paths), and results
// and events of the shapes the daemon produces parse.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import {
  ErrorCodes,
  EventLine,
  EVENT_NAMES,
  METHOD_NAMES,
  PROTOCOL_VERSION,
  SERVER_REQUEST_NAMES,
  events,
  methods,
  parseParams,
  serverRequests,
  type EventParams,
  type ParamsOf,
  type ParsedParamsOf,
  type ResultOf,
} from "../../protocol/index.js";
import { renderSchema } from "../../scripts/gen-schema.js";
import { repoRoot, tempDir } from "../support/tmp.js";

function runGenerator(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/gen-schema.ts", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

test("protocol/schema.json is up to date (npm run schema regenerates it)", async () => {
  const r = await runGenerator(["--check"]);
  assert.equal(r.status, 0, `schema.json is stale:\n${r.stderr}`);
});

test("--check fails, and says so, when the file differs or is missing", async (t) => {
  const dir = tempDir(t);
  const stale = join(dir, "schema.json");
  writeFileSync(stale, renderSchema().replace('"protocolVersion": 1', '"protocolVersion": 0'));
  const r = await runGenerator(["--check", "--out", stale]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /is stale: run `npm run schema`/);
  const missing = await runGenerator(["--check", "--out", join(dir, "nope.json")]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /is missing/);
});

test("the generated document is deterministic and covers the contract", () => {
  const a = renderSchema();
  assert.equal(a, renderSchema());
  assert.ok(a.endsWith("}\n"));
  const doc = JSON.parse(a) as Record<string, Record<string, Record<string, unknown>>>;
  assert.deepEqual(Object.keys(doc.methods).sort(), [...METHOD_NAMES].sort());
  assert.deepEqual(Object.keys(doc.events).sort(), [...EVENT_NAMES].sort());
  assert.deepEqual(Object.keys(doc.serverRequests).sort(), [...SERVER_REQUEST_NAMES].sort());
  // params are described as clients write them: defaulted keys are optional
  const nav = doc.methods.navigateTree.params as { required: string[]; additionalProperties: boolean };
  assert.deepEqual(nav.required.sort(), ["sessionId", "targetId"]);
  assert.equal(nav.additionalProperties, false);
  assert.equal((doc.errors.SessionNotFound as { code: number }).code, -32010);
  // every $ref resolves inside the document
  const refs = a.match(/"\$ref": "[^"]+"/g) ?? [];
  for (const ref of refs) {
    const id = /#\/\$defs\/([^"]+)/.exec(ref)?.[1];
    assert.ok(id && id in (doc.$defs as object), `dangling ${ref}`);
  }
});

test("the contract's names: methods, events, server requests, error codes", () => {
  assert.equal(PROTOCOL_VERSION, 1);
  assert.deepEqual(
    [...METHOD_NAMES].sort(),
    [
      "abort", "bash", "closeSession", "compact", "createSession", "deleteSession", "forkSession", "getHistory", "getMessages", "getSessionStats",
      "getSettings", "getState", "getTree", "initialize", "listMcpServers", "listModels", "listSessions", "navigateTree", "openSession", "prompt",
      "setAutoCompactionEnabled", "setCompactionThreshold", "setLabel", "setModel", "setPermissionMode", "setSessionName", "setThinkingLevel", "subscribe",
      "unsubscribe", "updateSettings",
    ],
  );
  assert.deepEqual(
    [...EVENT_NAMES].sort(),
    [
      "agent_end", "agent_start", "branch_summary_end", "branch_summary_start", "compaction_end", "compaction_skipped", "compaction_start", "compaction_update", "error",
      "mcp_server", "message_end", "message_start", "message_update", "prompts_dropped", "queue_update", "request_resolved", "retry_end", "retry_start", "tool_execution_end", "tool_execution_start",
      "tool_execution_update", "turn_end", "turn_start", "usage_update",
    ],
  );
  assert.deepEqual([...SERVER_REQUEST_NAMES].sort(), ["beforeCompact", "requestPermission"]);
  assert.deepEqual(ErrorCodes, {
    ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602, InternalError: -32603,
    NotInitialized: -32002, SessionNotFound: -32010, SessionBusy: -32011, NothingToCompact: -32012, EntryNotFound: -32013,
    ProviderError: -32014, SessionLocked: -32015, Aborted: -32016, CompactionSkipped: -32017,
    SessionMoved: -32018, Forbidden: -32019, ReplyTooLarge: -32020, ContextFull: -32021,
  });
});

// -- params --

function ok<M extends keyof typeof methods>(method: M, params: unknown): ParsedParamsOf<M> {
  const r = parseParams(method, params);
  if (!r.ok) assert.fail(`${method} rejected ${JSON.stringify(params)}: ${r.error.message}`);
  return r.params;
}

function bad(method: keyof typeof methods, params: unknown) {
  const r = parseParams(method, params);
  assert.ok(!r.ok, `${method} accepted ${JSON.stringify(params)}`);
  assert.equal(r.error.code, -32602);
  return r.error;
}

test("representative valid params parse, with the contract's defaults", () => {
  const init = ok("initialize", { protocolVersion: 1, clientInfo: { name: "vscode-pith", version: "0.3.0" } });
  assert.deepEqual(init.capabilities, { permissions: false, hooks: [] });
  assert.deepEqual(ok("initialize", { protocolVersion: 1, clientInfo: { name: "web" }, capabilities: { permissions: true, hooks: ["beforeCompact"] } }).capabilities, {
    permissions: true,
    hooks: ["beforeCompact"],
  });
  assert.deepEqual(ok("createSession", {}), {});
  assert.deepEqual(ok("createSession", undefined), {}, "absent params are {}");
  ok("createSession", { cwd: "/work/app", model: "claude-opus-4-5", name: "refactor" });
  ok("openSession", { sessionFile: "/home/u/.pith/sessions/x.jsonl" });
  ok("openSession", { sessionId: "0198c5a0-1234" });
  ok("prompt", { sessionId: "s1", text: "hello", images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], delivery: "steer" });
  assert.equal(ok("navigateTree", { sessionId: "s1", targetId: "e1" }).summarize, false);
  ok("subscribe", { sessionId: "s1", afterSeq: 0 });
  ok("setLabel", { sessionId: "s1", entryId: "e1" });
  ok("setThinkingLevel", { sessionId: "s1", level: "xhigh" });
  ok("setPermissionMode", { sessionId: "s1", mode: "readonly" });
  ok("listModels", {});
  ok("updateSettings", { patch: { model: null, compaction: { reserveTokens: 20000, prune: { enabled: true } } } });
  ok("bash", { sessionId: "s1", command: "ls -la" });
  ok("listMcpServers", { sessionId: "s1" });
  ok("createSession", { mcpServers: { a: { command: "node", args: ["s.js"], env: { X: "1" }, passEnv: ["T"] }, b: { url: "https://h/mcp", headers: { X: "y" }, bearerTokenEnv: "B", tools: { deny: ["x"] } } } });
  ok("openSession", { sessionId: "s1", mcpServers: { a: { command: "x", enabled: false, startupTimeoutMs: 500 } } });
});

test("an MCP server entry is either a command or an http(s) URL, and nothing else", () => {
  bad("createSession", { mcpServers: { a: { command: "x", url: "https://h/mcp" } } });
  bad("createSession", { mcpServers: { a: { url: "ftp://h/mcp" } } });
  bad("createSession", { mcpServers: { a: { command: "" } } });
  bad("createSession", { mcpServers: { a: { command: "x", requestTimeoutMs: 0 } } });
  bad("createSession", { mcpServers: { "": { command: "x" } } });
});

test("prompt without text: -32602 naming text", () => {
  const e = bad("prompt", { sessionId: "s1" });
  assert.match(e.message, /^invalid params for prompt: text: /);
  assert.ok(e.data.properties?.text?.errors[0], JSON.stringify(e.data));
  bad("prompt", { sessionId: "s1", text: "" });
});

test("createSession with a numeric cwd: the path is cwd", () => {
  const e = bad("createSession", { cwd: 42 });
  assert.match(e.message, /cwd: Invalid input: expected string, received number/);
  assert.deepEqual(e.data.properties?.cwd?.errors, ["Invalid input: expected string, received number"]);
});

test("an unknown extra key is rejected and named (typos surface)", () => {
  const e = bad("getState", { sessionId: "s1", sesionId: "s1" });
  assert.match(e.message, /Unrecognized key: "sesionId"/);
  assert.match(e.data.errors.join(" "), /sesionId/);
  const nested = bad("updateSettings", { patch: { compaction: { reserveTokns: 1 } } });
  assert.match(nested.message, /patch\.compaction: Unrecognized key: "reserveTokns"/);
  bad("initialize", { protocolVersion: 1, clientInfo: { name: "x" }, capabilities: { permission: true } });
});

test("ids are non-empty strings: empty or wrong-typed ids are -32602; a session id is 1 to 128 of A-Z a-z 0-9 _ -", () => {
  const e = bad("getState", { sessionId: "" });
  assert.match(e.message, /sessionId: a session id is 1 to 128 of A-Z a-z 0-9 _ -/);
  assert.ok(e.data.properties?.sessionId);
  bad("getState", { sessionId: 7 });
  bad("forkSession", { sessionId: "s1", entryId: "" });
  bad("getState", {});
  // a session id names a file and a row: a fixed alphabet, so no path can be built from a hostile one
  bad("getState", { sessionId: "../../etc/x" });
  bad("getState", { sessionId: "a b" });
  bad("getState", { sessionId: "x".repeat(129) });
  // otherwise no format is imposed (an unknown id is the daemon's -32010 / -32013, not -32602)
  ok("getState", { sessionId: "not-a-uuid_at-all" });
  ok("navigateTree", { sessionId: "s", targetId: "deadbeef" });
});

test("other rejections: bad enum, wrong protocol version, both openSession forms, positional params, image index path", () => {
  assert.match(bad("setThinkingLevel", { sessionId: "s1", level: "max" }).message, /level: /);
  assert.match(bad("prompt", { sessionId: "s1", text: "x", delivery: "later" }).message, /delivery: /);
  const v = bad("initialize", { protocolVersion: 2, clientInfo: { name: "x" } });
  assert.match(v.message, /protocolVersion: unsupported protocol version; this server speaks 1/);
  bad("initialize", { protocolVersion: "1", clientInfo: { name: "x" } });
  bad("initialize", { protocolVersion: 1.5, clientInfo: { name: "x" } });
  bad("initialize", { protocolVersion: 1 });
  const both = bad("openSession", { sessionId: "a", sessionFile: "/b" });
  assert.match(both.message, /expected exactly one of sessionFile, sessionId \(Unrecognized key: "sessionId" \| Unrecognized key: "sessionFile"\)/);
  const neither = bad("openSession", {});
  assert.ok(neither.data.properties?.sessionFile && neither.data.properties?.sessionId);
  assert.match(bad("getState", ["s1"]).message, /expected object, received array/);
  const img = bad("prompt", { sessionId: "s1", text: "x", images: [{ type: "image", data: "AA==", mimeType: "image/png" }, { type: "image", data: "AA==", mimeType: "image/tiff" }] });
  assert.match(img.message, /images\[1\]\.mimeType: /);
  assert.equal(img.data.properties?.images?.items?.[0], undefined);
  assert.ok(img.data.properties?.images?.items?.[1]?.properties?.mimeType);
  bad("subscribe", { sessionId: "s1", afterSeq: -1 });
  bad("listModels", { verbose: true });
});

// -- results, events, server requests --

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const assistant = { role: "assistant", content: [{ type: "text", text: "hi" }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: 1 };

test("results of the shapes the daemon produces parse", () => {
  const state: ResultOf<"getState"> = methods.getState.result.parse({
    sessionId: "s1",
    sessionFile: "/x.jsonl",
    cwd: "/w",
    model: { id: "scripted", provider: "scripted", contextWindow: 20000 },
    thinkingLevel: "off",
    isRunning: false,
    isCompacting: false,
    autoCompactionEnabled: true,
    permissionMode: "auto",
    leafId: null,
    messageCount: 0,
    contextTokens: 0,
    contextWindow: 20000,
    pending: { steer: 0, followUp: 0 },
    streamId: "3f2a6c1e-0000-4000-8000-000000000000",
    sandbox: "workspace-write",
  });
  assert.equal(state.leafId, null);
  methods.createSession.result.parse({ sessionId: "s1", sessionFile: "/x.jsonl", state });
  methods.getMessages.result.parse({
    messages: [
      { role: "user", content: "hi", timestamp: 1 },
      assistant,
      { role: "bashExecution", command: "ls", output: "", cancelled: false, truncated: false, timestamp: 2 },
      { role: "compactionSummary", summary: "s", tokensBefore: 100, timestamp: 3, someFutureField: true },
    ],
  });
  methods.getTree.result.parse({ leafId: "b", entries: [{ id: "a", parentId: null, type: "message", timestamp: "2026-01-01T00:00:00.000Z", role: "user", preview: "hi", depth: 0 }] });
  methods.compact.result.parse({ summary: "s", firstKeptEntryId: "e9", tokensBefore: 1000, tokensAfter: 200, details: { readFiles: [], modifiedFiles: ["a.ts"], userMessages: ["do it"] } });
  methods.subscribe.result.parse({ subscribed: true, replayed: 0, gap: true, lastSeq: 41, streamId: "3f2a6c1e-0000-4000-8000-000000000000" });
  methods.bash.result.parse({ output: "", exitCode: null, cancelled: true, truncated: false, entryId: "e1" });
  // loose message objects keep unknown fields
  const m = methods.getMessages.result.parse({ messages: [{ role: "user", content: "x", timestamp: 1, extra: 1 }] });
  assert.equal((m.messages[0] as Record<string, unknown>).extra, 1);
  assert.throws(() => methods.getMessages.result.parse({ messages: [{ role: "robot", content: "x", timestamp: 1 }] }));
});

test("events carry sessionId and seq; a json-mode line is params plus type", () => {
  for (const name of EVENT_NAMES) {
    const shape = events[name].shape as Record<string, unknown>;
    assert.ok("sessionId" in shape && "seq" in shape, name);
  }
  const end: EventParams<"agent_end"> = events.agent_end.parse({ sessionId: "s1", seq: 9, runId: "r1", stopReason: "error", error: { message: "overloaded", errorClass: "transient", status: 529 }, usage });
  assert.equal(end.error?.status, 529);
  events.compaction_end.parse({ sessionId: "s1", seq: 3, reason: "manual", aborted: false, willRetry: false, result: { summary: "s", firstKeptEntryId: "e", tokensBefore: 9, tokensAfter: 2, details: {} } });
  events.message_update.parse({ sessionId: "s1", seq: 4, runId: "r1", message: assistant, delta: { type: "text", contentIndex: 0, text: "h" } });
  assert.throws(() => events.agent_start.parse({ sessionId: "s1", runId: "r1" }), "seq is required");
  assert.throws(() => events.turn_start.parse({ sessionId: "s1", seq: 0, runId: "r1", turn: 1 }), "seq starts at 1");
  const line = EventLine.parse({ type: "usage_update", sessionId: "s1", seq: 5, contextTokens: 1200, contextWindow: 200000 });
  assert.equal(line.type, "usage_update");
  assert.throws(() => EventLine.parse({ type: "no_such_event", sessionId: "s1", seq: 1 }));
});

test("server requests: params the server sends, answers it accepts", () => {
  serverRequests.requestPermission.params.parse({ sessionId: "s1", toolCallId: "t1", toolName: "bash", args: { command: "rm -rf build" } });
  assert.equal(serverRequests.requestPermission.result.parse({ outcome: "allowAlways" }).outcome, "allowAlways");
  assert.equal(serverRequests.requestPermission.result.parse({ outcome: "cancel" }).outcome, "cancel");
  assert.throws(() => serverRequests.requestPermission.result.parse({ outcome: "yes" }));
  const r = serverRequests.beforeCompact.result.parse({ action: "replace", summary: "mine", details: { by: "hook" } });
  assert.equal(r.action, "replace");
  assert.throws(() => serverRequests.beforeCompact.result.parse({ action: "replace" }), "replace needs a summary");
  serverRequests.beforeCompact.result.parse({ action: "cancel" });
});

// compile-time: the helper types follow the schemas
type Assert<T extends true> = T;
type Eq<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type _typeChecks = [
  Assert<Eq<ParamsOf<"prompt">["delivery"], "steer" | "followUp" | undefined>>,
  Assert<Eq<ParamsOf<"navigateTree">["summarize"], boolean | undefined>>,
  Assert<Eq<ParsedParamsOf<"navigateTree">["summarize"], boolean>>,
  Assert<Eq<ResultOf<"prompt">, { runId: string }>>,
  Assert<Eq<EventParams<"compaction_start">["reason"], "threshold" | "overflow" | "manual">>,
  Assert<Eq<z.infer<typeof methods.abort.result>, { aborted: boolean }>>,
];

test("the generated schema on disk parses as JSON with the current version", () => {
  const doc = JSON.parse(readFileSync(join(repoRoot, "protocol", "schema.json"), "utf8")) as { protocolVersion: number };
  assert.equal(doc.protocolVersion, PROTOCOL_VERSION);
});
