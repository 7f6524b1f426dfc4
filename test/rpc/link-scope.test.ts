// What a node link (cluster token) may call: exactly the session methods of the table, read from
// it (params with sessionId), but the user's bash; initialize; openSession by id. Nothing global.
import assert from "node:assert/strict";
import { test } from "node:test";
import { methods, type MethodName } from "../../protocol/methods.js";
import { linkCallRefusal } from "../../src/rpc/link-scope.js";

const ALL = Object.keys(methods) as MethodName[];

test("a node link relays the session methods and initialize, and nothing global", () => {
  const relayed = ALL.filter((m) => m !== "openSession" && linkCallRefusal(m, { sessionId: "s1" }) === undefined).sort();
  assert.deepEqual(
    relayed,
    [
      "abort", "closeSession", "compact", "deleteSession", "forkSession", "getHistory", "getMessages", "getSessionStats", "getState", "getTree", "initialize", "listMcpServers",
      "navigateTree", "prompt", "setAutoCompactionEnabled", "setCompactionThreshold", "setLabel", "setModel", "setPermissionMode", "setSessionName", "setThinkingLevel", "subscribe", "unsubscribe",
    ].sort(),
  );
  for (const m of ["createSession", "listSessions", "listModels", "getSettings", "updateSettings"] as const) assert.match(linkCallRefusal(m, {}) ?? "", /not relayed/, m);
  assert.match(linkCallRefusal("bash", { sessionId: "s1", command: "id" }) ?? "", /bash is not run for another node/);
});

test("a node link opens stored sessions by id, never a file on this node's disk", () => {
  assert.equal(linkCallRefusal("openSession", { sessionId: "s1" }), undefined);
  assert.equal(linkCallRefusal("openSession", { sessionFile: "pg:s1" }), undefined);
  assert.match(linkCallRefusal("openSession", { sessionFile: "/home/u/.pith/sessions/x.jsonl" }) ?? "", /by id only/);
});
