// No line pith writes on stdout in an ordinary turn is over 64 KiB unless one content block
// itself is: several ACP SDKs read NDJSON with a 64 KiB line limit (the Python SDK's example
// client ended its receive loop on a 79 KB tool_call). A write's content goes once, in the diff
// (rawInput has its size instead); long command output is cut as it is for the model.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const LIMIT = 64 * 1024;

test("a turn that writes a 39 KB file, edits it and runs a noisy command sends no stdout line over 64 KiB; the diffs stay whole", async (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  const a = await startAcp(t, { home, fake, cwd });
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid and lossless as sent"));

  // quotes and newlines: its JSON form is larger than the text (about 43 KB)
  const lines: string[] = [];
  for (let i = 0; lines.join("").length < 39_000; i++) lines.push(`export const s${i} = "value \\"${i}\\" é";\n`);
  const content = lines.join("");
  const newText = `${lines[1].replace("value", "changed").repeat(300)}`;
  await a.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(
    toolUseReply("write", { path: "big.ts", content }, { text: "Writing." }),
    toolUseReply("edit", { path: "big.ts", oldText: lines[1], newText }),
    toolUseReply("bash", { command: "seq 1 200000" }),
    textReply("Done."),
  );
  const fromLine = a.stdoutLines.length;
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Write big.ts, then edit it." }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(readFileSync(join(cwd, "big.ts"), "utf8"), content.replace(lines[1], newText), "the write and the edit went through");

  const sent = a.stdoutLines.slice(fromLine);
  const sizes = sent.map((l) => Buffer.byteLength(l, "utf8") + 1);
  const largest = Math.max(...sizes);
  assert.ok(largest < LIMIT, `largest line ${largest} bytes: ${sent[sizes.indexOf(largest)].slice(0, 200)}`);

  const got = a.since(from, s.sessionId);
  const calls = got.filter((u) => u.sessionUpdate === "tool_call");
  const write = calls.find((u) => u.sessionUpdate === "tool_call" && u.kind === "edit" && u.title === "Write big.ts");
  assert.ok(write && write.sessionUpdate === "tool_call");
  assert.deepEqual(write.content, [{ type: "diff", path: join(cwd, "big.ts"), newText: content }], "the whole new content, once");
  assert.deepEqual(write.rawInput, { path: "big.ts", contentBytes: Buffer.byteLength(content) });
  const edit = calls.find((u) => u.sessionUpdate === "tool_call" && u.title === "Edit big.ts");
  assert.ok(edit && edit.sessionUpdate === "tool_call");
  assert.deepEqual(edit.content, [{ type: "diff", path: join(cwd, "big.ts"), oldText: lines[1], newText }]);
  assert.deepEqual(edit.rawInput, { path: "big.ts", oldTextBytes: Buffer.byteLength(lines[1]), newTextBytes: Buffer.byteLength(newText) });
  const writeDone = got.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === write.toolCallId && u.status === "completed").at(-1);
  assert.ok(writeDone && writeDone.sessionUpdate === "tool_call_update");
  assert.deepEqual(writeDone.content?.[0], { type: "diff", path: join(cwd, "big.ts"), newText: content }, "the finished write still shows the whole diff");
  const bash = calls.find((u) => u.sessionUpdate === "tool_call" && u.kind === "execute");
  assert.ok(bash);
  const bashDone = got.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === bash.toolCallId && u.status === "completed").at(-1);
  assert.ok(bashDone && bashDone.sessionUpdate === "tool_call_update");
  assert.match(JSON.stringify(bashDone.content), /200000/, "the output's tail");
});
