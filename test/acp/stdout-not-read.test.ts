// An editor that stops reading `pith acp`'s stdout: the SDK used to queue every later message in
// its own promise chain, however many, for as long as the process lived. Now an editor that leaves
// more than 128 MiB unread is treated as gone: pith says so on stderr, closes the sessions
// (stored as they are) and exits, and the next `pith acp` loads the session with nothing lost.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, writeSettings } from "../support/daemon-client.js";
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

/** a window that holds the big prompt without compacting */
const LARGE_MODEL = { id: "large-model", contextWindow: 2_000_000, maxOutputTokens: 8_000 };

/** Passes the agent's stdout on until `stop()`: then reads no more, as a hung editor. */
function stoppableReader() {
  let stopped = false;
  let wake: (() => void) | undefined;
  return {
    stop() {
      stopped = true;
    },
    wrap(stdout: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
      const reader = stdout.getReader();
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (stopped) return new Promise<void>((resolve) => (wake = resolve)); // never woken: reads nothing more
            const { value, done } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
          cancel: () => wake?.(),
        },
        { highWaterMark: 0 },
      );
    },
  };
}

test("an editor that stops reading stdout: past 128 MiB unread pith acp shuts down, says why, and the session loads again whole", { timeout: 120_000 }, async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, models: [LARGE_MODEL], model: LARGE_MODEL.id });
  t.after(() => drainFake(fake));
  const gate = stoppableReader();
  const a = await startAcp(t, { home, fake, cwd, readStdout: (stdout) => gate.wrap(stdout) });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const big = Array.from({ length: 2 * 1024 }, (_, i) => `line ${i} `.padEnd(1023, "x")).join("\n");
  fake.enqueue(textReply("read it"));
  const end = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: big }] });
  assert.equal(end.stopReason, "end_turn");

  gate.stop();
  const exited = new Promise<number | null>((resolve) => a.proc.once("exit", (code) => resolve(code)));
  // each session/load replays the 2 MiB message: 100 of them are 200 MiB for an editor reading none
  for (let i = 0; i < 100; i++) {
    a.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 5000 + i, method: acp.methods.agent.session.load, params: { sessionId: s.sessionId, cwd, mcpServers: [] } }) + "\n");
  }
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 60_000).unref());
  const code = await Promise.race([exited, timeout]);
  assert.notEqual(code, "timeout", `pith acp did not exit; stderr:\n${a.stderr().slice(-2000)}`);
  assert.equal(code, 0, a.stderr().slice(-2000));
  assert.match(a.stderr(), /the editor is not reading its output; shutting down/);

  // nothing stored is lost: the next pith acp loads the session with the big message and the reply
  const b = await startAcp(t, { home, fake, cwd });
  const from = b.updates.length;
  await b.request(acp.methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
  const replayed = b.since(from, s.sessionId);
  const userText = replayed.flatMap((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("");
  const agentText = replayed.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("");
  assert.equal(userText.length, big.length);
  assert.match(agentText, /read it/);
  await b.end();
});
