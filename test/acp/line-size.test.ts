// No line pith writes on stdout in an ordinary turn is over 64 KiB unless one content block
// itself is: several ACP SDKs read NDJSON with a 64 KiB line limit (the Python SDK's example
// client ended its receive loop on a 79 KB tool_call). A write's content goes once, in the diff
// (rawInput has its size instead); long command output is cut as it is for the model.
// The client here reads through a line reader with a 64 KiB limit (test/support/line-limit.ts):
// strict (a longer line ends its receive loop, as the Python SDK's did) for ordinary turns, and
// one that drops a longer line and reads on (as a reader does that catches asyncio's error) for
// content blocks over the limit by themselves: a 200 KB write's diff. The read tool's 50 KB of
// quote-heavy JSON, which JSON escaping would make about 69 KB on the wire, is cut for the editor.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { agentText, startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { reply, startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { limitLines, LINE_LIMIT, type LimitedLines } from "../support/line-limit.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const LIMIT = LINE_LIMIT;
/** a window that holds a 200 KB file without compacting */
const LARGE_MODEL = { id: "large-model", contextWindow: 1_000_000, maxOutputTokens: 8_000 };

/** pith acp for a client whose reader has a 64 KiB line limit ("end": a longer line ends its receive loop). */
async function limitedClient(t: TestContext, onLong: "end" | "skip", model = SMALL_MODEL): Promise<{ a: AcpDaemon; reader: LimitedLines; cwd: string }> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, models: [model], model: model.id });
  let reader: LimitedLines | undefined;
  const a = await startAcp(t, { home, fake, cwd, readStdout: (stdout) => (reader = limitLines(stdout, onLong)).readable });
  assert.ok(reader);
  return { a, reader, cwd };
}

/** One more prompt and its answer: the client's receive loop still works. */
async function stillWorks(a: AcpDaemon, sessionId: string): Promise<void> {
  fake.enqueue(textReply("still here"));
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "are you there?" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(agentText(a.since(from, sessionId)), "still here");
}

test("a client with a 64 KiB line limit keeps working through a turn that writes a 39 KB file, edits it and runs a noisy command: no line over 64 KiB, the diffs stay whole", async (t) => {
  const { a, reader, cwd } = await limitedClient(t, "end");
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
  assert.deepEqual(reader.refused.map((l) => l.bytes), [], "the reader refused no line");
  await stillWorks(a, s.sessionId);
  assert.equal(reader.ended(), undefined, "the client's receive loop is alive");
});

/** About `bytes` of TypeScript: the kind of file a model reads whole. */
function sourceFile(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 7 === 0 ? `\texport function f${i}(a: string, b = "x\\"${i}\\""): string {\n` : `\t\treturn a + b + 'line ${i}' + \`\${a}\`; // é ${i}\n`;
    out.push(line);
    size += Buffer.byteLength(line);
  }
  return out.join("");
}

test("a client with a 64 KiB line limit keeps working through reads as large as the read tool gives (the first 50 KB of a 200 KB source file) and a wide grep", async (t) => {
  const { a, reader, cwd } = await limitedClient(t, "end");
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  writeFileSync(join(cwd, "big.ts"), sourceFile(200_000));
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(
    reply([
      { type: "tool_use", name: "read", input: { path: "big.ts" } },
      { type: "tool_use", name: "read", input: { path: "big.ts", offset: 1500 } },
      { type: "tool_use", name: "grep", input: { pattern: "return", path: "." } },
    ]),
    textReply("Read it."),
  );
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Read big.ts." }] });
  assert.equal(r.stopReason, "end_turn");
  const done = a.since(from, s.sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  assert.equal(done.length, 3, "three results shown");
  assert.ok(JSON.stringify(done[0]).length > 40_000, "a large result (the read tool's cut), not an empty one");
  assert.deepEqual(reader.refused.map((l) => `${l.bytes}: ${l.text.slice(0, 200)}`), [], "the reader refused no line");
  await stillWorks(a, s.sessionId);
  assert.equal(reader.ended(), undefined, "the client's receive loop is alive");
});

/** The largest single content block of a session/update line, as JSON, in bytes. */
function largestBlock(line: string): number {
  const msg = JSON.parse(line) as { params?: { update?: { content?: unknown } } };
  const content = msg.params?.update?.content;
  const blocks = Array.isArray(content) ? content : content === undefined ? [] : [content];
  return Math.max(0, ...blocks.map((b) => Buffer.byteLength(JSON.stringify(b), "utf8")));
}

test("a content block over 64 KiB by itself (a 200 KB write's diff) costs a line-limited client that line only: the 39 KB write beside it, the turn's answer and the next turn arrive; a read of one-line JSON is cut to fit", async (t) => {
  const { a, reader, cwd } = await limitedClient(t, "skip", LARGE_MODEL);
  t.after(() => drainFake(fake));
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  const small = sourceFile(39_000);
  const large = sourceFile(200_000);
  // one line of JSON, quote-heavy: the read tool's 50 KB of it is about 69 KB as JSON text
  writeFileSync(join(cwd, "data.json"), JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `n"${i}"`, tags: ["a", "b"] }))));
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(
    reply(
      [
        { type: "tool_use", name: "write", input: { path: "small.ts", content: small } },
        { type: "tool_use", name: "write", input: { path: "large.ts", content: large } },
      ],
      { jsonChunkSize: 4096 },
    ),
    textReply("Written."),
  );
  const from = a.updates.length;
  const r = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Write both." }] });
  assert.equal(r.stopReason, "end_turn", "the turn's answer arrived");
  assert.equal(readFileSync(join(cwd, "large.ts"), "utf8"), large);
  const got = a.since(from, s.sessionId);
  const smallCall = got.find((u) => u.sessionUpdate === "tool_call" && u.title === "Write small.ts");
  assert.ok(smallCall && smallCall.sessionUpdate === "tool_call", "the 39 KB write's tool_call came through");
  assert.deepEqual(smallCall.content, [{ type: "diff", path: join(cwd, "small.ts"), newText: small }]);
  assert.equal(agentText(got), "Written.");

  fake.enqueue(toolUseReply("read", { path: "data.json" }), textReply("Read."));
  const r2 = await a.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Read data.json." }] });
  assert.equal(r2.stopReason, "end_turn");
  await stillWorks(a, s.sessionId);

  // what was refused: the large write's announcement and result (each carries its whole diff),
  // each a line with one content block over the limit by itself; the JSON read's result fits
  const refused = reader.refused.map((l) => JSON.parse(l.text) as { params: { update: { sessionUpdate: string; title?: string; status?: string } } });
  assert.deepEqual(
    refused.map((m) => `${m.params.update.sessionUpdate} ${m.params.update.title ?? m.params.update.status}`),
    ["tool_call Write large.ts", "tool_call_update completed"],
  );
  for (const l of reader.refused) assert.ok(largestBlock(l.text) > LIMIT, `a line of ${l.bytes} bytes whose largest block is ${largestBlock(l.text)} bytes: ${l.text.slice(0, 200)}`);
  for (const l of reader.refused) t.diagnostic(`refused: ${l.bytes} bytes, largest block ${largestBlock(l.text)} bytes`);
});
