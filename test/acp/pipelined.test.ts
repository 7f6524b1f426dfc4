// `bin/pith acp` written as raw lines: requests pipelined behind `initialize` (in the same write,
// before its answer came back) are handled after it, in arrival order, never refused; a request
// before any initialize is still -32600. (pith's initialize answers without an await, so these
// passed before src/acp/initialize-order.ts too; initialize-order.test.ts shows the race.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { rawLines } from "../support/raw-lines.js";

const INIT = { protocolVersion: 1, clientCapabilities: {} };

test("initialize and session/new in one write: session/new is answered after initialize, with a session", async (t) => {
  const a = rawLines(t, ["acp"]);
  a.write({ id: 1, method: "initialize", params: INIT }, { id: 2, method: "session/new", params: { cwd: a.cwd, mcpServers: [] } }, { id: 3, method: "session/list", params: {} });
  const init = await a.answer(1);
  assert.equal(init.error, undefined, JSON.stringify(init));
  assert.equal(init.result?.protocolVersion, 1);
  const created = await a.answer(2);
  assert.equal(created.error, undefined, JSON.stringify(created));
  assert.equal(typeof created.result?.sessionId, "string");
  const listed = await a.answer(3);
  assert.equal(listed.error, undefined, JSON.stringify(listed));
  assert.equal(a.order[0], 1, "initialize answered first");
});

test("a request before any initialize is still -32600; one behind a failed initialize too; after a good one, served", async (t) => {
  const a = rawLines(t, ["acp"]);
  a.write(
    { id: 1, method: "session/new", params: { cwd: a.cwd, mcpServers: [] } },
    { id: 2, method: "initialize", params: { clientCapabilities: {} } },
    { id: 3, method: "session/list", params: {} },
    { id: 4, method: "initialize", params: INIT },
    { id: 5, method: "session/new", params: { cwd: a.cwd, mcpServers: [] } },
  );
  const early = await a.answer(1);
  assert.equal(early.error?.code, -32600, JSON.stringify(early));
  assert.match(early.error?.message ?? "", /initialized/);
  const bad = await a.answer(2);
  assert.equal(bad.error?.code, -32602, JSON.stringify(bad));
  const refused = await a.answer(3);
  assert.equal(refused.error?.code, -32600, JSON.stringify(refused));
  assert.equal((await a.answer(4)).error, undefined);
  const created = await a.answer(5);
  assert.equal(created.error, undefined, JSON.stringify(created));
  assert.equal(typeof created.result?.sessionId, "string");
});
