// One message over the ACP size limit (32 MiB) used to end `pith acp` (the SDK's reader failed,
// the connection closed, pith exited 0), and with it every other session's run. Now the line is
// answered with -32600 (with its id when it is at the start) and everything else goes on: a run
// in progress completes, new requests work, the process is still there.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { agentText, startAcp } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
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

/** Writes `data` to the child's stdin and resolves once it is handed to the pipe. */
function writeAll(stream: NodeJS.WritableStream, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => stream.write(data, (err) => (err ? reject(err) : resolve())));
}

test("pith acp: a 33 MiB message gets -32600 with its id; a run in progress completes, new requests work, the process stays", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  const a = await startAcp(t, { home, fake, cwd });
  t.after(() => drainFake(fake));
  const exits: Array<number | null> = [];
  a.proc.once("exit", (code) => exits.push(code));

  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  // a slow reply: the run is still streaming while the big line arrives
  fake.enqueue(textReply("The other session's answer arrives slowly but whole.", { chunkSize: 4, delayMs: 60 }));
  const from = a.updates.length;
  const running = a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] });
  await a.waitUpdate((u) => u.sessionUpdate === "agent_message_chunk", "the run streaming", from);

  const prefix = `{"jsonrpc":"2.0","id":"oversize-1","method":"session/prompt","params":{"sessionId":"${s.sessionId}","prompt":[{"type":"text","text":"`;
  const big = Buffer.alloc(33 * MiB, "x");
  big.write(prefix, 0, "utf8");
  big.write(`"}]}}\n`, big.length - 6, "utf8");
  const t0 = performance.now();
  await writeAll(a.proc.stdin, big);

  const r = await running;
  assert.equal(r.stopReason, "end_turn");
  assert.equal(agentText(a.since(from, s.sessionId)), "The other session's answer arrives slowly but whole.");
  const answer = await (async () => {
    for (let i = 0; i < 500; i++) {
      const line = a.stdoutLines.find((l) => l.includes('"oversize-1"'));
      if (line) return JSON.parse(line) as { id: unknown; error?: { code: number; message: string } };
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error(`no answer to the oversize message; stderr:\n${a.stderr().slice(-2000)}`);
  })();
  t.diagnostic(`33 MiB line answered within ${(performance.now() - t0).toFixed(0)} ms of being written`);
  assert.equal(answer.id, "oversize-1");
  assert.equal(answer.error?.code, -32600);
  assert.match(answer.error?.message ?? "", /34603007 bytes is over the 33554432-byte limit/);

  // still serving: a new session and a prompt in it
  const s2 = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(textReply("still here"));
  const from2 = a.updates.length;
  const r2 = await a.request(acp.methods.agent.session.prompt, { sessionId: s2.sessionId, prompt: [{ type: "text", text: "again" }] });
  assert.equal(r2.stopReason, "end_turn");
  assert.equal(agentText(a.since(from2, s2.sessionId)), "still here");
  assert.deepEqual(exits, [], "the process did not exit");
  assert.equal(a.proc.exitCode, null);

  // an oversize line whose id is not at its start (or that has none) is answered with id null
  const anon = Buffer.alloc(33 * MiB, " ");
  anon.write('{"params":{"pad":"', 0, "utf8");
  anon.write('x"},"jsonrpc":"2.0","id":7,"method":"session/new"}\n', anon.length - 52, "utf8");
  const before = a.stdoutLines.length;
  await writeAll(a.proc.stdin, anon);
  const nullAnswer = await (async () => {
    for (let i = 0; i < 500; i++) {
      const line = a.stdoutLines.slice(before).find((l) => l.includes("-32600"));
      if (line) return JSON.parse(line) as { id: unknown };
      await new Promise((res) => setTimeout(res, 20));
    }
    throw new Error("no answer to the second oversize message");
  })();
  assert.equal(nullAnswer.id, null);
  await a.request(acp.methods.agent.session.list, {});
  const end = await a.end();
  assert.equal(end.code, 0);
});
