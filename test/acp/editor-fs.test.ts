// A client that advertises fs.readTextFile / fs.writeTextFile (issue 22, item 8, then issue 32,
// row 3): the capability is accepted, and the model's read, write and edit still go through
// pith's own path rules and descriptors, on disk; no fs/* request is sent (why: below). Paths
// pith refuses stay refused with the capability advertised. A client that advertised nothing gets
// no fs or terminal request at all (the test client counts any request it has no handler for as
// a violation).
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { toolResultsSent } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** A client whose editor has buffers and would answer from them: every fs request it gets is recorded. */
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

// What the editor lends is no longer used for files (issue 32, row 3): fs/read_text_file and
// fs/write_text_file make the editor open the path itself, after pith's check, and another
// session's command swapping a directory for a link in between sent about one write in ten into
// pith's home (test/security/editor-fs-race.test.ts). The capability is accepted; the model's
// read, edit and write go through pith's own checked descriptors, and the editor sees the change
// on disk. Each advertised combination is tried, with an editor that would answer.
for (const fs of [{ readTextFile: true, writeTextFile: true }, { readTextFile: true }, { writeTextFile: true }] satisfies acp.FileSystemCapabilities[]) {
  test(`fs advertised as ${JSON.stringify(fs)}: read, edit and write use the disk, and no fs/* request is sent`, async (t) => {
    const { home, cwd } = project(t);
    t.after(() => drainFake(fake));
    const file = join(cwd, "a.txt");
    writeFileSync(file, "line one\nline two on disk\n");
    const buffers = new Map([[file, "line one\nline two, unsaved in the editor\n"]]);
    const editor = bufferedEditor(buffers);
    const a = await startAcp(t, { home, fake, cwd, clientCapabilities: { fs }, handlers: editor.handlers });
    const s = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const first = fake.requests.length;
    fake.enqueue(
      toolUseReply("read", { path: "a.txt", offset: 2 }),
      toolUseReply("edit", { path: "a.txt", oldText: "two", newText: "2" }),
      toolUseReply("write", { path: "sub/new.txt", content: "a new file\n" }),
      textReply("done"),
    );
    const end = await prompt(a, s.sessionId, "read, edit and write");
    assert.equal(end.stopReason, "end_turn");

    const results = toolResultsSent(fake, first);
    assert.match(results[0], /2\\tline two on disk/, "the model read the disk, from line 2");
    assert.doesNotMatch(results[0], /unsaved/);
    assert.match(results[1], /Edited a\.txt/);
    assert.match(results[2], /Created sub\/new\.txt/);
    assert.equal(readFileSync(file, "utf8"), "line one\nline 2 on disk\n", "pith edited the file on disk");
    assert.equal(readFileSync(join(cwd, "sub", "new.txt"), "utf8"), "a new file\n", "pith wrote the new file (and its directory)");
    assert.deepEqual(editor.reads, [], "the editor was not asked to read");
    assert.deepEqual(editor.writes, [], "the editor was not asked to write");
    assert.equal(buffers.get(file), "line one\nline two, unsaved in the editor\n", "its buffer is its own");
    const statuses = a.since(0, s.sessionId).flatMap((u) => (u.sessionUpdate === "tool_call_update" && u.status ? [u.status] : []));
    assert.equal(statuses.filter((x) => x === "completed").length, 3);
    assert.deepEqual(a.violations, []);
    assert.deepEqual(a.wireProblems(), []);
    await a.end();
  });
}

test("fs advertised: paths pith refuses are refused, and nothing reaches the client: a link in cwd to outside, ../outside, pith's home", async (t) => {
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
  const results = toolResultsSent(fake, first);
  assert.equal(results.length, 7);
  for (const r of results.slice(0, 6)) assert.match(r, /outside the working directory|pith's own folder/);
  assert.match(results[6], /pith's settings for this project/);
  assert.deepEqual(editor.reads, [], "no refused path was read through the editor");
  assert.deepEqual(editor.writes, [], "no refused path was written through the editor");
  assert.equal(existsSync(join(outside, "planted.txt")), false);
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
  const results = toolResultsSent(fake, first);
  assert.match(results[0], /two/);
  assert.match(results[3], /one\\n2\\nbee/);
  assert.equal(readFileSync(join(cwd, "d", "a.txt"), "utf8"), "one\n2\n");
  const terminals = a.since(0, s.sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "terminal"));
  assert.deepEqual(terminals, []);
  assert.deepEqual(a.violations, [], "no request the client did not advertise");
  await a.end();
});
