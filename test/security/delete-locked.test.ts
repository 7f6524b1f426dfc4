// deleteSession honours another process's lock: a second daemon on the same $PITH_HOME cannot
// delete a session the first is writing (-32015 SessionLocked naming the pid), and can once the
// first has closed it.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

test("a session open in another daemon is not deleted: SessionLocked with its pid; after it closes, it is", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const a = startRpcDaemon(t, { home, cwd });
  const b = startRpcDaemon(t, { home, cwd });
  await Promise.all([a.peer.initialize(), b.peer.initialize()]);
  const s = await a.peer.request("createSession", { cwd });
  const refused = await b.peer.expectError("deleteSession", { sessionId: s.sessionId }, -32015);
  assert.equal(refused.data?.pid, a.pid, JSON.stringify(refused));
  assert.equal(refused.data?.reason, "SessionLocked");
  assert.ok(existsSync(s.sessionFile), "the file is still there");
  assert.ok(existsSync(`${s.sessionFile}.lock`), "and so is the owner's lock");
  // the owner goes on writing into a file that still exists
  await a.peer.request("setSessionName", { sessionId: s.sessionId, name: "still mine" });

  await a.peer.request("closeSession", { sessionId: s.sessionId });
  const deleted = await b.peer.request("deleteSession", { sessionId: s.sessionId });
  assert.equal(deleted.deleted, s.sessionFile);
  assert.equal(existsSync(s.sessionFile), false);
  assert.equal(existsSync(`${s.sessionFile}.lock`), false, "no lock left behind");
  for (const d of [a, b]) {
    d.endStdin();
    await d.waitExit();
  }
});
