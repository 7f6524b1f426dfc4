// clients/ts against an in-memory fake server (framing, errors, server requests, seq tracking)
// and against the real daemon: bin/pith --mode rpc over pipes, and bin/pith serve over WebSocket
// (both token forms), running the offline demo script (an automatic compaction inside the run).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { WebSocket } from "ws";
import {
  ErrorCodes,
  PITH_BIN,
  PithClient,
  PithConnectionError,
  PithRpcError,
  PithTimeoutError,
  TransportBase,
  connectWebSocket,
  eventSchemas,
  methodSchemas,
  rpcUrl,
  spawnStdio,
  type AnyEventArgs,
  type CloseInfo,
  type EventName,
  type Transport,
} from "../../clients/ts/index.js";
import { connectBrowserWebSocket, tokenFromHash, type BrowserWebSocketConstructor } from "../../clients/ts/browser.js";
import "../support/fresh-dist.js"; // the real-daemon tests run bin/pith: importing it builds dist/ when it is stale
import { NOTES_SCRIPT } from "../support/notes-script.js";
import { tempDir } from "../support/tmp.js";

const NOTES = "# pith notes\n\nThings a session keeps:\n- messages\n- compaction\n";

// ---- an in-memory server ---------------------------------------------------------------------------

type Msg = { jsonrpc: "2.0"; id?: number | string | null; method?: string; params?: any; result?: any; error?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The client's end of a pipe whose other end is the test, playing the server. */
class FakeTransport extends TransportBase implements Transport {
  readonly sent: Msg[] = [];
  private waiters: ((m: Msg) => void)[] = [];
  send(text: string): void {
    if (this.closed) throw new Error("closed");
    const m = JSON.parse(text) as Msg;
    this.sent.push(m);
    for (const w of this.waiters.splice(0)) w(m);
  }
  close(): void {
    this.closing = true;
    this.closedWith({ reason: "closed" });
  }
  // the server side
  push(m: object): void {
    this.deliver(JSON.stringify(m));
  }
  drop(info: CloseInfo = { reason: "dropped" }): void {
    this.closedWith(info);
  }
  /** The next message the client sends (or the latest one, if already sent and unclaimed). */
  next(): Promise<Msg> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function ev(name: string, sessionId: string, seq: number, extra: object = {}) {
  return { jsonrpc: "2.0", method: name, params: { sessionId, seq, ...extra } };
}

test("fake server: results, typed errors, timeouts, abort signals, a dropped connection", async () => {
  const tr = new FakeTransport();
  const client = new PithClient(tr, { onError: () => {} });

  const init = client.initialize({ name: "t", version: "1" });
  const req = tr.sent[0];
  assert.deepEqual(req, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientInfo: { name: "t", version: "1" }, capabilities: { permissions: false, hooks: [] } } });
  tr.push({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1, serverInfo: { name: "pith", version: "0" }, capabilities: { permissions: false, hooks: [], replayBufferSize: 5 } } });
  assert.equal((await init).serverInfo.name, "pith");

  const st = client.getState("nope");
  tr.push({ jsonrpc: "2.0", id: 2, error: { code: -32010, message: "no open session nope", data: { sessionId: "nope" } } });
  await assert.rejects(st, (e: unknown) => e instanceof PithRpcError && e.code === ErrorCodes.SessionNotFound && (e.data as { sessionId: string }).sessionId === "nope" && e.method === "getState");

  await assert.rejects(client.getTree("s", { timeoutMs: 20 }), PithTimeoutError);
  const ac = new AbortController();
  const aborted = client.getMessages("s", { signal: ac.signal });
  ac.abort(new Error("stop"));
  await assert.rejects(aborted, /stop/);
  // a late answer to a request that timed out is ignored (reported to onError)
  tr.push({ jsonrpc: "2.0", id: 3, result: {} });

  const pending = client.rpc.listModels({});
  const waiting = client.waitFor("agent_end");
  tr.drop({ reason: "gone" });
  await assert.rejects(pending, (e: unknown) => e instanceof PithConnectionError && e.info?.reason === "gone");
  await assert.rejects(waiting, PithConnectionError);
  await assert.rejects(client.getState("s"), PithConnectionError);
  assert.equal(client.closed, true);
});

test("fake server: server requests go to handlers; no handler is -32601, a throwing one -32603", async () => {
  const tr = new FakeTransport();
  const client = new PithClient(tr);
  const asked: string[] = [];
  client.handle("requestPermission", async (p) => (asked.push(p.toolName), { outcome: p.toolName === "read" ? "allow" : "deny" }));
  void client.initialize({ name: "t" });
  assert.deepEqual(tr.sent[0].params.capabilities, { permissions: true, hooks: [] }, "capabilities follow the handlers");

  let reply = tr.next();
  tr.push({ jsonrpc: "2.0", id: 7, method: "requestPermission", params: { sessionId: "s", toolCallId: "c", toolName: "read", args: {} } });
  assert.deepEqual(await reply, { jsonrpc: "2.0", id: 7, result: { outcome: "allow" } });
  assert.deepEqual(asked, ["read"]);

  reply = tr.next();
  tr.push({ jsonrpc: "2.0", id: "x", method: "beforeCompact", params: { sessionId: "s", reason: "manual", preparation: {} } });
  const r = await reply;
  assert.equal(r.id, "x");
  assert.equal(r.error.code, ErrorCodes.MethodNotFound);

  const off = client.handle("beforeCompact", () => {
    throw new Error("hook broke");
  });
  reply = tr.next();
  tr.push({ jsonrpc: "2.0", id: 9, method: "beforeCompact", params: {} });
  assert.deepEqual((await reply).error, { code: ErrorCodes.InternalError, message: "hook broke" });
  off();
  reply = tr.next();
  tr.push({ jsonrpc: "2.0", id: 10, method: "beforeCompact", params: {} });
  assert.equal((await reply).error.code, ErrorCodes.MethodNotFound);
});

test("fake server: events, waitFor, lastSeq; a replay after openSession delivers each seq once", async () => {
  const tr = new FakeTransport();
  const invalid: string[] = [];
  const client = new PithClient(tr, { validateEvents: eventSchemas, onInvalidEvent: (name) => invalid.push(name) });
  const seen: number[] = [];
  const any: string[] = [];
  client.on("turn_start", (p) => seen.push(p.seq));
  client.onAny((...[name, params]: AnyEventArgs) => {
    any.push(name);
    if (name === "agent_end") assert.equal(params.stopReason, "stop");
  });
  const end = client.waitFor("turn_start", (p) => p.turn === 2);
  for (let seq = 1; seq <= 3; seq++) tr.push(ev("turn_start", "s", seq, { runId: "r", turn: seq }));
  assert.equal((await end).seq, 2);
  assert.deepEqual(invalid, []);
  tr.push(ev("turn_start", "s", 4, { turn: 0 })); // no runId, turn 0: invalid, still delivered
  assert.deepEqual(invalid, ["turn_start"]);
  assert.equal(client.lastSeq("s"), 4);

  // disconnected after 4; back on, live events 9 and 10 arrive (openSession) before the replay
  tr.push(ev("turn_start", "s", 9, { runId: "r", turn: 9 }));
  tr.push(ev("turn_start", "s", 10, { runId: "r", turn: 10 }));
  assert.equal(client.lastSeq("s"), 4, "a gap keeps lastSeq at the last unbroken seq");
  const resub = client.resubscribe("s");
  assert.deepEqual(tr.sent.at(-1)!.params, { sessionId: "s", afterSeq: 4 });
  for (let seq = 5; seq <= 11; seq++) tr.push(ev("turn_start", "s", seq, { runId: "r", turn: seq }));
  tr.push({ jsonrpc: "2.0", id: tr.sent.at(-1)!.id, result: { subscribed: true, replayed: 7, lastSeq: 11 } });
  assert.deepEqual(await resub, { subscribed: true, replayed: 7, lastSeq: 11, afterSeq: 4 });
  assert.deepEqual(seen, [1, 2, 3, 4, 9, 10, 5, 6, 7, 8, 11]);
  assert.equal(client.lastSeq("s"), 11);

  // the session was reopened elsewhere: numbering starts again at 1
  tr.push(ev("turn_start", "s", 1, { runId: "r2", turn: 1 }));
  assert.equal(client.lastSeq("s"), 1);
  assert.deepEqual(seen.slice(-1), [1]);

  // a new client told where the old one stopped
  const tr2 = new FakeTransport();
  const c2 = new PithClient(tr2);
  const r2 = c2.resubscribe("s", 40);
  assert.deepEqual(tr2.sent[0].params, { sessionId: "s", afterSeq: 40 });
  tr2.push({ jsonrpc: "2.0", id: tr2.sent[0].id, result: { subscribed: true, replayed: 0, lastSeq: 3 } });
  assert.equal((await r2).reset, true, "lastSeq below afterSeq: numbering restarted");
  assert.equal(c2.lastSeq("s"), 3);
});

test("the browser entry imports no Node module (runtime imports, followed: clients/ts's own files, from protocol/ version, connection-core, error-codes and jsonrpc-peer; json-rpc-2.0, itself Node-free)", () => {
  const runtimeImports = (file: string | URL) =>
    [...readFileSync(new URL(file, import.meta.url), "utf8").matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
  assert.deepEqual(runtimeImports("../../clients/ts/browser.ts"), ["./client.js", "./client.js"]);
  // every file the browser entry loads at run time, followed import by import
  const root = new URL("../../", import.meta.url);
  const loaded = new Set<string>();
  const packages = new Set<string>();
  const queue = [new URL("clients/ts/browser.ts", root)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    const name = file.href.slice(root.href.length);
    if (loaded.has(name)) continue;
    loaded.add(name);
    for (const spec of runtimeImports(file)) {
      // the one package allowed: the JSON-RPC peer's base
      if (name === "protocol/jsonrpc-peer.ts" && spec === "json-rpc-2.0") {
        packages.add(spec);
        continue;
      }
      assert.match(spec, /^\.\.?\//, `${name} imports ${spec}: only files of this repository`);
      queue.push(new URL(spec.replace(/\.js$/, ".ts"), file));
    }
  }
  const allowed = new Set(["protocol/version.ts", "protocol/connection-core.ts", "protocol/error-codes.ts", "protocol/jsonrpc-peer.ts"]);
  const outside = [...loaded].filter((f) => !f.startsWith("clients/ts/") && !allowed.has(f));
  assert.deepEqual(outside, [], "nothing from protocol/ but version.ts, connection-core.ts, error-codes.ts and jsonrpc-peer.ts (no zod)");
  assert.ok(loaded.has("clients/ts/client.ts") && loaded.has("protocol/connection-core.ts") && loaded.has("protocol/jsonrpc-peer.ts"));
  for (const f of ["version", "connection-core", "error-codes"]) assert.deepEqual(runtimeImports(`../../protocol/${f}.ts`), []);
  assert.deepEqual([...packages], ["json-rpc-2.0"]);
  // json-rpc-2.0 loads only its own files (no Node module)
  const dist = new URL("node_modules/json-rpc-2.0/dist/", root);
  for (const file of readdirSync(dist).filter((f) => f.endsWith(".js"))) {
    for (const [, spec] of readFileSync(new URL(file, dist), "utf8").matchAll(/require\("([^"]+)"\)/g)) assert.match(spec, /^\.\//, `json-rpc-2.0 ${file} requires ${spec}`);
  }
});

test("urls and tokens", () => {
  assert.equal(rpcUrl("http://127.0.0.1:7777"), "ws://127.0.0.1:7777/rpc");
  assert.equal(rpcUrl("https://h/#token=x"), "wss://h/rpc");
  assert.equal(rpcUrl("ws://h:1/rpc"), "ws://h:1/rpc");
  assert.equal(tokenFromHash("#token=abc_-1"), "abc_-1");
  assert.equal(tokenFromHash("#x=1"), undefined);
});

// ---- the real daemon ---------------------------------------------------------------------------------

function places(t: TestContext) {
  const home = tempDir(t, "pith-client-home-");
  const cwd = realpathSync(tempDir(t, "pith-client-cwd-"));
  writeFileSync(`${cwd}/notes.md`, NOTES);
  // the fixed notes script (a long write that makes the first run compact), not the demo model's own steps
  const script = join(home, "notes-script.json");
  writeFileSync(script, JSON.stringify(NOTES_SCRIPT));
  const env = { ...process.env, PITH_HOME: home, ANTHROPIC_API_KEY: "", PITH_OFFLINE_SCRIPT: script };
  return { home, cwd, env };
}

/** Every event a client sees (name, seq, sessionId), in arrival order. */
function record(client: PithClient) {
  const events: { name: EventName; seq: number; sessionId: string }[] = [];
  client.onAny((name, params) => events.push({ name, seq: params.seq, sessionId: params.sessionId }));
  return events;
}

function contiguous(seqs: number[], from = 1): void {
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => from + i),
    "seqs without gaps or repeats",
  );
}

test("stdio: the demo run over pipes, compaction inside it, typed errors, permission and beforeCompact requests", async (t) => {
  const { cwd, env } = places(t);
  const transport = spawnStdio({ cwd, env });
  t.after(() => void (transport.child.exitCode === null && transport.kill("SIGKILL")));
  let stderr = "";
  transport.child.stderr.on("data", (d) => (stderr += d));
  const invalid: string[] = [];
  const client = new PithClient(transport, {
    callTimeoutMs: 10_000,
    validateEvents: eventSchemas,
    onInvalidEvent: (n, _p, e) => invalid.push(`event ${n}: ${String(e)}`),
    validateResults: methodSchemas,
    onInvalidResult: (m, _r, e) => invalid.push(`result of ${m}: ${String(e)}`),
  });
  const asked: string[] = [];
  client.handle("requestPermission", (p) => (asked.push(p.toolName), { outcome: "allow" }));
  const hooked: string[] = [];
  const HOOK_SUMMARY = "Summary written by the client's beforeCompact hook.";
  client.handle("beforeCompact", (p) => (hooked.push(`${p.reason} ${p.preparation.firstKeptEntryId ? "prepared" : "?"}`), { action: "replace", summary: HOOK_SUMMARY }));

  // before initialize: -32002, and the connection stays usable
  await assert.rejects(client.listSessions(), (e: unknown) => e instanceof PithRpcError && e.code === ErrorCodes.NotInitialized);
  const init = await client.initialize({ name: "client-test", version: "0.0.1" });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.capabilities.permissions, true);
  assert.deepEqual(init.capabilities.hooks, ["beforeCompact"]);

  const events = record(client);
  const opened = await client.createSession({ cwd });
  const sessionId = opened.sessionId;
  assert.equal(opened.state.cwd, cwd);

  const ended = client.waitFor("agent_end", (p) => p.sessionId === sessionId, 15_000);
  const compactionEnd = client.waitFor("compaction_end", (p) => p.sessionId === sessionId, 15_000);
  const { runId } = await client.prompt(sessionId, "Tidy up notes.md and write a report.");
  const end = await ended;
  assert.equal(end.runId, runId);
  assert.equal(end.stopReason, "stop", stderr);
  const ce = await compactionEnd;
  assert.equal(ce.aborted, false);
  assert.ok(ce.result, "the compaction was stored");

  const names = events.map((e) => e.name);
  const at = (n: EventName) => names.indexOf(n);
  assert.ok(at("agent_start") < at("compaction_start") && at("compaction_start") < at("compaction_end") && at("compaction_end") < names.lastIndexOf("agent_end"), names.join(" "));
  contiguous(events.map((e) => e.seq));
  assert.equal(client.lastSeq(sessionId), end.seq);
  assert.deepEqual(invalid, [], "every event and result matches the protocol's schemas");

  const { messages } = await client.getMessages(sessionId);
  assert.equal(messages[0].role, "compactionSummary");
  assert.equal(messages[0].role === "compactionSummary" && messages[0].summary, HOOK_SUMMARY);
  assert.deepEqual(hooked, ["threshold prepared"]);
  const tree = await client.getTree(sessionId);
  assert.ok(tree.entries.some((e) => e.type === "compaction"));

  await assert.rejects(client.getState("no-such-session"), (e: unknown) => {
    assert.ok(e instanceof PithRpcError);
    assert.equal(e.code, ErrorCodes.SessionNotFound);
    assert.equal(e.code, -32010);
    assert.deepEqual(e.data, { sessionId: "no-such-session" });
    return true;
  });
  await assert.rejects(client.rpc.prompt({ sessionId, text: "" }), (e: unknown) => e instanceof PithRpcError && e.code === ErrorCodes.InvalidParams);

  // ask mode asks before edits and commands only: the demo's second part just reads notes.md,
  // so this client is asked nothing (questions before writes: test/host, test/store/fleet, test/acp)
  await client.setPermissionMode(sessionId, "ask");
  const ended2 = client.waitFor("agent_end", (p) => p.sessionId === sessionId, 15_000);
  await client.prompt(sessionId, "Check notes.md again.");
  assert.equal((await ended2).stopReason, "stop");
  assert.deepEqual(asked, []);
  assert.deepEqual(invalid, []);
  assert.ok(events.some((e) => e.name === "tool_execution_end" && e.seq > end.seq));

  // SIGTERM with stdin still open: the daemon exits 0 and the client sees the close
  const closed = new Promise<CloseInfo>((r) => client.onClose(r));
  transport.kill("SIGTERM");
  assert.deepEqual(await transport.exited, { code: 0, signal: null }, stderr);
  assert.equal((await closed).exitCode, 0);
  await assert.rejects(client.getState(sessionId), PithConnectionError);
});

test("stdio: close() ends stdin; pending calls reject, the daemon exits 0", async (t) => {
  const { cwd, env } = places(t);
  const transport = spawnStdio({ cwd, env, stderr: "ignore" });
  t.after(() => void (transport.child.exitCode === null && transport.kill("SIGKILL")));
  const client = new PithClient(transport);
  await client.initialize({ name: "client-test" });
  const transportClosed = new Promise<CloseInfo>((r) => transport.onClose(r));
  const pending = client.listSessions();
  client.close();
  await assert.rejects(pending, PithConnectionError);
  assert.deepEqual(await transport.exited, { code: 0, signal: null });
  assert.equal((await transportClosed).exitCode, 0);
});

/** Starts `bin/pith serve --port 0 --token T`; resolves with the URL it prints on stderr. */
async function startServe(t: TestContext, token: string, env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [PITH_BIN, "serve", "--port", "0", "--token", token], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once("exit", (code, signal) => r({ code, signal })));
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pith serve did not start:\n${stderr}`)), 10_000);
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /pith serving on (http:\/\/\S+)/.exec(stderr);
      if (m) clearTimeout(timer), resolve(m[1]);
    });
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`pith serve exited ${code}:\n${stderr}`))));
  });
  return { child, url, exited, stderr: () => stderr };
}

test("serve: WebSocket clients; a reconnect resumes the events after the last seq, with no gap", async (t) => {
  const { cwd, env } = places(t);
  const token = "client-test-token_0123456789";
  const daemon = await startServe(t, token, env, cwd);

  await assert.rejects(connectWebSocket(daemon.url, "wrong-token"), /HTTP 401/);

  // the browser transport (subprotocol token), driven here by ws's browser-compatible WebSocket
  const browser = new PithClient(await connectBrowserWebSocket(daemon.url, token, { WebSocket: WebSocket as unknown as BrowserWebSocketConstructor }));
  assert.equal((await browser.initialize({ name: "browser" })).protocolVersion, 1);
  assert.deepEqual(await browser.listSessions(), { sessions: [] });
  browser.close();

  // client A (Authorization header) starts the demo and drops the connection mid-run
  const invalid: string[] = [];
  const debug = {
    callTimeoutMs: 10_000,
    validateEvents: eventSchemas,
    onInvalidEvent: (n: string, _p: unknown, e: unknown) => invalid.push(`event ${n}: ${String(e)}`),
    validateResults: methodSchemas,
    onInvalidResult: (m: string, _r: unknown, e: unknown) => invalid.push(`result of ${m}: ${String(e)}`),
  };
  const a = new PithClient(await connectWebSocket(daemon.url, token), debug);
  await a.initialize({ name: "client-a" });
  const eventsA = record(a);
  const { sessionId } = await a.createSession({ cwd });
  const secondTurn = a.waitFor("turn_start", (p) => p.turn === 2);
  a.on("turn_start", (p) => {
    if (p.turn === 2) a.close(); // nothing after this event reaches A
  });
  // (the answer may lose the race with A's own close: it is not needed)
  void a.prompt(sessionId, "Tidy up notes.md and write a report.").catch(() => undefined);
  await secondTurn;
  const lastA = a.lastSeq(sessionId);
  assert.equal(lastA, eventsA.at(-1)!.seq);
  contiguous(eventsA.map((e) => e.seq));

  // client B (subprotocol token, like a browser) takes over: openSession on the live session, then subscribe {afterSeq}
  const b = new PithClient(await connectWebSocket(daemon.url, token, { useSubprotocol: true }), debug);
  await b.initialize({ name: "client-b" });
  const eventsB = record(b);
  const endB = b.waitFor("agent_end", (p) => p.sessionId === sessionId, 15_000);
  const opened = await b.openSession({ sessionId });
  assert.equal(opened.sessionId, sessionId);
  const sub = await b.resubscribe(sessionId, lastA);
  assert.equal(sub.subscribed, true);
  assert.equal(sub.gap, undefined);
  assert.equal(sub.afterSeq, lastA);
  assert.ok(sub.replayed > 0, "events after A's last seq were replayed");
  const end = await endB;
  assert.equal(end.stopReason, "stop");
  assert.ok(eventsB.some((e) => e.name === "compaction_start") && eventsB.some((e) => e.name === "compaction_end"));

  // each seq exactly once across A and B, nothing missing
  const seqsB = eventsB.map((e) => e.seq);
  assert.equal(new Set(seqsB).size, seqsB.length, "B got no event twice");
  contiguous([...eventsA.map((e) => e.seq), ...[...seqsB].sort((x, y) => x - y)]);
  assert.equal(b.lastSeq(sessionId), end.seq);

  const { messages } = await b.getMessages(sessionId);
  assert.equal(messages[0].role, "compactionSummary");

  // the same client moved to a new connection: reconnect() re-initializes, resubscribe() replays nothing new
  const closes: CloseInfo[] = [];
  b.onClose((info) => closes.push(info));
  const reinit = await b.reconnect(await connectWebSocket(daemon.url, token));
  assert.equal(reinit?.protocolVersion, 1);
  assert.deepEqual(closes, [], "the replaced connection is not reported as a close");
  const again = await b.resubscribe(sessionId);
  assert.deepEqual({ replayed: again.replayed, lastSeq: again.lastSeq, afterSeq: again.afterSeq }, { replayed: 0, lastSeq: end.seq, afterSeq: end.seq });

  assert.deepEqual(invalid, [], "every event and result matches the protocol's schemas");

  // SIGTERM ends serve with exit 0; the client sees the close
  const closed = new Promise<CloseInfo>((r) => b.onClose(r));
  daemon.child.kill("SIGTERM");
  assert.deepEqual(await daemon.exited, { code: 0, signal: null }, daemon.stderr());
  assert.equal((await closed).code, 1001);
  assert.equal(closes.length, 1);
  await assert.rejects(b.getState(sessionId), PithConnectionError);
});
