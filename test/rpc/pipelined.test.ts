// `pith --mode rpc` written as raw lines: createSession pipelined behind initialize (in the same
// write, before its answer came back) is served; a request before any initialize is refused
// (-32002); one behind a failed initialize too. (The stdio server sets the connection
// initialized while it dispatches initialize, before it reads the next line.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { rawLines } from "../support/raw-lines.js";

const INIT = { protocolVersion: 1, clientInfo: { name: "raw", version: "1" }, capabilities: { permissions: false, hooks: [] } };

test("stdio: initialize and createSession in one write: both answered, createSession with a session", async (t) => {
  const r = rawLines(t, ["--mode", "rpc"]);
  r.write(
    { id: 1, method: "listSessions", params: {} },
    { id: 2, method: "initialize", params: { ...INIT, protocolVersion: 99 } },
    { id: 3, method: "listSessions", params: {} },
    { id: 4, method: "initialize", params: INIT },
    { id: 5, method: "createSession", params: { cwd: r.cwd } },
    { id: 6, method: "listSessions", params: {} },
  );
  assert.equal((await r.answer(1)).error?.code, -32002);
  assert.equal((await r.answer(2)).error?.code, -32602);
  assert.equal((await r.answer(3)).error?.code, -32002);
  const init = await r.answer(4);
  assert.equal(init.error, undefined, JSON.stringify(init));
  const created = await r.answer(5);
  assert.equal(created.error, undefined, JSON.stringify(created));
  assert.equal(typeof created.result?.sessionId, "string");
  const listed = await r.answer(6);
  assert.equal(listed.error, undefined, JSON.stringify(listed));
});
