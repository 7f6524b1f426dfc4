// Bad input to the daemon, over stdio and WebSocket (`pith serve --stdio`, one daemon for the
// file): every bad message gets its error (or nothing, for notifications) and the connection and
// the daemon keep serving. Covers framing (-32700, batches, oversize lines and frames, binary
// frames), the JSON-RPC envelope (-32600), the initialize gate (-32002), methods (-32601), params
// (-32602 with the zod tree), unknown ids (-32010, -32013), and the upgrade checks (401, 403).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { agentEnd, checkDist, Cleanup, FLOW_SETTINGS, startServeDaemon, writeSettings, type ErrorMessage, type ResultMessage, type RpcPeer, type ServeDaemon } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
let daemon: ServeDaemon;
let stdio: RpcPeer;
let cwd: string;
let home: string;
let sessionId: string;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
  home = tempDir(cleanup, "pith-daemon-home-");
  cwd = tempDir(cleanup, "pith-daemon-cwd-");
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  writeSettings(home, FLOW_SETTINGS);
  daemon = await startServeDaemon(cleanup, { home, fake, cwd, stdio: true });
  stdio = daemon.peer!;
});

after(async () => {
  if (daemon.exit === null) {
    daemon.proc.stdin!.end(); // serve --stdio does not exit on SIGTERM while its stdin is open (see lifecycle.test.ts)
    daemon.proc.kill("SIGTERM");
    await daemon.waitExit().catch(() => daemon.kill9());
  }
  await fake.close();
  await cleanup.run();
});

/** The connection still answers. */
async function alive(peer: RpcPeer): Promise<void> {
  const r = await peer.request("listModels", {});
  assert.ok(Array.isArray(r.models));
}

/** The response to the next request sent raw: its id must be unique in this peer. */
async function rawCall(peer: RpcPeer, text: string, id: number | string): Promise<ResultMessage | ErrorMessage> {
  peer.sendRaw(text);
  return peer.until(() => peer.received.find((m): m is ResultMessage | ErrorMessage => m.id === id && ("result" in m || "error" in m)), `the answer to id ${id}`);
}

test("before initialize: -32002 for requests, nothing for notifications, then initialize works once", async (t) => {
  checkDist(t);
  const e = await stdio.expectError("listModels", {}, -32002);
  assert.match(e.message, /initialize/);
  await stdio.expectError("createSession", { cwd }, -32002);
  await stdio.expectError("noSuchMethod", {}, -32002);
  const before = stdio.received.length;
  stdio.send({ jsonrpc: "2.0", method: "getState", params: { sessionId: "x" } });
  const init = await stdio.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(stdio.received.length, before + 1, "the notification got no answer");
  await stdio.expectError("initialize", { protocolVersion: 1, clientInfo: { name: "again" } }, -32600);
  await alive(stdio);
  const opened = await stdio.request("createSession", { cwd });
  sessionId = opened.sessionId;

  // the same gate on a WebSocket connection; a refused initialize leaves it uninitialized
  const ws = await daemon.connect(t);
  await ws.expectError("getState", { sessionId }, -32002);
  const bad = await ws.expectError("initialize", { protocolVersion: 2, clientInfo: { name: "x" } }, -32602);
  assert.match(bad.message, /this server speaks 1/);
  await ws.expectError("initialize", { protocolVersion: 1, clientInfo: { name: "x" }, capabilities: { permissions: true, hooks: ["afterCompact"] } }, -32602);
  await ws.expectError("initialize", { protocolVersion: 1, clientInfo: { name: "x" }, capabilities: { colour: true } }, -32602);
  await ws.expectError("getState", { sessionId }, -32002);
  await ws.initialize();
  assert.equal((await ws.request("getState", { sessionId })).sessionId, sessionId);
});

test("malformed lines and frames: -32700 with id null; empty lines ignored; CRLF accepted", async (t) => {
  const ws = await daemon.connect(t);
  await ws.initialize();
  for (const peer of [stdio, ws]) {
    for (const text of ['{"jsonrpc":"2.0","id":1,"method":', "not json at all", "{'single': 'quotes'}", "\u0000\u0001"]) {
      const seen = peer.nullIdErrors.length;
      peer.sendRaw(text);
      const err = await peer.waitNullIdError(seen);
      assert.equal(err.error.code, -32700, `${peer.label} ${JSON.stringify(text)}: ${JSON.stringify(err)}`);
      assert.equal(err.id, null);
      await alive(peer);
    }
  }
  // stdio framing: empty lines are skipped, a trailing CR is stripped
  const before = stdio.received.length;
  stdio.sendRaw("\n\r\n");
  const answer = await rawCall(stdio, '{"jsonrpc":"2.0","id":"crlf","method":"listModels"}\r', "crlf");
  assert.ok(answer.result, JSON.stringify(answer));
  assert.equal(stdio.received.length, before + 1, "only the one answer");
});

test("invalid requests: -32600 (with the request's id when it has a usable one); params that are not an object", async (t) => {
  const ws = await daemon.connect(t);
  await ws.initialize();
  for (const peer of [stdio, ws]) {
    const r1 = await rawCall(peer, '{"jsonrpc":"1.0","id":"v1","method":"listModels"}', "v1");
    assert.equal(r1.error?.code, -32600);
    const r2 = await rawCall(peer, '{"id":"nojsonrpc","method":"listModels"}', "nojsonrpc");
    assert.equal(r2.error?.code, -32600);
    const r3 = await rawCall(peer, '{"jsonrpc":"2.0","id":"m","method":42}', "m");
    assert.equal(r3.error?.code, -32600);
    const r4 = await rawCall(peer, `{"jsonrpc":"2.0","id":"p","method":"getState","params":"${sessionId}"}`, "p");
    assert.equal(r4.error?.code, -32600);
    for (const text of ["42", '"a string"', "null", "true"]) {
      const seen = peer.nullIdErrors.length;
      peer.sendRaw(text);
      const err = await peer.waitNullIdError(seen);
      assert.equal(err.error.code, -32600, `${text}: ${JSON.stringify(err)}`);
    }
    const seen = peer.nullIdErrors.length;
    peer.sendRaw('{"jsonrpc":"2.0","id":{"not":"an id"},"method":"listModels"}');
    assert.equal((await peer.waitNullIdError(seen)).error.code, -32600, "an object id");
    // an answer nobody asked for is ignored
    const count = peer.received.length;
    peer.sendRaw('{"jsonrpc":"2.0","id":"unasked","result":{"outcome":"allow"}}');
    peer.sendRaw('{"jsonrpc":"2.0","id":"unasked2","error":{"code":1,"message":"x"}}');
    await alive(peer);
    assert.equal(peer.received.length, count + 1, "no answer to answers");
    // params by position: -32602
    const r5 = await rawCall(peer, `{"jsonrpc":"2.0","id":"arr","method":"getState","params":["${sessionId}"]}`, "arr");
    assert.equal(r5.error?.code, -32602, JSON.stringify(r5));
    await alive(peer);
  }
});

test("batches: one -32600 with id null, and nothing inside is carried out", async (t) => {
  const ws = await daemon.connect(t);
  await ws.initialize();
  for (const peer of [stdio, ws]) {
    const seen = peer.nullIdErrors.length;
    const countBefore = (await peer.request("listSessions", {})).sessions.length;
    peer.sendRaw(JSON.stringify([{ jsonrpc: "2.0", id: "b1", method: "createSession", params: { cwd } }, { jsonrpc: "2.0", id: "b2", method: "listModels" }]));
    const err = await peer.waitNullIdError(seen);
    assert.equal(err.error.code, -32600);
    assert.match(err.error.message, /batch/);
    peer.sendRaw("[]");
    assert.equal((await peer.waitNullIdError(seen + 1)).error.code, -32600);
    await alive(peer);
    assert.equal(peer.received.filter((m) => m.id === "b1" || m.id === "b2").length, 0, "no answers for the batch's members");
    assert.equal((await peer.request("listSessions", {})).sessions.length, countBefore, "the batch's createSession did not run");
  }
});

test("unknown methods: -32601 naming the method; as a notification, no answer", async () => {
  const e = await stdio.expectError("frobnicate", {}, -32601);
  assert.match(e.message, /frobnicate/);
  await stdio.expectError("rpc.discover", undefined, -32601);
  await stdio.expectError("__proto__", {}, -32601);
  await stdio.expectError("constructor", {}, -32601);
  const before = stdio.received.length;
  stdio.send({ jsonrpc: "2.0", method: "frobnicate", params: {} });
  await alive(stdio);
  assert.equal(stdio.received.length, before + 1, "only listModels was answered");
});

test("wrong param types: -32602 with the zod error tree; unknown keys named; well-formed but unusable params", async () => {
  const e1 = await stdio.expectError("prompt", { sessionId: 5, text: "" }, -32602);
  assert.ok(Array.isArray(e1.data.errors), "the tree form has an errors array");
  assert.ok(e1.data.properties.sessionId.errors.length > 0, JSON.stringify(e1.data));
  assert.ok(e1.data.properties.text.errors.length > 0, JSON.stringify(e1.data));
  assert.match(e1.message, /invalid params for prompt/);
  const e2 = await stdio.expectError("getState", { sesionId: sessionId }, -32602);
  assert.match(e2.message, /Unrecognized key: "sesionId"/);
  assert.ok(e2.data.errors.some((s: string) => s.includes("sesionId")));
  const e3 = await stdio.expectError("getState", { sessionId: "" }, -32602);
  assert.ok(e3.data.properties.sessionId);
  await stdio.expectError("createSession", { cwd: 3 }, -32602);
  await stdio.expectError("subscribe", { sessionId, afterSeq: -1 }, -32602);
  await stdio.expectError("subscribe", { sessionId, afterSeq: 1.5 }, -32602);
  const e4 = await stdio.expectError("prompt", { sessionId, text: "look", images: [{ type: "image", data: "AAAA", mimeType: "image/bmp" }] }, -32602);
  assert.ok(e4.data.properties.images.items[0], JSON.stringify(e4.data));
  await stdio.expectError("navigateTree", { sessionId, targetId: "x", summarize: "yes" }, -32602);
  await stdio.expectError("setThinkingLevel", { sessionId, level: "extreme" }, -32602);
  await stdio.expectError("updateSettings", { patch: { compaction: { keepRecentTokenz: 5 } } }, -32602);
  await stdio.expectError("openSession", {}, -32602);
  await stdio.expectError("openSession", { sessionId, sessionFile: "/x" }, -32602);
  // a file that is not a session: the {reason} form
  const junk = join(home, "junk.jsonl");
  writeFileSync(junk, "this is not a session file\n");
  const e5 = await stdio.expectError("openSession", { sessionFile: junk }, -32602);
  assert.equal(typeof e5.data.reason, "string", JSON.stringify(e5));
  assert.equal(e5.data.errors, undefined, "the {reason} form has no errors array");
  // nothing changed: the session is untouched and idle
  const state = await stdio.request("getState", { sessionId });
  assert.equal(state.messageCount, 0);
  assert.equal(state.isRunning, false);
});

test("a file that is not a session: data.reason is \"NotASession\" (PROTOCOL.md: openSession)", async () => {
  const junk = join(home, "junk2.jsonl");
  writeFileSync(junk, "this is not a session file\n");
  const e = await stdio.expectError("openSession", { sessionFile: junk }, -32602);
  assert.equal(e.data.reason, "NotASession", JSON.stringify(e));
});

test("an unknown model id is -32602 {reason} (PROTOCOL.md: createSession, setModel)", async () => {
  const e = await stdio.expectError("createSession", { cwd, model: "no-such-model-xyz" }, -32602);
  assert.equal(typeof e.data.reason, "string");
  const e2 = await stdio.expectError("setModel", { sessionId, model: "no-such-model-xyz" }, -32602);
  assert.equal(typeof e2.data.reason, "string");
});

test("unknown ids: -32010 for sessions (data.sessionId), -32013 for entries (data.entryId)", async (t) => {
  const ghost = "00000000-0000-0000-0000-000000000000";
  for (const [method, params] of [
    ["getState", { sessionId: ghost }],
    ["getMessages", { sessionId: ghost }],
    ["getTree", { sessionId: ghost }],
    ["prompt", { sessionId: ghost, text: "hi" }],
    ["abort", { sessionId: ghost }],
    ["compact", { sessionId: ghost }],
    ["subscribe", { sessionId: ghost }],
    ["closeSession", { sessionId: ghost }],
    ["deleteSession", { sessionId: ghost }],
    ["openSession", { sessionId: ghost }],
    ["forkSession", { sessionId: ghost, entryId: "e1" }],
    ["navigateTree", { sessionId: ghost, targetId: "e1" }],
    ["setModel", { sessionId: ghost, model: "small-model" }],
    ["getSessionStats", { sessionId: ghost }],
    ["bash", { sessionId: ghost, command: "true" }],
  ] as const) {
    const e = await stdio.expectError(method, params, -32010);
    if (method !== "openSession" && method !== "deleteSession") assert.equal(e.data?.sessionId, ghost, `${method}: ${JSON.stringify(e)}`);
  }
  await stdio.expectError("openSession", { sessionFile: join(home, "no-such-file.jsonl") }, -32010);

  // entries: a session with one exchange
  fake.enqueue(textReply("hi"));
  await stdio.runPrompt(sessionId, "hello");
  for (const [method, params] of [
    ["navigateTree", { sessionId, targetId: "no-such-entry" }],
    ["navigateTree", { sessionId, targetId: "no-such-entry", summarize: true }],
    ["setLabel", { sessionId, entryId: "no-such-entry", label: "x" }],
    ["forkSession", { sessionId, entryId: "no-such-entry" }],
  ] as const) {
    const e = await stdio.expectError(method, params, -32013);
    assert.equal(e.data?.entryId, "no-such-entry", `${method}: ${JSON.stringify(e)}`);
  }
  // nothing moved
  const state = await stdio.request("getState", { sessionId });
  assert.equal(state.messageCount, 2);

  // a session open in this daemon is reachable from any connection, by id
  const ws = await daemon.connect(t);
  await ws.initialize();
  assert.equal((await ws.request("getMessages", { sessionId })).messages.length, 2);
  assert.equal(fake.remaining(), 0);
});

test("an oversized stdio line (65 MiB > 64 MiB) gets -32600 with id null; the next line is read normally", async (t) => {
  const t0 = performance.now();
  const seen = stdio.nullIdErrors.length;
  const line = Buffer.alloc(65 * 1024 * 1024, 0x61);
  line[0] = 0x7b; // "{", so it would be a parse error if it were read
  daemon.proc.stdin!.write(line);
  daemon.proc.stdin!.write('\n{"jsonrpc":"2.0","id":"after-big","method":"listModels"}\n');
  const err = await stdio.waitNullIdError(seen, 20_000);
  assert.equal(err.error.code, -32600, JSON.stringify(err));
  assert.match(err.error.message, /size limit|too (long|large)|over/);
  const next = await stdio.until(() => stdio.received.find((m) => m.id === "after-big"), "the answer after the big line");
  assert.ok(next.result);
  assert.equal(stdio.nullIdErrors.length, seen + 1, "one error for the whole line");
  t.diagnostic(`65 MiB stdio line: ${(performance.now() - t0).toFixed(0)} ms`);
  await alive(stdio);
});

test("an oversized stdio request whose id comes first gets -32600 with that id, so the caller's request fails at once", async (t) => {
  const t0 = performance.now();
  const prefix = '{"jsonrpc":"2.0","id":"big-request","method":"listModels","params":{"pad":"';
  const line = Buffer.alloc(65 * 1024 * 1024, 0x61);
  line.write(prefix, 0, "utf8");
  line.write('"}}', line.length - 3, "utf8");
  daemon.proc.stdin!.write(line);
  daemon.proc.stdin!.write("\n");
  const err = (await stdio.until(() => stdio.received.find((m) => m.id === "big-request"), "the answer to the big request", 20_000)) as ErrorMessage;
  assert.equal(err.error.code, -32600, JSON.stringify(err));
  assert.match(err.error.message, /68157440 bytes is over the size limit/);
  t.diagnostic(`65 MiB stdio request answered with its id: ${(performance.now() - t0).toFixed(0)} ms`);
  await alive(stdio);
});

test("an oversized WebSocket frame (64 MiB + 1) closes that connection with 1009; other connections are fine", async (t) => {
  const t0 = performance.now();
  const bystander = await daemon.connect(t);
  await bystander.initialize();
  const big = await daemon.connect(t);
  await big.initialize();
  big.ws.send("x".repeat(64 * 1024 * 1024 + 1));
  const closed = await big.whenClosed;
  assert.equal(closed.code, 1009);
  await alive(bystander);
  await alive(stdio);
  t.diagnostic(`64 MiB + 1 WebSocket frame: ${(performance.now() - t0).toFixed(0)} ms`);
});

test("a binary WebSocket frame closes that connection with 1003", async (t) => {
  const peer = await daemon.connect(t);
  await peer.initialize();
  peer.ws.send(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "listModels" })), { binary: true });
  assert.equal((await peer.whenClosed).code, 1003);
  await alive(stdio);
});

test("upgrade checks: missing or wrong token 401, wrong Origin 403, the local Origins allowed, only /rpc", async (t) => {
  const bearer = { Authorization: `Bearer ${daemon.token}` };
  assert.equal(await daemon.refused(t), 401, "no token");
  assert.equal(await daemon.refused(t, { headers: { Authorization: "Bearer wrong-token" } }), 401);
  assert.equal(await daemon.refused(t, { headers: { Authorization: `Basic ${daemon.token}` } }), 401);
  assert.equal(await daemon.refused(t, { protocols: ["pith.bearer.wrong-token"] }), 401);
  assert.equal(await daemon.refused(t, { headers: { ...bearer, Origin: "http://evil.example" } }), 403);
  assert.equal(await daemon.refused(t, { headers: { ...bearer, Origin: `http://127.0.0.1:${daemon.port + 1}` } }), 403, "another port");
  assert.equal(await daemon.refused(t, { headers: { Origin: "http://evil.example" } }), 403, "a wrong Origin without a token");
  for (const origin of [`http://127.0.0.1:${daemon.port}`, `http://localhost:${daemon.port}`]) {
    const peer = await daemon.connect(t, { headers: { Origin: origin } });
    await peer.initialize();
    peer.ws.close();
  }
  const res = await fetch(`http://127.0.0.1:${daemon.port}/rpc`);
  assert.equal(res.status, 426, "plain GET /rpc");
  await res.text();
  await alive(stdio);
});

test("after all of that the daemon still runs a whole prompt with a tool", async () => {
  fake.enqueue(toolUseReply("read", { path: "a.txt" }), textReply("It says hello."));
  const run = await stdio.runPrompt(sessionId, "read a.txt again");
  assert.equal(agentEnd(run.events).stopReason, "stop");
  assert.equal(daemon.exit, null);
  assert.deepEqual(stdio.violations, []);
  assert.deepEqual(stdio.garbage, []);
});
