// Three daemons (`pith serve --store postgres://...`) on one real PostgreSQL, against the fake
// Messages API: a client on one node is relayed to the node that owns its session; kill -9 of the
// owner in the middle of a run, and another node takes the session over at once (the dead owner's
// lease still running) with every entry a client saw in a message_end stored; an owner paused past its lease is fenced when
// it wakes, writing nothing; store import and export from the command line round-trip a file.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { test, type TestContext } from "node:test";
import pg from "pg";
import { ErrorCodes } from "../../protocol/index.js";
import { SessionFile } from "../../src/session/session-file.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, FLOW_SETTINGS, RpcError, runPith, seqProblems, startServeDaemon, writeSettings, type Ev, type ServeDaemon, type WsPeer } from "../support/daemon-client.js";
import { startPostgres, postgresSkip, type Postgres } from "../support/postgres.js";
import { tempDir } from "../support/tmp.js";

if (postgresSkip) process.stderr.write(`[fleet tests] skipped: ${postgresSkip}\n`);

const CLUSTER_TOKEN = "fleet-cluster-token_0123";

interface Fleet {
  server: Postgres;
  fake: FakeAnthropic;
  cwd: string;
  nodes: ServeDaemon[];
}

async function fleet(t: TestContext, count = 3, env: Record<string, string> = {}): Promise<Fleet> {
  checkDist(t);
  const server = await startPostgres(t);
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  const cwd = tempDir(t, "pith-fleet-cwd-");
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  const nodes: ServeDaemon[] = [];
  for (let i = 0; i < count; i++) {
    const home = tempDir(t, `pith-fleet-home${i}-`);
    writeSettings(home, FLOW_SETTINGS);
    nodes.push(await startServeDaemon(t, { home, fake, cwd, env, args: ["--store", server.url, "--node-id", `node${i}`, "--cluster-token", CLUSTER_TOKEN] }));
  }
  return { server, fake, cwd, nodes };
}

async function client(t: TestContext, node: ServeDaemon): Promise<WsPeer> {
  const peer = await node.connect(t);
  await peer.initialize({ permissions: true, hooks: [] });
  return peer;
}

/** The stored rows of a session, straight from the database. */
async function rows(server: Postgres, sessionId: string): Promise<{ seq: number; id: string; parentId: string | null; epoch: number; line: string }[]> {
  const c = new pg.Client(server.config);
  await c.connect();
  try {
    const res = await c.query<{ seq: string; id: string; parent_id: string | null; epoch: string; line: string }>("SELECT seq, id, parent_id, epoch, line FROM entries WHERE session_id = $1 ORDER BY seq", [sessionId]);
    return res.rows.map((r) => ({ seq: Number(r.seq), id: r.id, parentId: r.parent_id, epoch: Number(r.epoch), line: r.line }));
  } finally {
    await c.end();
  }
}

/** Longer than any test here runs (their timeouts are 120 s). */
const LONG_LEASE_MS = 600_000;

/** The session's owners row, and the database's clock when it was read. */
async function ownerRow(server: Postgres, sessionId: string): Promise<{ nodeId: string | null; epoch: number; leaseExpires: Date; checkedAt: Date }> {
  const c = new pg.Client(server.config);
  await c.connect();
  try {
    const res = await c.query<{ node_id: string | null; epoch: string; lease_expires: Date; now: Date }>("SELECT node_id, epoch, lease_expires, now() FROM owners WHERE session_id = $1", [sessionId]);
    const r = res.rows[0];
    return { nodeId: r.node_id, epoch: Number(r.epoch), leaseExpires: r.lease_expires, checkedAt: r.now };
  } finally {
    await c.end();
  }
}

/** seq 1..n without a gap, every parent stored before its child, epochs never going back. */
function logProblems(log: Awaited<ReturnType<typeof rows>>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  log.forEach((r, i) => {
    if (r.seq !== i + 1) problems.push(`seq ${r.seq} at position ${i + 1}`);
    if (r.parentId !== null && !seen.has(r.parentId)) problems.push(`entry ${r.id} (seq ${r.seq}) has a parent not stored before it: ${r.parentId}`);
    if (i > 0 && r.epoch < log[i - 1].epoch) problems.push(`seq ${r.seq} was written at epoch ${r.epoch} after epoch ${log[i - 1].epoch}`);
    seen.add(r.id);
  });
  return problems;
}

/** Opens the session, retrying while it is still another node's (SessionMoved): resolves with the time it took. */
async function openWhenFree(peer: WsPeer, sessionId: string, timeoutMs = 5_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const msg = await peer.call("openSession", { sessionId });
    if (!msg.error) return performance.now() - start;
    if (msg.error.code !== ErrorCodes.SessionMoved || performance.now() - start > timeoutMs) throw new RpcError(msg.error.code, msg.error.message, msg.error.data);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test("a client on another node is relayed to the owner: the same events and seq as the owner's own clients, its permission questions, the session listed on every node", { skip: postgresSkip, timeout: 120_000 }, async (t) => {
  const { fake, cwd, nodes } = await fleet(t);
  const [a, b, c] = await Promise.all(nodes.map((n) => client(t, n)));
  const { sessionId, state } = await a.request("createSession", { cwd });
  const opened = await b.request("openSession", { sessionId });
  assert.equal(opened.state.streamId, state.streamId, "b sees the owner's event stream");
  await b.request("setPermissionMode", { sessionId, mode: "ask" });
  let asked = 0;
  b.onServerRequest.requestPermission = async () => (asked++, { outcome: "allow" as const });
  a.onServerRequest.requestPermission = async () => ({ outcome: "deny" as const });
  await a.request("unsubscribe", { sessionId });

  fake.enqueue(toolUseReply("write", { path: "b.txt", content: "written through a relay\n" }), textReply("done"));
  const { events } = await b.runPrompt(sessionId, "write b.txt");
  assert.equal(asked, 1, "the owner asked the relayed client");
  assert.equal(readFileSync(join(cwd, "b.txt"), "utf8"), "written through a relay\n");
  assert.deepEqual(seqProblems(events), []);
  assert.deepEqual(b.violations, []);
  assert.equal((await b.request("getMessages", { sessionId })).messages.length, 4);
  for (const peer of [a, c]) assert.ok((await peer.request("listSessions", {})).sessions.some((s) => s.id === sessionId && s.file === `pg:${sessionId}`));
  // a direct client of the owner sees the same messages
  const messages = (await a.request("getMessages", { sessionId })).messages;
  assert.deepEqual((await b.request("getMessages", { sessionId })).messages, messages);

  // the owner dies: the relayed client is told to open the session again, and its node takes it over
  await nodes[0].kill9();
  const lost = await b.call("getState", { sessionId });
  assert.equal(lost.error?.code, ErrorCodes.SessionMoved, JSON.stringify(lost));
  assert.equal((lost.error?.data as { owner: { nodeId: string | null } }).owner.nodeId, null);
  await openWhenFree(b, sessionId);
  assert.deepEqual((await b.request("getMessages", { sessionId })).messages, messages);
  fake.enqueue(textReply("on node1 now"));
  await b.runPrompt(sessionId, "still there?");
  assert.equal((await c.request("openSession", { sessionId })).state.streamId, (await b.request("getState", { sessionId })).streamId, "c is relayed to the new owner");
  assert.equal((await c.request("getMessages", { sessionId })).messages.length, 6, "and sees the new run");
});

test("kill -9 of the owner mid-run: another node takes the session while the dead owner's lease still runs; every message_end a client saw is stored; seq contiguous, parents intact, epochs never going back", { skip: postgresSkip, timeout: 120_000 }, async (t) => {
  // A lease far longer than the test may run: a take before it ends can only come from seeing the
  // owner dead (its node lock free), never from waiting the lease out.
  const { server, fake, cwd, nodes } = await fleet(t, 3, { PITH_STORE_LEASE_MS: String(LONG_LEASE_MS) });
  const [a, b] = await Promise.all([client(t, nodes[0]), client(t, nodes[1])]);
  const { sessionId, state } = await a.request("createSession", { cwd });
  for (let i = 0; i < 40; i++) fake.enqueue(toolUseReply("read", { path: "a.txt" }, { delayMs: 15 }));
  fake.enqueue(textReply("never reached"));
  const from = a.mark();
  await a.request("prompt", { sessionId, text: "read a.txt many times" });
  await a.until(() => (a.sessionEvents(sessionId, from).filter((e) => e.type === "message_end").length >= 9 ? true : undefined), "nine message_end events");
  const killedAt = performance.now();
  const owned = await ownerRow(server, sessionId);
  assert.equal(owned.nodeId, "node0");
  await nodes[0].kill9();
  const seen = a.sessionEvents(sessionId, from).filter((e): e is Extract<Ev, { type: "message_end" }> => e.type === "message_end");
  assert.ok(seen.length >= 9);

  const tookMs = await openWhenFree(b, sessionId, LONG_LEASE_MS);
  t.diagnostic(`taken over ${(performance.now() - killedAt).toFixed(0)} ms after the kill (open retried for ${tookMs.toFixed(0)} ms)`);
  const taken = await ownerRow(server, sessionId);
  assert.deepEqual([taken.nodeId, taken.epoch], ["node1", owned.epoch + 1], "node1 took it, one epoch on");
  assert.ok(taken.checkedAt < owned.leaseExpires, `taken before the dead owner's lease ran out (${owned.leaseExpires.toISOString()})`);
  const after = await b.request("getState", { sessionId });
  assert.equal(after.isRunning, false, "the new owner does not resume the run by itself");
  assert.notEqual(after.streamId, state.streamId);
  const replay = await b.request("subscribe", { sessionId, afterSeq: seen[seen.length - 1].seq, streamId: state.streamId });
  assert.equal(replay.gap, true, "the old stream's seq cannot be replayed: gap");

  const stored = (await rows(server, sessionId)).map((r) => JSON.parse(r.line));
  for (const e of seen) {
    const message = (e as { message: { role: string; timestamp: number } }).message;
    assert.ok(
      stored.some((s) => s.type === "message" && s.message.role === message.role && s.message.timestamp === message.timestamp),
      `the ${message.role} message of message_end seq ${e.seq} is stored`,
    );
  }
  assert.deepEqual(logProblems(await rows(server, sessionId)), []);
  const messages = (await b.request("getMessages", { sessionId })).messages;
  assert.ok(messages.length >= seen.length);

  // and the new owner goes on: a new run is stored after the old epoch's lines
  fake.enqueue(textReply("carried on"));
  await b.runPrompt(sessionId, "go on");
  const log = await rows(server, sessionId);
  assert.deepEqual(logProblems(log), []);
  assert.ok(log[log.length - 1].epoch > log[0].epoch);
});

test("an owner paused past its lease is fenced when it wakes: its next append writes nothing, its client gets SessionMoved naming the new owner", { skip: postgresSkip, timeout: 120_000 }, async (t) => {
  const { server, fake, cwd, nodes } = await fleet(t, 2, { PITH_STORE_LEASE_MS: "1500" });
  const [a, b] = await Promise.all([client(t, nodes[0]), client(t, nodes[1])]);
  const { sessionId } = await a.request("createSession", { cwd });
  fake.enqueue(textReply("first"));
  await a.runPrompt(sessionId, "first");
  const before = await rows(server, sessionId);

  nodes[0].proc.kill("SIGSTOP");
  t.after(() => void nodes[0].proc.kill("SIGCONT"));
  // a paused node still holds its lock (its connection is open): it is not dead, only its lease runs out
  const tookMs = await openWhenFree(b, sessionId, 10_000);
  t.diagnostic(`taken from the paused owner after ${tookMs.toFixed(0)} ms (lease 1500 ms)`);
  const taken = await rows(server, sessionId);
  assert.deepEqual(taken, before);
  // from before the wake: the paused node may learn it was fenced from its lease renewal first
  const from = a.mark();
  nodes[0].proc.kill("SIGCONT");

  fake.enqueue(textReply("written by the deposed owner"));
  const answer = await a.call("prompt", { sessionId, text: "second" });
  assert.equal(answer.error?.code, ErrorCodes.SessionMoved, `the prompt is refused as moved: ${JSON.stringify(answer)}`);
  assert.equal((answer.error?.data as { owner: { nodeId: string } }).owner.nodeId, "node1");
  const moved = await a.waitEvent((e) => e.sessionId === sessionId && e.type === "error" && e.code === ErrorCodes.SessionMoved, "an error event saying the session moved", from);
  assert.equal(((moved as { data?: { owner?: { nodeId?: string } } }).data?.owner?.nodeId), "node1", `the error event names the new owner: ${JSON.stringify(moved)}`);
  assert.equal((await a.call("getState", { sessionId })).error?.code, ErrorCodes.SessionMoved, "later requests are answered SessionMoved");
  assert.ok(!a.sessionEvents(sessionId, from).some((e) => e.type === "message_end"), "no message_end for what was never stored");
  const after = await rows(server, sessionId);
  assert.deepEqual(after, before, "0 rows written by the deposed owner");
  assert.deepEqual(logProblems(after), []);
});

test("pith store import and export: a session file goes in and comes back byte for byte; pith list shows it", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  checkDist(t);
  const server = await startPostgres(t);
  const home = tempDir(t, "pith-store-cli-");
  // the file's cwd is a project of its own (an import whose cwd is pith's home is refused)
  const file = SessionFile.create({ cwd: tempDir(t, "pith-store-cli-project-"), sessionsDir: join(home, "files") });
  file.appendMessage({ role: "user", content: "exported question", timestamp: Date.now() });
  file.setName("round trip");
  file.close();
  const run = (args: string[]) => runPith([...args, "--store", server.url], { home, cwd: home });
  const imported = await run(["store", "import", file.file]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, new RegExp(`as ${file.sessionId} \\(2 entries\\)`));
  const again = await run(["store", "import", file.file]);
  assert.equal(again.code, 1, "an id already stored is refused");
  assert.match(again.stderr, /already in the store/);
  const out = join(home, "out.jsonl");
  const exported = await run(["store", "export", file.sessionId, "--out", out]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.deepEqual(readFileSync(out), readFileSync(file.file), "byte for byte");
  const listed = await run(["list", "--json"]);
  const [summary] = (JSON.parse(listed.stdout) as { sessions: { id: string; name: string; firstMessage: string }[] }).sessions;
  assert.deepEqual([summary.id, summary.name, summary.firstMessage], [file.sessionId, "round trip", "exported question"]);
  const missing = await run(["store", "export", "0198a3c0-0000-7000-8000-00000000dead"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /SessionNotFound/);
});

test("kill -9 of PostgreSQL in the middle of a run: the owner holds its events until the server is back, then every line is committed once and the run ends normally", { skip: postgresSkip, timeout: 120_000 }, async (t) => {
  const { server, fake, cwd, nodes } = await fleet(t, 1);
  const a = await client(t, nodes[0]);
  const { sessionId } = await a.request("createSession", { cwd });
  for (let i = 0; i < 20; i++) fake.enqueue(toolUseReply("read", { path: "a.txt" }, { delayMs: 10 }));
  fake.enqueue(textReply("all read"));
  const from = a.mark();
  const { runId } = await a.request("prompt", { sessionId, text: "read a.txt twenty times" });
  await a.until(() => (a.sessionEvents(sessionId, from).filter((e) => e.type === "message_end").length >= 4 ? true : undefined), "four message_end events");
  await server.kill9();
  // a reply may go on streaming (its deltas vouch for nothing stored), but no message_end can come
  // before its line is committed
  const ended = () => a.sessionEvents(sessionId, from).filter((e) => e.type === "message_end").length;
  const endedBefore = ended();
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(ended(), endedBefore, "no message_end while the store is down");
  await server.restart();
  const events = await a.runEvents(sessionId, runId, from, 60_000);
  const end = events[events.length - 1] as Extract<Ev, { type: "agent_end" }>;
  assert.equal(end.stopReason, "stop");
  assert.deepEqual(seqProblems(events), []);
  const log = await rows(server, sessionId);
  assert.deepEqual(logProblems(log), []);
  assert.equal(new Set(log.map((r) => r.id)).size, log.length, "no line stored twice");
  const stored = log.map((r) => JSON.parse(r.line));
  const ends = events.filter((e): e is Extract<Ev, { type: "message_end" }> => e.type === "message_end");
  assert.equal(ends.length, 22, "the user message and 21 replies");
  assert.equal(stored.filter((s) => s.type === "message").length, 42, "and the 20 tool results stored between them");
  for (const e of ends) assert.ok(stored.some((s) => s.type === "message" && s.message.timestamp === e.message.timestamp && s.message.role === e.message.role), `message_end seq ${e.seq} is stored`);
});
