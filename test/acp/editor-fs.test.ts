// The editor's buffers (issue 22, item 8): a client that advertises fs.readTextFile /
// fs.writeTextFile gets fs/read_text_file and fs/write_text_file for the model's read, write and
// edit, after pith's own path rules; what the model reads is the editor's buffer (here different
// from the disk), and pith leaves the disk alone. A path pith refuses never reaches the client. A
// client that advertised only reading gets reads through the editor and writes on disk; one that
// advertised nothing gets no fs or terminal request at all (the test client counts any request it
// has no handler for as a violation).
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
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

/** The text of every tool result the model was sent, in order. */
function toolResultsSent(fromRequest: number): string[] {
  const out: string[] = [];
  for (const req of fake.requests.slice(fromRequest)) {
    const last = req.body.messages?.at(-1);
    if (last?.role !== "user" || !Array.isArray(last.content)) continue;
    for (const b of last.content) if (b.type === "tool_result") out.push(typeof b.content === "string" ? b.content : JSON.stringify(b.content));
  }
  return out;
}

/** A client whose editor has buffers: reads answer from them, writes go into them. */
function bufferedEditor(buffers: Map<string, string>) {
  const reads: acp.ReadTextFileRequest[] = [];
  const writes: acp.WriteTextFileRequest[] = [];
  const handlers = (app: acp.ClientApp) => {
    app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      reads.push(params);
      const text = buffers.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      return { content: text };
    });
    app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push(params);
      buffers.set(params.path, params.content);
      return {};
    });
  };
  return { reads, writes, handlers };
}

async function prompt(a: AcpDaemon, sessionId: string, text: string): Promise<acp.PromptResponse> {
  return a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

function project(t: { after(fn: () => void): void }): { home: string; cwd: string } {
  const home = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  return { home, cwd: realpathSync(tempDir(t)) };
}

test("fs advertised: read shows the editor's buffer (fs/read_text_file), edit and write go through fs/write_text_file, the disk stays as it was", async (t) => {
  const { home, cwd } = project(t);
  t.after(() => drainFake(fake));
  const file = join(cwd, "a.txt");
  writeFileSync(file, "what the disk holds\n");
  const buffers = new Map([[file, "line one\nline two, unsaved in the editor\n"]]);
  const editor = bufferedEditor(buffers);
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } }, handlers: editor.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const first = fake.requests.length;
  fake.enqueue(
    toolUseReply("read", { path: "a.txt", offset: 2 }),
    toolUseReply("edit", { path: "a.txt", oldText: "two", newText: "2" }),
    toolUseReply("write", { path: "new.txt", content: "a new file\n" }),
    textReply("done"),
  );
  const end = await prompt(a, s.sessionId, "read, edit and write");
  assert.equal(end.stopReason, "end_turn");

  const results = toolResultsSent(first);
  assert.match(results[0], /2\\tline two, unsaved in the editor/, "the model read the buffer, from line 2");
  assert.doesNotMatch(results[0], /what the disk holds/);
  assert.match(results[1], /Edited a\.txt/);
  assert.match(results[2], /Created new\.txt/);
  // read and edit each read the buffer; edit wrote the buffer's text, changed byte for byte
  assert.deepEqual(editor.reads.map((r) => [r.sessionId, r.path]), [[s.sessionId, file], [s.sessionId, file]]);
  assert.deepEqual(editor.writes.map((w) => [w.sessionId, w.path, w.content]), [
    [s.sessionId, file, "line one\nline 2, unsaved in the editor\n"],
    [s.sessionId, join(cwd, "new.txt"), "a new file\n"],
  ]);
  assert.equal(readFileSync(file, "utf8"), "what the disk holds\n", "pith did not write the disk");
  assert.equal(existsSync(join(cwd, "new.txt")), false, "the editor writes new files, not pith");
  const statuses = a.since(0, s.sessionId).flatMap((u) => (u.sessionUpdate === "tool_call_update" && u.status ? [u.status] : []));
  assert.equal(statuses.filter((x) => x === "completed").length, 3);
  assert.deepEqual(a.violations, []);
  assert.deepEqual(a.wireProblems(), []);
  await a.end();
});

test("paths pith refuses never reach the client: a link in cwd to outside, ../outside, pith's home", async (t) => {
  const { home, cwd } = project(t);
  t.after(() => drainFake(fake));
  const outside = realpathSync(tempDir(t));
  writeFileSync(join(outside, "secret.txt"), "outside\n");
  symlinkSync(outside, join(cwd, "link"));
  const buffers = new Map<string, string>([[join(outside, "secret.txt"), "outside, in a buffer\n"]]);
  const editor = bufferedEditor(buffers);
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } }, handlers: editor.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const first = fake.requests.length;
  const escape = `../${outside.split("/").at(-1)}/secret.txt`;
  fake.enqueue(
    toolUseReply("read", { path: "link/secret.txt" }),
    toolUseReply("read", { path: escape }),
    toolUseReply("read", { path: join(home, "settings.json") }),
    toolUseReply("write", { path: "link/planted.txt", content: "x" }),
    toolUseReply("write", { path: escape, content: "x" }),
    toolUseReply("edit", { path: "link/secret.txt", oldText: "outside", newText: "changed" }),
    toolUseReply("write", { path: ".pith/settings.json", content: "{}" }),
    textReply("refused"),
  );
  await prompt(a, s.sessionId, "try to get out");
  const results = toolResultsSent(first);
  assert.equal(results.length, 7);
  for (const r of results.slice(0, 6)) assert.match(r, /outside the working directory|pith's own folder/);
  assert.match(results[6], /pith's settings for this project/);
  assert.deepEqual(editor.reads, [], "no refused path was read through the editor");
  assert.deepEqual(editor.writes, [], "no refused path was written through the editor");
  assert.equal(existsSync(join(outside, "planted.txt")), false);
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("only fs.readTextFile advertised: reads come from the editor, edits are written to disk by pith", async (t) => {
  const { home, cwd } = project(t);
  t.after(() => drainFake(fake));
  const file = join(cwd, "a.txt");
  writeFileSync(file, "old\n");
  const editor = bufferedEditor(new Map([[file, "buffer one\nbuffer two\n"]]));
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs: { readTextFile: true } }, handlers: editor.handlers });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  fake.enqueue(toolUseReply("edit", { path: "a.txt", oldText: "two", newText: "2" }), toolUseReply("write", { path: "b.txt", content: "bee\n" }), textReply("ok"));
  await prompt(a, s.sessionId, "edit");
  assert.equal(editor.reads.length, 1);
  assert.deepEqual(editor.writes, [], "writing was not advertised: never asked for");
  assert.equal(readFileSync(file, "utf8"), "buffer one\nbuffer 2\n", "the edit of the buffer's text, written to disk");
  assert.equal(readFileSync(join(cwd, "b.txt"), "utf8"), "bee\n");
  assert.deepEqual(a.violations, []);
  await a.end();
});

test("no fs or terminal advertised: read, write, edit and bash use the disk and pith's own processes, and no fs/* or terminal/* request is sent", async (t) => {
  const { home, cwd } = project(t);
  t.after(() => drainFake(fake));
  mkdirSync(join(cwd, "d"));
  writeFileSync(join(cwd, "d", "a.txt"), "one\ntwo\n");
  const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const first = fake.requests.length;
  fake.enqueue(
    toolUseReply("read", { path: "d/a.txt" }),
    toolUseReply("edit", { path: "d/a.txt", oldText: "two", newText: "2" }),
    toolUseReply("write", { path: "d/b.txt", content: "bee\n" }),
    toolUseReply("bash", { command: "cat d/a.txt d/b.txt" }),
    textReply("ok"),
  );
  await prompt(a, s.sessionId, "work on disk");
  const results = toolResultsSent(first);
  assert.match(results[0], /two/);
  assert.match(results[3], /one\\n2\\nbee/);
  assert.equal(readFileSync(join(cwd, "d", "a.txt"), "utf8"), "one\n2\n");
  const terminals = a.since(0, s.sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "terminal"));
  assert.deepEqual(terminals, []);
  assert.deepEqual(a.violations, [], "no request the client did not advertise");
  await a.end();
});
