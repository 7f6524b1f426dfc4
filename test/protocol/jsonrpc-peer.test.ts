// The one JSON-RPC peer (protocol/jsonrpc-peer.ts) on its own, two of them wired back to back:
// the envelope errors the daemon has always sent, requests both ways, how calls end without an
// answer, notifications in order, answers nobody asked for. And the one line reader
// (protocol/ndjson-lines.ts) on bytes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answeringServer, JsonRpcPeer, PeerCallError, type CallTable, type EnvelopeError } from "../../protocol/jsonrpc-peer.js";
import { LineReader } from "../../protocol/ndjson-lines.js";

type Echo = { echo: { params: { n: number }; result: { n: number } }; fail: { params: object; result: never }; slow: { params: object; result: null } };

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A peer whose output is collected (parsed). */
function lonePeer(options: { gate?: (method: string) => { code: number; message: string } | undefined } = {}) {
  const out: Array<Record<string, unknown>> = [];
  const peer = new JsonRpcPeer<CallTable, Echo>({ send: (text) => out.push(JSON.parse(text) as Record<string, unknown>), context: undefined, gate: options.gate });
  peer.addMethod("echo", (params) => ({ n: (params as { n: number }).n }));
  return { peer, out };
}

test("envelope: the daemon's codes and messages for what is not one JSON-RPC 2.0 message", async () => {
  const { peer, out } = lonePeer();
  const cases: Array<[string, unknown, number, string | RegExp]> = [
    ["{not json", null, -32700, /^parse error: /],
    ['[{"jsonrpc":"2.0","id":1,"method":"echo"}]', null, -32600, "batches are not supported: send one JSON-RPC message per line or frame"],
    ['{"id":7,"method":"echo"}', 7, -32600, 'invalid request: expected a JSON-RPC 2.0 object ({"jsonrpc":"2.0", ...})'],
    ['"text"', null, -32600, 'invalid request: expected a JSON-RPC 2.0 object ({"jsonrpc":"2.0", ...})'],
    ['{"jsonrpc":"2.0","id":"a"}', "a", -32600, "invalid request: no method"],
    ['{"jsonrpc":"2.0","id":3,"method":5}', 3, -32600, "invalid request: method must be a string, id a string, number or null, params an object or array"],
    ['{"jsonrpc":"2.0","id":{},"method":"echo"}', null, -32600, "invalid request: method must be a string, id a string, number or null, params an object or array"],
    ['{"jsonrpc":"2.0","id":4,"method":"echo","params":"x"}', 4, -32600, "invalid request: method must be a string, id a string, number or null, params an object or array"],
    ['{"jsonrpc":"2.0","id":5,"method":"nope"}', 5, -32601, "unknown method: nope"],
  ];
  for (const [text] of cases) peer.receive(text);
  await settle();
  assert.equal(out.length, cases.length);
  cases.forEach(([text, id, code, message], i) => {
    const answer = out[i] as { id: unknown; error: { code: number; message: string } };
    assert.equal(answer.id, id, text);
    assert.equal(answer.error.code, code, text);
    if (typeof message === "string") assert.equal(answer.error.message, message, text);
    else assert.match(answer.error.message, message, text);
  });
  // a notification of an unknown method, and an answer to nothing, get no reply
  peer.receive('{"jsonrpc":"2.0","method":"nope"}');
  peer.receive('{"jsonrpc":"2.0","id":99,"result":1}');
  await settle();
  assert.equal(out.length, cases.length);
});

test("gate: a refused request is answered with the gate's error, a refused notification is dropped", async () => {
  let open = false;
  const { peer, out } = lonePeer({ gate: (method) => (open || method === "open" ? undefined : { code: -32002, message: "not initialized" }) });
  peer.receive('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}');
  peer.receive('{"jsonrpc":"2.0","method":"echo","params":{"n":1}}');
  open = true;
  peer.receive('{"jsonrpc":"2.0","id":2,"method":"echo","params":{"n":2}}');
  await settle();
  assert.deepEqual(out, [
    { jsonrpc: "2.0", id: 1, error: { code: -32002, message: "not initialized" } },
    { jsonrpc: "2.0", id: 2, result: { n: 2 } },
  ]);
});

test("two peers back to back: requests both ways, error answers typed by the caller, notifications in order", async () => {
  const heard: string[] = [];
  const wire: { a?: JsonRpcPeer<Echo, Echo>; b?: JsonRpcPeer<Echo, Echo> } = {};
  const server = answeringServer<void>({ mapError: (err) => ({ code: -32050, message: `mapped: ${(err as Error).message}`, data: { x: 1 } }) });
  wire.a = new JsonRpcPeer<Echo, Echo>({ send: (text) => wire.b!.receive(text), context: undefined, server });
  wire.b = new JsonRpcPeer<Echo, Echo>({ send: (text) => wire.a!.receive(text), context: undefined, onNotification: (method, params) => heard.push(`${method} ${JSON.stringify(params)}`) });
  wire.a.addMethod("echo", (params) => ({ n: (params as { n: number }).n * 2 }));
  wire.a.addMethod("fail", () => {
    throw new Error("boom");
  });
  wire.b.addMethod("echo", (params) => ({ n: (params as { n: number }).n + 1 }));
  assert.deepEqual(await wire.b.request("echo", { n: 21 }), { n: 42 });
  assert.deepEqual(await wire.a.request("echo", { n: 1 }), { n: 2 });
  const err = await wire.b.request("fail", {}).catch((e: unknown) => e);
  assert.ok(err instanceof PeerCallError);
  assert.deepEqual([err.code, err.message, err.data, err.method], [-32050, "mapped: boom", { x: 1 }, "fail"]);
  wire.a.notify("first", { i: 1 });
  wire.a.notify("second", { i: 2 });
  assert.deepEqual(heard, ['first {"i":1}', 'second {"i":2}'], "delivered synchronously, in order");
});

test("a call ends without its answer: timeout, abort, a failed send, rejectAll; `settled` runs once; a late answer is stray", async () => {
  const sent: Array<{ id: number }> = [];
  let failSend = false;
  const strays: unknown[] = [];
  const settled: string[] = [];
  const peer = new JsonRpcPeer<Echo>({
    send: (text) => {
      if (failSend) throw new Error("pipe closed");
      sent.push(JSON.parse(text) as { id: number });
    },
    context: undefined,
    onStrayAnswer: (answer) => strays.push(answer),
    errors: { timeout: (method, ms) => new Error(`timeout ${method} ${ms}`) },
  });
  const note = (name: string) => ({ settled: (answer: unknown) => settled.push(`${name}:${answer === undefined ? "none" : "answer"}`) });
  await assert.rejects(peer.request("slow", {}, { timeoutMs: 5, ...note("t") }), /timeout slow 5/);
  const ac = new AbortController();
  const aborted = peer.request("slow", {}, { signal: ac.signal, ...note("a") });
  ac.abort(new Error("user stop"));
  await assert.rejects(aborted, /user stop/);
  failSend = true;
  await assert.rejects(peer.request("slow", {}, note("s")), (e: PeerCallError) => e.message === "slow: send failed: pipe closed");
  failSend = false;
  const pending = peer.request("slow", {}, note("r"));
  peer.rejectAll(new Error("gone"));
  await assert.rejects(pending, /gone/);
  assert.deepEqual(settled, ["t:none", "a:none", "s:none", "r:none"]);
  // ids 1, 2, 4 went out (3 failed to); answers to them now come too late
  assert.deepEqual(sent.map((m) => m.id), [1, 2, 4]);
  peer.receive(JSON.stringify({ jsonrpc: "2.0", id: 1, result: null }));
  assert.equal(strays.length, 1);
  // a normal call still works, and its answer is seen by `settled` before the caller
  const ok = peer.request("echo", { n: 1 }, { settled: (a) => settled.push(`ok:${JSON.stringify(a)}`) });
  peer.receive(JSON.stringify({ jsonrpc: "2.0", id: 5, result: { n: 1 } }));
  assert.deepEqual(settled.at(-1), 'ok:{"result":{"n":1}}');
  assert.deepEqual(await ok, { n: 1 });
});

test("a client's peer reports what it cannot take instead of answering it", () => {
  const out: string[] = [];
  const reported: EnvelopeError[] = [];
  const peer = new JsonRpcPeer<CallTable>({ send: (text) => out.push(text), context: undefined, onInvalid: (refusal) => reported.push(refusal) });
  peer.receive("garbage");
  peer.receive("[]");
  assert.deepEqual(out, []);
  assert.deepEqual(reported.map((r) => r.error.code), [-32700, -32600]);
});

test("line reader: LF ends a line, one CR is stripped, empty lines are skipped, bytes split anywhere (inside a character too)", () => {
  const lines: string[] = [];
  const reader = new LineReader({ line: (text) => lines.push(text), oversize: () => assert.fail("no line is too long") });
  const bytes = new TextEncoder().encode('{"a":"é€😀"}\r\n\n \n{"b":"\u2028"}\nlast');
  for (let i = 0; i < bytes.length; i += 3) reader.push(bytes.subarray(i, i + 3));
  reader.end();
  assert.deepEqual(lines, ['{"a":"é€😀"}', " ", '{"b":"\u2028"}', "last"]);
});
