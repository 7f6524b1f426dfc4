// find over a huge tree never holds the daemon: while session A's model walks 300,000 files,
// session B's getState is answered. Ordering, not timing: a getState sent when A's find has
// started must be answered before A's tool_execution_end arrives (before this fix the walk, match
// and sort of the whole list ran in one go and getState waited behind all of it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { asEvent, FLOW_SETTINGS, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

const DIRS = Number(process.env.PITH_FAIRNESS_DIRS ?? 300);
const PER_DIR = 1000;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

function makeTree(root: string): void {
  const script = `for d in $(seq 0 ${DIRS - 1}); do mkdir -p "t/d$d" && (cd "t/d$d" && touch $(seq -f 'f%g.txt' 0 ${PER_DIR - 1})); done`;
  const r = spawnSync("bash", ["-c", script], { cwd: root, stdio: "ignore" });
  assert.equal(r.status, 0, "the tree was made");
}

test(`find over ${DIRS * PER_DIR} files: another session's getState is answered before the find ends`, { timeout: 240_000 }, async (t) => {
  const home = tempDir(t, "pith-fair-home-");
  const big = tempDir(t, "pith-fair-tree-");
  const small = join(home, "other");
  mkdirSync(small);
  makeTree(big);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd: big });
  await d.peer.initialize();
  t.after(async () => {
    d.endStdin();
    await d.waitExit();
    await drainFake(fake);
  });
  const a = await d.peer.request("createSession", { cwd: big });
  const b = await d.peer.request("createSession", { cwd: small });

  fake.enqueue(toolUseReply("find", { pattern: "**/*.txt" }), textReply("done"));
  const from = d.peer.mark();
  await d.peer.request("prompt", { sessionId: a.sessionId, text: "find them all" });
  await d.peer.waitEvent((e) => e.sessionId === a.sessionId && e.type === "tool_execution_start", "find started", from, 60_000);
  const isEnd = (e: { sessionId?: string; type: string }) => e.sessionId === a.sessionId && e.type === "tool_execution_end";
  const ended = () => d.peer.events.slice(from).some(isEnd);

  // getState round trips, one after another, for as long as the find runs
  let answeredBeforeEnd = 0;
  let answeredAfterEnd = 0;
  let slowest = 0;
  const t0 = performance.now();
  while (!ended()) {
    const sent = performance.now();
    await d.peer.request("getState", { sessionId: b.sessionId });
    slowest = Math.max(slowest, performance.now() - sent);
    if (ended()) answeredAfterEnd++;
    else answeredBeforeEnd++;
  }
  const end = asEvent(await d.peer.waitEvent(isEnd, "find ended", from), "tool_execution_end");
  t.diagnostic(`getState answered ${answeredBeforeEnd} times while the find ran (${Math.round(performance.now() - t0)} ms), ${answeredAfterEnd} after it ended; slowest ${Math.round(slowest)} ms`);
  assert.equal(end.isError, false, JSON.stringify(end.result).slice(0, 300));
  assert.ok(answeredBeforeEnd >= 1, "getState sent while the find ran was answered before the find ended");
  await d.peer.waitEvent((e) => e.sessionId === a.sessionId && e.type === "agent_end", "agent_end", from, 60_000);
});
