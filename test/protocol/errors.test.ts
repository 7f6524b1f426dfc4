// Error codes and their data shapes: the codes are stable numbers with stable names, and the data
// the protocol fixes per code parses (and refuses what it must).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ErrorCodes, ErrorData, ErrorDescriptions, errorCodeName, events } from "../../protocol/index.js";
import { repoRoot } from "../support/tmp.js";

test("every code has a description and its name back from errorCodeName; unknown codes have none", () => {
  for (const [name, code] of Object.entries(ErrorCodes)) {
    assert.equal(errorCodeName(code), name);
    assert.ok((ErrorDescriptions as Record<string, string>)[name], `${name} has a description`);
  }
  assert.equal(new Set(Object.values(ErrorCodes)).size, Object.keys(ErrorCodes).length, "codes are distinct");
  assert.equal(errorCodeName(-32099), undefined);
});

test("ContextFull: -32021, with the sizes beside -32014's fields", () => {
  assert.equal(ErrorCodes.ContextFull, -32021);
  assert.match(ErrorDescriptions.ContextFull, /automatic compaction is off/);
  const data = { class: "overflow", status: 400, retryable: false, contextTokens: 210_000, contextWindow: 200_000 };
  assert.deepEqual(ErrorData.ContextFull.parse(data), data);
  assert.equal(ErrorData.ContextFull.safeParse({ class: "overflow", retryable: false, contextWindow: 200_000 }).success, false, "the context's size is required");
});

test("SessionMoved: -32018, with {sessionId, owner: {nodeId | null, url?, epoch?}}", () => {
  assert.equal(ErrorCodes.SessionMoved, -32018);
  assert.equal(errorCodeName(-32018), "SessionMoved");
  assert.match(ErrorDescriptions.SessionMoved, /another pith node/);

  const moved = ErrorData.SessionMoved.parse({ sessionId: "s1", owner: { nodeId: "b", url: "ws://h:1", epoch: 3 } });
  assert.deepEqual(moved.owner, { nodeId: "b", url: "ws://h:1", epoch: 3 });
  const released = ErrorData.SessionMoved.parse({ sessionId: "s1", owner: { nodeId: null } });
  assert.equal(released.owner.nodeId, null);
  assert.equal(released.owner.url, undefined);
  // the server may add keys to data
  assert.ok(ErrorData.SessionMoved.safeParse({ sessionId: "s1", owner: { nodeId: "b" }, hint: "x" }).success);

  assert.ok(!ErrorData.SessionMoved.safeParse({ sessionId: "s1" }).success, "owner is required");
  assert.ok(!ErrorData.SessionMoved.safeParse({ owner: { nodeId: "b" } }).success, "sessionId is required");
  assert.ok(!ErrorData.SessionMoved.safeParse({ sessionId: "s1", owner: {} }).success, "nodeId is required (null, not absent)");
  assert.ok(!ErrorData.SessionMoved.safeParse({ sessionId: "s1", owner: { nodeId: "b", epoch: 1.5 } }).success, "epoch is an integer");

  // it may come as an `error` event (the node that lost the session while a run was in progress)
  const ev = events.error.parse({ sessionId: "s1", seq: 4, code: ErrorCodes.SessionMoved, message: "moved", data: moved });
  assert.equal(ev.code, -32018);

  const doc = JSON.parse(readFileSync(join(repoRoot, "protocol", "schema.json"), "utf8")) as {
    errors: Record<string, { code: number; data?: { required?: string[] } }>;
  };
  assert.equal(doc.errors.SessionMoved?.code, -32018);
  assert.deepEqual(doc.errors.SessionMoved?.data?.required, ["sessionId", "owner"]);
});
