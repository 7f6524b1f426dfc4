// The real Pi session (v1 format, 914 messages), copied to a temp dir: migration, context, tree.
// Expected figures come from Pi 0.58.3 itself (node ../shared/tools/pi-oracle.mjs on the file).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { SessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip, PI_FIXTURE } from "../support/fixture.js";
import { tempDir } from "../support/tmp.js";

const PI = {
  entries: 1018,
  contextMessages: 914,
  roles: { user: 88, assistant: 453, toolResult: 373 },
  roleSequenceSha256: "ca81cbd664b848425f6db551cad03e4a5675109c58f7308cb27de49aad40eb04",
  model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
  thinkingLevel: "off",
};

test("the Pi v1 fixture migrates to v3 with a backup, and gives Pi's context", { skip: fixtureSkip }, (t) => {
  const dir = tempDir(t);
  const file = copyFixture(dir);
  const original = readFileSync(file);
  const s = SessionFile.open(file);
  t.after(() => s.close());
  assert.equal(s.backupFile, `${file}.v1.bak`);
  assert.deepEqual(readFileSync(`${file}.v1.bak`), original, "the original is kept byte for byte");
  assert.deepEqual(readFileSync(PI_FIXTURE), original, "the shared fixture is untouched");
  assert.deepEqual(readdirSync(dir).sort(), ["pi-session.jsonl", "pi-session.jsonl.lock", "pi-session.jsonl.v1.bak"]);

  const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].version, 3);
  assert.equal(lines[0].modelId, "claude-sonnet-4-5", "header fields of the old format are kept");
  assert.equal(lines.length - 1, PI.entries);
  const ids = new Set<string>();
  let previous: string | null = null;
  for (const e of lines.slice(1)) {
    assert.match(e.id, /^[0-9a-f]{8}$/);
    assert.equal(e.parentId, previous, "v1 is a linear chain");
    ids.add(e.id);
    previous = e.id;
  }
  assert.equal(ids.size, PI.entries);

  assert.equal(s.entryCount, PI.entries);
  assert.equal(s.leafId, previous);
  const ctx = s.buildContext();
  assert.equal(ctx.messages.length, PI.contextMessages);
  const roles: Record<string, number> = {};
  for (const m of ctx.messages) roles[m.role] = (roles[m.role] ?? 0) + 1;
  assert.deepEqual(roles, PI.roles);
  const sequence = ctx.messages.map((m) => m.role).join(",");
  assert.equal(createHash("sha256").update(sequence).digest("hex"), PI.roleSequenceSha256);
  assert.deepEqual(ctx.model, PI.model);
  assert.equal(ctx.thinkingLevel, PI.thinkingLevel);
  // aborted and empty assistant messages are in the context, as in Pi
  assert.equal(ctx.messages[1].role, "assistant");
  assert.equal((ctx.messages[1] as { stopReason: string }).stopReason, "aborted");

  const tree = s.tree();
  assert.equal(tree.entries.length, PI.entries);
  assert.equal(tree.entries.filter((n) => n.parentId === null).length, 1, "one root");
  assert.ok(tree.entries.every((n) => n.depth === 0), "no forks");
  assert.equal(tree.leafId, previous);
});

test("reopening the migrated file needs no second migration and gives the same context", { skip: fixtureSkip }, (t) => {
  const dir = tempDir(t);
  const file = copyFixture(dir);
  const first = SessionFile.open(file);
  const ctx = first.buildContext();
  first.close();
  const migrated = readFileSync(file);
  const again = SessionFile.open(file);
  t.after(() => again.close());
  assert.equal(again.backupFile, undefined);
  assert.deepEqual(readFileSync(file), migrated);
  assert.deepEqual(again.buildContext(), ctx);
});

test("a read-only open migrates in memory and leaves the v1 file as it is", { skip: fixtureSkip }, (t) => {
  const dir = tempDir(t);
  const file = copyFixture(dir);
  const original = readFileSync(file);
  const s = SessionFile.open(file, { readOnly: true });
  t.after(() => s.close());
  assert.equal(s.buildContext().messages.length, PI.contextMessages);
  assert.deepEqual(readFileSync(file), original);
  assert.deepEqual(readdirSync(dir), ["pi-session.jsonl"]);
});
