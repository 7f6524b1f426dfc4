// The connection core every transport shares (protocol/connection-core.ts): the backlog before
// the first handler, dropping after close, close once, handler errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionCore } from "../../protocol/connection-core.js";

const microtask = () => new Promise<void>((resolve) => queueMicrotask(resolve));

test("items before the first message handler wait, in order, and go on a microtask after it is registered", async () => {
  const core = new ConnectionCore();
  core.receive("1");
  core.receiveOversize(99);
  core.receive("2");
  const got: string[] = [];
  core.onMessage((text) => got.push(text));
  // registered in the same tick as onMessage: still gets the oversize notice that came before
  core.onOversize((bytes) => got.push(`oversize ${bytes}`));
  core.receive("3"); // queues behind the backlog
  assert.deepEqual(got, []);
  await microtask();
  assert.deepEqual(got, ["1", "oversize 99", "2", "3"]);
  core.receive("4");
  assert.deepEqual(got.at(-1), "4", "with a handler and no backlog: delivered at once");
});

test("stopReceiving and close drop later items; items received before are still delivered; close fires once", async () => {
  const core = new ConnectionCore<{ why: string }>();
  core.receive("before");
  core.stopReceiving();
  core.receive("after stop");
  const closes: string[] = [];
  core.onClose((info) => closes.push(info.why));
  assert.equal(core.close({ why: "first" }), true);
  assert.equal(core.close({ why: "second" }), false);
  core.receive("after close");
  const got: string[] = [];
  core.onMessage((text) => got.push(text));
  core.onClose((info) => closes.push(`late ${info.why}`));
  assert.deepEqual(closes, ["first"]);
  await microtask();
  assert.deepEqual(got, ["before"]);
  assert.deepEqual(closes, ["first", "late first"]);
  assert.equal(core.isClosed, true);
  assert.equal(core.isReceiving, false);
  assert.deepEqual(core.closeInfo, { why: "first" });
});

test("with onHandlerError a throwing handler is reported and the others still run; without it the error reaches the caller", () => {
  const reported: unknown[] = [];
  const core = new ConnectionCore({ onHandlerError: (err) => reported.push(err) });
  const got: string[] = [];
  core.onMessage(() => {
    throw new Error("boom");
  });
  core.onMessage((text) => got.push(text));
  core.receive("x");
  assert.deepEqual(got, ["x"]);
  assert.equal((reported[0] as Error).message, "boom");

  const bare = new ConnectionCore();
  bare.onMessage(() => {
    throw new Error("to the caller");
  });
  assert.throws(() => bare.receive("x"), /to the caller/);
});
