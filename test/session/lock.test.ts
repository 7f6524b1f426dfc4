// One writer per session file, across processes and within one: `<file>.lock` names the owner's
// pid; a live owner keeps others out (SessionLocked, with its pid), readers never lock, a lock
// whose owner died is taken over, and close() / a normal exit releases it.
// full suite only: processes started to race for the lock
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionError, SessionFile } from "../../src/session/index.js";
import { LineChild } from "../support/line-child.js";
import { tempDir } from "../support/tmp.js";

const LOCK_CHILD = fileURLToPath(new URL("../support/lock-child.mjs", import.meta.url));
const ROUNDS_RACE = 8;

type T = Parameters<typeof tempDir>[0];

function newSession(t: T): string {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: dir, sessionsDir: join(dir, "sessions") });
  const file = s.file;
  s.close();
  return file;
}

function lockOwner(file: string): { pid?: number; host?: string } | undefined {
  try {
    return JSON.parse(readFileSync(`${file}.lock`, "utf8")) as { pid?: number; host?: string };
  } catch {
    return undefined;
  }
}

function isLocked(pid: number, host?: string) {
  return (err: unknown) => {
    assert.ok(err instanceof SessionError, `not a SessionError: ${String(err)}`);
    assert.equal(err.code, "SessionLocked");
    assert.equal(err.data?.pid, pid);
    if (host !== undefined) assert.equal(err.data?.host, host);
    return true;
  };
}

/** Files next to the session other than the session and its lock (temp or moved-aside lock files). */
function litter(file: string): string[] {
  return readdirSync(dirname(file)).filter((n) => n !== basename(file) && n !== `${basename(file)}.lock`);
}

async function startChild(t: T, file: string): Promise<LineChild> {
  const child = new LineChild(LOCK_CHILD, [file]);
  t.after(async () => {
    child.kill();
    await child.closed;
  });
  assert.equal(await child.next(), `loaded ${child.pid}`);
  return child;
}

/** The pid of a process that has exited (for a stale lock). */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => p.on("exit", resolve));
  return p.pid!;
}

test("a live holder in another process: open throws SessionLocked with its pid, read-only still works, a normal exit releases", async (t) => {
  const file = newSession(t);
  const child = await startChild(t, file);
  assert.equal(await child.ask("open"), `opened ${child.pid}`);
  const appended = (await child.ask("append written by the holder")).split(" ");
  assert.equal(appended[0], "appended");
  assert.equal(lockOwner(file)?.pid, child.pid);

  assert.throws(() => SessionFile.open(file), isLocked(child.pid, hostname()));
  assert.throws(() => SessionFile.open(file), isLocked(child.pid), "a second try is refused the same way");
  assert.equal(lockOwner(file)?.pid, child.pid, "a refused open must leave the holder's lock alone");

  const ro = SessionFile.open(file, { readOnly: true });
  try {
    assert.ok(ro.readOnly);
    assert.ok(ro.has(appended[1]), "a reader sees what the holder appended");
    assert.throws(
      () => ro.appendMessage({ role: "user", content: "x", timestamp: 0 }),
      (e: unknown) => e instanceof SessionError && e.code === "ReadOnly",
    );
  } finally {
    ro.close();
  }
  assert.equal(lockOwner(file)?.pid, child.pid, "a reader neither takes nor removes the lock");

  // exit without close(): the process's exit hook releases the lock
  child.send("exit");
  assert.deepEqual(await child.closed, { code: 0, signal: null });
  assert.ok(!existsSync(`${file}.lock`), "lock file left behind by a process that exited normally");
  const s = SessionFile.open(file);
  try {
    assert.equal(lockOwner(file)?.pid, process.pid);
    assert.equal(s.leafId, appended[1]);
    s.appendMessage({ role: "user", content: "after the holder left", timestamp: Date.now() });
  } finally {
    s.close();
  }
  assert.ok(!existsSync(`${file}.lock`));
});

test("the lock of a holder killed with SIGKILL is stale and taken over", async (t) => {
  const file = newSession(t);
  const child = await startChild(t, file);
  assert.equal(await child.ask("open"), `opened ${child.pid}`);
  const id = (await child.ask("append before the kill")).split(" ")[1];
  child.kill("SIGKILL");
  assert.equal((await child.closed).signal, "SIGKILL");
  assert.equal(lockOwner(file)?.pid, child.pid, "a killed process cannot remove its lock");

  const s = SessionFile.open(file);
  try {
    assert.equal(lockOwner(file)?.pid, process.pid, "the stale lock now names this process");
    assert.equal(s.leafId, id);
    s.appendMessage({ role: "user", content: "after the kill", timestamp: Date.now() });
    // and it is really held: a second writer in another process is kept out
    const other = await startChild(t, file);
    const reply = await other.ask("open");
    assert.match(reply, /^error SessionLocked /);
    assert.equal((JSON.parse(reply.split(" ").slice(2).join(" ")) as { pid: number }).pid, process.pid);
  } finally {
    s.close();
  }
  assert.ok(!existsSync(`${file}.lock`));
  assert.deepEqual(litter(file), [], "temp or moved-aside lock files left behind");
});

test("close() releases the lock for other processes while the holder lives on", async (t) => {
  const file = newSession(t);
  const child = await startChild(t, file);
  assert.equal(await child.ask("open"), `opened ${child.pid}`);
  assert.equal(await child.ask("close"), "closed");
  assert.ok(!existsSync(`${file}.lock`));

  const s = SessionFile.open(file);
  try {
    const reply = await child.ask("open");
    assert.match(reply, /^error SessionLocked /, "the child must be kept out while this process holds the lock");
    assert.equal((JSON.parse(reply.split(" ").slice(2).join(" ")) as { pid: number }).pid, process.pid);
    assert.match(await child.ask("open-ro"), /^opened-ro \d+$/);
    assert.equal(await child.ask("close"), "closed");
  } finally {
    s.close();
  }
  assert.equal(await child.ask("open"), `opened ${child.pid}`, "free again after close()");
  assert.equal(await child.ask("close"), "closed");
});

test("in one process: a second open for writing is refused until close()", (t) => {
  const file = newSession(t);
  const first = SessionFile.open(file);
  try {
    assert.throws(() => SessionFile.open(file), isLocked(process.pid));
    assert.equal(lockOwner(file)?.pid, process.pid);
    const ro = SessionFile.open(file, { readOnly: true });
    ro.close();
    assert.throws(() => SessionFile.open(file), isLocked(process.pid), "closing a reader must not release the writer's lock");
    first.appendMessage({ role: "user", content: "still the writer", timestamp: Date.now() });
  } finally {
    first.close();
  }
  assert.ok(!existsSync(`${file}.lock`));
  const second = SessionFile.open(file);
  try {
    assert.equal(second.entryCount, 1);
    first.close(); // closing the old handle again must not release the new holder's lock
    assert.throws(() => SessionFile.open(file), isLocked(process.pid));
  } finally {
    second.close();
  }
});

test("stale and foreign lock files", async (t) => {
  const file = newSession(t);
  const lock = `${file}.lock`;
  const stale = (owner: object) => writeFileSync(lock, JSON.stringify(owner));

  // a dead process on this host: taken over
  stale({ pid: await deadPid(), host: hostname(), acquiredAt: new Date().toISOString(), nonce: "dead" });
  SessionFile.open(file).close();
  assert.ok(!existsSync(lock));

  // this process's pid, from a lock it does not hold (say, left before a restart with the same pid): taken over
  stale({ pid: process.pid, host: hostname(), acquiredAt: new Date().toISOString(), nonce: "old" });
  SessionFile.open(file).close();
  assert.ok(!existsSync(lock));

  // empty or garbage (the owner died while writing it): taken over
  for (const content of ["", "not json", "{}"]) {
    writeFileSync(lock, content);
    SessionFile.open(file).close();
    assert.ok(!existsSync(lock), `lock file ${JSON.stringify(content)} not taken over`);
  }

  // another host: its pid cannot be checked here, so it is not taken over
  stale({ pid: await deadPid(), host: `not-${hostname()}`, acquiredAt: new Date().toISOString(), nonce: "far" });
  const pid = lockOwner(file)!.pid!;
  assert.throws(() => SessionFile.open(file), isLocked(pid, `not-${hostname()}`));
  assert.ok(existsSync(lock));
  SessionFile.open(file, { readOnly: true }).close();
  assert.deepEqual(litter(file), [], "temp or moved-aside lock files left behind");
});

// A regression test: FileLock.acquire used to create the lock file empty and write its owner
// after; a process reading it in between saw no owner, took it for stale and unlinked it, and both
// held the lock (seen in the first round or two against that code).
test("processes opening at the same moment: exactly one gets the lock", async (t) => {
  const file = newSession(t);
  // fresh processes each round: the window between creating the lock file and writing its
  // owner is widest in a process that has not run that code yet
  for (let round = 0; round < ROUNDS_RACE; round++) {
    const children = await Promise.all([0, 1, 2, 3].map(() => startChild(t, file)));
    // odd rounds: a stale lock of a dead process, to be taken over
    if (round % 2 === 1) writeFileSync(`${file}.lock`, JSON.stringify({ pid: await deadPid(), host: hostname(), acquiredAt: "", nonce: "dead" }));
    // half the rounds: "open" sent to each in turn; the others: all open at one instant a few ms from now
    const at = performance.timeOrigin + performance.now() + 20;
    for (const c of children) c.send(round % 4 < 2 ? "open" : `open-at ${at}`);
    const replies = await Promise.all(children.map((c) => c.next()));
    const winners = replies.filter((r) => r.startsWith("opened"));
    for (const r of replies) assert.match(r, /^(opened \d+|error SessionLocked .*)$/);
    assert.equal(winners.length, 1, `round ${round}${round % 2 ? " (stale lock)" : ""}: ${winners.length} processes hold the lock at once: ${JSON.stringify(replies)}`);
    assert.equal(lockOwner(file)?.pid, Number(winners[0].split(" ")[1]), "the lock names the winner");
    await Promise.all(children.map((c) => c.ask("close")));
    assert.deepEqual(readdirSync(dirname(file)), [basename(file)], "lock, temp or stale-lock files left behind");
    for (const c of children) c.send("exit");
    await Promise.all(children.map((c) => c.closed));
  }
});
