// Closing (or deleting) a session cancels what is in flight (the user's bash, a tree move with a
// summary, a compaction), waits for it to store what it must, and the interrupted caller gets
// its normal cancelled answer: `cancelled: true` for bash, -32016 for the others.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hang, startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { bigText, FLOW_SETTINGS, poll, processWithArg, startRpcDaemon, writeSettings, type RpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

async function daemon(t: Parameters<typeof tempDir>[0]): Promise<{ d: RpcDaemon; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  return { d, cwd };
}

for (const how of ["closeSession", "deleteSession"] as const) {
  test(`${how} while the user's bash runs: the closer gets ok, the bash caller its cancelled answer, the command is stored`, async (t) => {
    const { d, cwd } = await daemon(t);
    const s = await d.peer.request("createSession", { cwd });
    const marker = `sleep 604.${how.length}${process.pid % 100}`;
    const bash = d.peer.call("bash", { sessionId: s.sessionId, command: marker }, 20_000);
    await poll(() => processWithArg(marker), "the command to run");
    const closed = await d.peer.request(how, { sessionId: s.sessionId });
    assert.ok(how === "closeSession" ? "closed" in closed && closed.closed === true : "deleted" in closed && typeof closed.deleted === "string");
    const answer = await bash;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.equal(answer.result.cancelled, true);
    assert.equal(typeof answer.result.entryId, "string");
    assert.equal(processWithArg(marker), undefined, "the command is gone");
    if (how === "closeSession") {
      const again = await d.peer.request("openSession", { sessionFile: s.sessionFile });
      const { messages } = await d.peer.request("getMessages", { sessionId: again.sessionId });
      assert.deepEqual(messages.map((m: { role: string; command?: string; cancelled?: boolean }) => [m.role, m.command, m.cancelled]), [["bashExecution", marker, true]]);
    }
    assert.deepEqual(d.peer.violations, []);
    d.endStdin();
    await d.waitExit();
  });
}

test("closeSession during a manual compaction and during a tree move with a summary: each caller gets -32016", async (t) => {
  const { d, cwd } = await daemon(t);
  writeFileSync(join(cwd, "a.txt"), "x\n");
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(textReply("first answer"));
  const first = await d.peer.runPrompt(s.sessionId, bigText("one"));
  fake.enqueue(textReply("second answer"));
  await d.peer.runPrompt(s.sessionId, bigText("two"));

  fake.enqueue(hang());
  const from = d.peer.mark();
  const compaction = d.peer.call("compact", { sessionId: s.sessionId });
  await d.peer.waitEvent((e) => e.type === "compaction_start", "compaction_start", from);
  await poll(() => (fake.requests.length > 0 && fake.remaining() === 0 ? true : undefined), "the summarizer request");
  await d.peer.request("closeSession", { sessionId: s.sessionId });
  const c = await compaction;
  assert.equal(c.error?.code, -32016, JSON.stringify(c));

  const again = await d.peer.request("openSession", { sessionFile: s.sessionFile });
  const userEntry = (await d.peer.request("getTree", { sessionId: again.sessionId })).entries.find((e: { role?: string }) => e.role === "user");
  assert.ok(userEntry && first.events.length > 0);
  fake.enqueue(hang());
  const move = d.peer.call("navigateTree", { sessionId: again.sessionId, targetId: userEntry.id, summarize: true });
  await d.peer.waitEvent((e) => e.type === "branch_summary_start", "branch_summary_start", from);
  await d.peer.request("closeSession", { sessionId: again.sessionId });
  const m = await move;
  assert.equal(m.error?.code, -32016, JSON.stringify(m));
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});
