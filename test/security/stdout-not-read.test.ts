// An editor that spawned `pith --mode rpc` and then stopped reading its stdout (hung, or hostile)
// made the daemon keep every event and answer meant for it, however many: each getMessages of a
// large session added its whole size to the daemon's memory, for as long as it lived. Now a
// reader that leaves more than 128 MiB unread is treated as gone, as a closed pipe is: the daemon
// says so on stderr and shuts down cleanly, and the sessions are all there for the next one.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { FLOW_SETTINGS, startRpcDaemon, textOf, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const MiB = 1024 * 1024;

/** The daemon's resident memory now, in MiB (0 once it is gone). */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

test("a client that stops reading stdout: past 128 MiB unread the daemon shuts down, says why, and loses nothing", { timeout: 120_000 }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  t.after(() => drainFake(fake));
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const { sessionId } = await d.peer.request("createSession", { cwd });
  // a session with one 4 MiB message: each getMessages answer carries it
  const big = Array.from({ length: 4 * 1024 }, (_, i) => `line ${i} `.padEnd(1023, "x")).join("\n");
  fake.enqueue(textReply("read it"));
  await d.peer.runPrompt(sessionId, big);

  d.proc.stdout!.pause(); // the editor stops reading
  const before = rssMiB(d.pid);
  let peak = before;
  const watch = setInterval(() => (peak = Math.max(peak, rssMiB(d.pid))), 50);
  t.after(() => clearInterval(watch));
  // 60 answers of 4 MiB: 240 MiB meant for a reader that reads none of it
  for (let i = 0; i < 60; i++) d.proc.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: 1000 + i, method: "getMessages", params: { sessionId } }) + "\n");
  const exit = await d.waitExit(60_000);
  clearInterval(watch);
  t.diagnostic(`daemon memory ${before.toFixed(0)} MiB before the client stopped reading, at most ${peak.toFixed(0)} MiB after; exit ${exit.code}`);
  assert.equal(exit.code, 0, d.stderr.slice(-2000));
  assert.match(d.stderr, /the client is not reading its output; closing the connection/);
  assert.ok(peak - before < 128 + 64 + 4 * 20, `memory held for the reader stays bounded (${(peak - before).toFixed(0)} MiB more)`);

  // nothing stored is lost: the next daemon has the session, the big message and the reply
  const again = startRpcDaemon(t, { home, fake, cwd });
  await again.peer.initialize();
  const listed = await again.peer.request("listSessions", {});
  const file = listed.sessions.find((s) => s.id === sessionId)?.file;
  assert.ok(file, "the session is listed");
  const opened = await again.peer.request("openSession", { sessionFile: file });
  const { messages } = await again.peer.request("getMessages", { sessionId: opened.sessionId });
  assert.equal(messages.length, 2);
  assert.equal(textOf(messages[0]).length, big.length);
  assert.match(textOf(messages[1]), /read it/);
  assert.ok(big.length > 4 * MiB - 8 * 1024);
  again.endStdin();
  await again.waitExit();
});
