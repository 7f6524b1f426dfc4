import assert from "node:assert/strict";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionFile, findSessionFile, listSessions, summarizeSessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, user } from "../support/messages.js";
import { tempDir } from "../support/tmp.js";

test("lists sessions newest first with name, counts and the first user message; filters by cwd", (t) => {
  const dir = tempDir(t);
  const a = SessionFile.create({ cwd: "/work/a", sessionsDir: dir });
  a.appendMessage(user("  first\n question  "));
  a.appendMessage(assistant("answer"));
  a.setName("named one");
  a.close();
  const b = SessionFile.create({ cwd: "/work/b", sessionsDir: dir });
  b.append({ type: "model_change", provider: "p", modelId: "m", timestamp: "2099-01-01T00:00:00.000Z" });
  b.close();
  // not sessions: skipped
  writeFileSync(join(dir, "--work-a--", "junk.jsonl"), "nope\n");
  mkdirSync(join(dir, "--work-a--", "dir.jsonl"));

  const all = listSessions(dir);
  assert.deepEqual(all.map((s) => s.id), [b.sessionId, a.sessionId]);
  const sa = all[1];
  assert.equal(sa.file, a.file);
  assert.equal(sa.cwd, "/work/a");
  assert.equal(sa.name, "named one");
  assert.equal(sa.messageCount, 2);
  assert.equal(sa.firstMessage, "first question");
  assert.equal(sa.created, a.header.timestamp);
  assert.ok(sa.modified >= sa.created);
  assert.equal(all[0].modified, "2099-01-01T00:00:00.000Z");
  assert.equal(all[0].firstMessage, "");

  assert.deepEqual(listSessions(dir, { cwd: "/work/a" }).map((s) => s.id), [a.sessionId]);
  assert.deepEqual(listSessions(dir, { cwd: "/nowhere" }), []);
  assert.deepEqual(listSessions(join(dir, "missing")), []);
  assert.equal(summarizeSessionFile(join(dir, "--work-a--", "junk.jsonl")), null);
});

test("summarizes a v1 Pi file (no ids) without migrating it", { skip: fixtureSkip }, (t) => {
  const file = copyFixture(tempDir(t));
  const s = summarizeSessionFile(file)!;
  assert.equal(s.id, "d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
  assert.equal(s.messageCount, 914);
  assert.equal(s.firstMessage, "/mode");
  assert.equal(s.cwd, "/Users/badlogic/workspaces/pi-mono");
});

test("findSessionFile finds a session by id: by its file name, or by headers for a file named otherwise", (t) => {
  const dir = tempDir(t);
  const a = SessionFile.create({ cwd: "/work/a", sessionsDir: dir });
  a.close();
  assert.equal(findSessionFile(dir, a.sessionId), a.file);
  const renamed = join(dir, "--work-a--", "renamed.jsonl");
  renameSync(a.file, renamed);
  assert.equal(findSessionFile(dir, a.sessionId), renamed);
  // a file whose name claims the id but whose header does not is not it
  writeFileSync(join(dir, "--work-a--", `x_${"f".repeat(8)}.jsonl`), JSON.stringify({ type: "session", id: "other", timestamp: "t", cwd: "/" }) + "\n");
  assert.equal(findSessionFile(dir, "f".repeat(8)), undefined);
  assert.equal(findSessionFile(join(dir, "missing"), "x"), undefined);
});
