// One contract, two stores (src/session/store.ts): the file store and the PostgreSQL store pass
// the same tests. Two store objects over the same place play two writers (two daemons): for the
// file store two objects over one folder (the pid lock refuses a second writer, in this process
// as in another), for PostgreSQL two nodes on one database.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { createLogger } from "../../src/log/logger.js";
import { FileSessionStore } from "../../src/session/file-store.js";
import { PgSessionStore } from "../../src/session/postgres/pg-store.js";
import type { SessionFile } from "../../src/session/session-file.js";
import type { SessionStore } from "../../src/session/store.js";
import { startPostgres, postgresSkip, type Postgres } from "../support/postgres.js";

if (postgresSkip) process.stderr.write(`[store conformance] the PostgreSQL store's half is skipped: ${postgresSkip}\n`);

interface Pair {
  a: SessionStore;
  b: SessionStore;
  /** the code a second writer is refused with */
  busy: "SessionLocked" | "SessionMoved";
}

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

let server: Postgres | undefined;
let nodes = 0;
async function pgPair(t: TestContext): Promise<Pair> {
  // one server for the file; each test keeps to a cwd of its own, so listings do not mix
  server ??= await startPostgres({ after: () => {} });
  const store = (name: string) => PgSessionStore.connect({ url: server!.url, nodeId: `${name}${++nodes}`, spoolDir: temp("pith-spool-"), logger: createLogger("silent"), heartbeatMs: 0 });
  const a = await store("a");
  const b = await store("b");
  t.after(() => Promise.all([a.close(), b.close()]));
  return { a, b, busy: "SessionMoved" };
}

async function filePair(): Promise<Pair> {
  const dir = temp("pith-files-");
  return { a: new FileSessionStore(dir), b: new FileSessionStore(dir), busy: "SessionLocked" };
}

const STORES: { name: string; skip: string | false; pair(t: TestContext): Promise<Pair> }[] = [
  { name: "file", skip: false, pair: filePair },
  { name: "postgres", skip: postgresSkip, pair: pgPair },
];

test.after(() => server?.stop());

const code = (name: string) => (err: unknown) => (err as { code?: string }).code === name;

function writeTurn(f: SessionFile, text: string): void {
  f.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  f.appendMessage({ role: "assistant", content: [{ type: "text", text: `re: ${text}` }], provider: "scripted", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: Date.now() } as never);
}

for (const s of STORES) {
  test(`[${s.name}] a new session is listed once create resolves; what is written is read back by another writer after close`, { skip: s.skip, timeout: 60_000 }, async (t) => {
    const { a, b, busy } = await s.pair(t);
    const cwd = temp("pith-cwd-");
    const f = await a.create({ cwd });
    assert.deepEqual((await b.list({ cwd })).map((x) => x.id), [f.sessionId], "the header is stored once create resolves");
    writeTurn(f, "first question");
    f.setName("  the name ");
    const marker = f.leafId;
    writeTurn(f, "second");
    f.branch(marker);
    await f.flushed();
    const written = f.entries().map((e) => JSON.stringify(e));
    const context = f.buildContext();
    await f.closeAsync();

    const again = await b.open({ sessionId: f.sessionId });
    t.after(() => again.closeAsync());
    assert.deepEqual(again.entries().map((e) => JSON.stringify(e)), written, "every entry, in order, as written");
    assert.equal(again.leafId, marker, "the leaf where it was left");
    assert.deepEqual(again.buildContext(), context);
    const [listed] = await a.list({ cwd });
    assert.equal(listed.name, "the name");
    assert.equal(listed.firstMessage, "first question");
    assert.equal(listed.messageCount, 4);
    assert.equal(listed.file, again.locator, "a listing's file is how the session is named");
    await assert.rejects(a.open({ sessionFile: listed.file }), code(busy), "opening by that name finds the session, held by b");
  });

  test(`[${s.name}] Pi 1.x context edits are read back by another writer: a message left out, one replaced, the tree showing both`, { skip: s.skip, timeout: 60_000 }, async (t) => {
    const { a, b } = await s.pair(t);
    const f = await a.create({ cwd: temp("pith-cwd-") });
    writeTurn(f, "first question");
    const [q1, a1] = f.entries().map((e) => e.id);
    writeTurn(f, "second");
    f.append({ type: "context_edit", targetId: a1, replacement: null });
    f.append({ type: "context_edit", targetId: q1, replacement: { content: "the first question, shorter" } });
    await f.flushed();
    const context = f.buildContext();
    assert.deepEqual(context.entryIds, [q1, ...f.entries().slice(2, 4).map((e) => e.id)], "the left-out answer is not in the context");
    assert.equal((context.messages[0] as { content: unknown }).content, "the first question, shorter");
    await f.closeAsync();

    const again = await b.open({ sessionId: f.sessionId });
    t.after(() => again.closeAsync());
    assert.deepEqual(again.buildContext(), context);
    assert.deepEqual(again.tree().entries.filter((n) => n.type === "context_edit").map((n) => n.preview), [`context omit: ${a1}`, `context replace: ${q1}`]);
  });

  test(`[${s.name}] one writer: a second is refused while the first holds the session, and gets it once it is closed`, { skip: s.skip, timeout: 60_000 }, async (t) => {
    const { a, b, busy } = await s.pair(t);
    const f = await a.create({ cwd: temp("pith-cwd-") });
    writeTurn(f, "hello");
    await f.flushed();
    await assert.rejects(b.open({ sessionId: f.sessionId }), code(busy));
    await assert.rejects(b.delete(f.sessionId), code(busy), "delete is refused while a live writer holds it");
    await f.closeAsync();
    const g = await b.open({ sessionId: f.sessionId });
    assert.equal(g.entryCount, 2);
    writeTurn(g, "from b");
    await g.closeAsync();
    const h = await a.open({ sessionId: f.sessionId });
    assert.equal(h.entryCount, 4, "b's writes are there for a");
    await h.closeAsync();
  });

  test(`[${s.name}] list is newest first and filters by cwd; delete removes; unknown ids are SessionNotFound`, { skip: s.skip, timeout: 60_000 }, async (t) => {
    const { a, b } = await s.pair(t);
    const cwd = temp("pith-cwd-");
    const other = temp("pith-cwd-");
    const first = await a.create({ cwd });
    writeTurn(first, "older");
    await first.closeAsync();
    await new Promise((r) => setTimeout(r, 20));
    const second = await a.create({ cwd });
    writeTurn(second, "newer");
    await second.closeAsync();
    const elsewhere = await a.create({ cwd: other });
    await elsewhere.closeAsync();
    assert.deepEqual((await b.list({ cwd })).map((x) => x.id), [second.sessionId, first.sessionId]);
    assert.deepEqual((await b.list({ cwd: other })).map((x) => x.id), [elsewhere.sessionId]);
    const all = (await b.list()).map((x) => x.id);
    for (const id of [first.sessionId, second.sessionId, elsewhere.sessionId]) assert.ok(all.includes(id));
    await b.delete(first.sessionId);
    assert.deepEqual((await a.list({ cwd })).map((x) => x.id), [second.sessionId]);
    await assert.rejects(a.open({ sessionId: first.sessionId }), code("SessionNotFound"));
    await assert.rejects(a.delete(first.sessionId), code("SessionNotFound"));
    await assert.rejects(a.open({ sessionId: "0198a3c0-0000-7000-8000-00000000dead" }), code("SessionNotFound"));
  });

  test(`[${s.name}] a fork holds the path to its entry, names its parent, and is open for writing`, { skip: s.skip, timeout: 60_000 }, async (t) => {
    const { a } = await s.pair(t);
    const f = await a.create({ cwd: temp("pith-cwd-") });
    writeTurn(f, "one");
    const cut = f.leafId!;
    f.setLabel(cut, "here");
    writeTurn(f, "two");
    await f.flushed();
    const fork = await a.fork(f, cut);
    t.after(() => Promise.all([fork.closeAsync(), f.closeAsync()]));
    assert.notEqual(fork.sessionId, f.sessionId);
    assert.equal(fork.header.parentSession, f.locator);
    assert.deepEqual(fork.buildContext().messages.map((m) => m.role), ["user", "assistant"]);
    assert.equal(fork.labels().get(cut), "here", "labels on the path come along");
    writeTurn(fork, "three");
    await fork.flushed();
    assert.equal(fork.buildContext().messages.length, 4);
  });
}
