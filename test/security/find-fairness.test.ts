// find and ls over a huge directory never hold the daemon: while session A's model lists 100,000
// files, session B's getState keeps being answered (100,000 is enough: the old code's stall was a
// share of the run whatever the count, and making 300,000 files cost the suite 20 s). Before the fix, find over one directory of
// 300,000 names sorted them, matched them and sorted the result in one go (3.7 s without a turn
// of the event loop on the machine this was written on), and ls sorted 300,000 mixed-case names
// in one go (0.9 s). No wall-clock bound: getState round trips run one after another for as long as
// the tool runs, and no single one may take a large share of the tool's whole run (a stall that
// covers most of it is what the old code did, however fast the machine).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { asEvent, FLOW_SETTINGS, startRpcDaemon, writeSettings, type RpcPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

const FILES = 100_000;
/** Most of the tool's run one getState may take (the old code: about 2/3 for find, more for ls). */
const MAX_SHARE = 0.25;

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** One directory of FILES empty files with mixed-case names (so sorting them is real work). */
function makeFlatDir(root: string): void {
  const names = `awk 'BEGIN{srand(7); A="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"; for(i=0;i<${FILES};i++){s=""; for(k=0;k<6;k++) s=s substr(A,int(rand()*52)+1,1); print s i ".txt"}}'`;
  const r = spawnSync("bash", ["-c", `mkdir t && cd t && ${names} | xargs touch`], { cwd: root, stdio: "ignore" });
  assert.equal(r.status, 0, "the directory was made");
}

/** The model of session `a` calls `tool`; getState of `b` round trips while it runs. */
async function whileToolRuns(peer: RpcPeer, a: string, b: string, tool: string, args: object) {
  fake.enqueue(toolUseReply(tool, args), textReply("done"));
  const from = peer.mark();
  await peer.request("prompt", { sessionId: a, text: `${tool} them all` });
  await peer.waitEvent((e) => e.sessionId === a && e.type === "tool_execution_start", `${tool} started`, from, 60_000);
  const isEnd = (e: { sessionId?: string; type: string }) => e.sessionId === a && e.type === "tool_execution_end";
  const ended = () => peer.events.slice(from).some(isEnd);
  const started = performance.now();
  let answered = 0;
  let slowest = 0;
  while (!ended()) {
    const sent = performance.now();
    await peer.request("getState", { sessionId: b });
    slowest = Math.max(slowest, performance.now() - sent);
    if (!ended()) answered++;
  }
  const run = performance.now() - started;
  const end = asEvent(await peer.waitEvent(isEnd, `${tool} ended`, from), "tool_execution_end");
  await peer.waitEvent((e) => e.sessionId === a && e.type === "agent_end", "agent_end", from, 60_000);
  return { end, answered, slowest, run, share: slowest / run };
}

test(`find and ls over one directory of ${FILES} files: another session's getState is never stuck for a large share of the run`, { timeout: 300_000 }, async (t) => {
  const home = tempDir(t, "pith-fair-home-");
  const big = tempDir(t, "pith-fair-tree-");
  // a project of its own (no session works inside pith's home)
  const small = tempDir(t, "pith-fair-other-");
  makeFlatDir(big);
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

  for (const [tool, args] of [
    ["find", { pattern: "*.txt" }],
    ["ls", { path: "t" }],
  ] as const) {
    const r = await whileToolRuns(d.peer, a.sessionId, b.sessionId, tool, args);
    t.diagnostic(`${tool}: ran ${Math.round(r.run)} ms; getState answered ${r.answered} times meanwhile, the slowest in ${Math.round(r.slowest)} ms (${(r.share * 100).toFixed(1)}% of the run)`);
    assert.equal(r.end.isError, false, JSON.stringify(r.end.result).slice(0, 300));
    assert.ok(r.answered >= 1, `getState was answered while ${tool} ran`);
    assert.ok(r.share < MAX_SHARE, `${tool}: one getState waited ${(r.share * 100).toFixed(0)}% of the tool's run`);
  }
});
