// The daemon tests' peer (test/support/rpc-peer.ts) over an in-memory transport: it records what
// arrives, its calls go through the clients/ts client, what breaks the protocol's schemas ends up
// in `violations`, and a closed connection ends every wait.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TransportBase, type Transport } from "../../clients/ts/index.js";
import { RpcPeer } from "../support/rpc-peer.js";

/** The peer's end of a pipe whose other end is the test, playing the daemon. */
class Pipe extends TransportBase implements Transport {
  readonly sent: string[] = [];
  send(text: string): void {
    if (this.closed) throw new Error("closed");
    this.sent.push(text);
  }
  close(): void {
    this.closing = true;
    this.closedWith({ reason: "closed" });
  }
  push(m: object | string): void {
    this.deliver(typeof m === "string" ? m : JSON.stringify(m));
  }
  drop(): void {
    this.closedWith({ code: 1006, reason: "gone" });
  }
  last(): { id: number; method: string; params?: unknown } {
    return JSON.parse(this.sent.at(-1)!);
  }
}

const STATE = {
  sessionId: "s1",
  sessionFile: "/f.jsonl",
  cwd: "/w",
  leafId: null,
  messageCount: 0,
  isRunning: false,
  isCompacting: false,
};

test("records every message, answers through the client, returns the recorded response object", async () => {
  const pipe = new Pipe();
  const peer = new RpcPeer(pipe, "mem");
  const answer = peer.call("listModels", {});
  const req = pipe.last();
  assert.equal(req.method, "listModels");
  pipe.push({ jsonrpc: "2.0", method: "agent_start", params: { sessionId: "s1", seq: 1, runId: "r1" } });
  pipe.push({ jsonrpc: "2.0", id: req.id, result: { models: [] } });
  const response = await answer;
  assert.deepEqual(response, { jsonrpc: "2.0", id: req.id, result: { models: [] } });
  assert.equal(peer.received.indexOf(response), 1, "the very object in `received`");
  assert.deepEqual(peer.events, [{ type: "agent_start", sessionId: "s1", seq: 1, runId: "r1" }]);

  const failing = peer.request("getState", { sessionId: "nope" });
  pipe.push({ jsonrpc: "2.0", id: pipe.last().id, error: { code: -32010, message: "no session", data: { sessionId: "nope" } } });
  await assert.rejects(failing, (e: unknown) => (e as { code?: number }).code === -32010 && (e as { data?: { sessionId?: string } }).data?.sessionId === "nope");

  // raw input, and what comes back for it
  peer.sendRaw("not json");
  assert.equal(pipe.sent.at(-1), "not json");
  pipe.push({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
  assert.equal((await peer.waitNullIdError(0)).error.code, -32700);
  pipe.push("garbage line");
  assert.deepEqual(peer.garbage, ["garbage line"]);
  assert.deepEqual(peer.violations, []);
});

test("events and results that break the schemas, and unknown events, are violations", async () => {
  const pipe = new Pipe();
  const peer = new RpcPeer(pipe, "mem");
  pipe.push({ jsonrpc: "2.0", method: "turn_start", params: { sessionId: "s1", seq: 1, turn: 0 } }); // no runId, turn 0
  pipe.push({ jsonrpc: "2.0", method: "no_such_event", params: { sessionId: "s1", seq: 2 } });
  const state = peer.request("getState", { sessionId: "s1" });
  pipe.push({ jsonrpc: "2.0", id: pipe.last().id, result: { ...STATE, messageCount: "zero" } });
  await state;
  assert.equal(peer.violations.length, 3, peer.violations.join("\n"));
  assert.match(peer.violations[0], /^event turn_start seq 1/);
  assert.equal(peer.violations[1], "unknown event no_such_event");
  assert.match(peer.violations[2], /^result of getState/);
});

test("a server request gets the safe answer by default; a closed connection fails waits and calls", async () => {
  const pipe = new Pipe();
  const peer = new RpcPeer(pipe, "mem");
  pipe.push({ jsonrpc: "2.0", id: 5, method: "requestPermission", params: { sessionId: "s1", toolCallId: "c", toolName: "bash", args: {} } });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(JSON.parse(pipe.sent.at(-1)!), { jsonrpc: "2.0", id: 5, result: { outcome: "deny" } });

  const waiting = peer.waitEvent((e) => e.type === "agent_end", "agent_end");
  const pending = peer.call("getTree", { sessionId: "s1" });
  pipe.drop();
  await assert.rejects(waiting, /connection closed \(close 1006\) while waiting for agent_end/);
  assert.equal((await pending).error?.code, 0, "a call cut off by the close answers code 0");
  assert.equal(peer.isClosed, true);
  assert.doesNotThrow(() => peer.sendRaw("after the close"));
  await assert.rejects(peer.request("listModels", {}), /connection closed/);
});
