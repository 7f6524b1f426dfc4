// Crash safety of the session store, with real processes and real SIGKILLs: a writer killed at a
// random moment (often inside the write of a 50-200 KB line) never loses or damages an entry
// whose append() had returned, leaves at most its last line torn, and the next writer (after
// taking over the dead writer's lock) carries on from the last intact entry on a fresh line.
// full suite only: dozens of writer processes killed on purpose
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { SessionFile, isBookkeeping, type SessionEntry, type SessionWarning } from "../../src/session/index.js";
import { LineChild, store } from "../support/line-child.js";
import { checkSealedEntry, sealedMessage } from "../support/sealed-message.js";
import { tempDir } from "../support/tmp.js";

const APPENDER = fileURLToPath(new URL("../support/appender-child.mjs", import.meta.url));
const ROUNDS = 35; // odd: the last round is a writable one (see below)
// a kill lands inside a write with the same odds whatever the delay; short delays keep the file small
const MAX_KILL_DELAY_MS = 6;
// the full tree is checked every few rounds (it parses every line of a file of tens of MB)
const TREE_EVERY = 8;

function kinds(warnings: SessionWarning[], kind: SessionWarning["kind"]): number[] {
  return warnings.filter((w) => w.kind === kind).map((w) => w.line);
}

function lockOwnerPid(file: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(`${file}.lock`, "utf8")) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

/** Number of lines in the file (a last line without "\n" counts). */
function lineCount(raw: Buffer): number {
  let n = 0;
  for (let i = raw.indexOf(0x0a); i !== -1; i = raw.indexOf(0x0a, i + 1)) n++;
  return raw.length > 0 && raw[raw.length - 1] !== 0x0a ? n + 1 : n;
}

/** checkSealedEntry, its error saying where. */
function sealedTag(entry: SessionEntry | undefined, id: string, where: string): string {
  try {
    return checkSealedEntry(entry, id);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}

/** The tree holds every entry, has one root, and no parent that points nowhere. */
function checkTree(s: SessionFile, where: string): void {
  const tree = s.tree();
  // pith's bookkeeping entries (torn-line and leaf markers) are not shown in the tree
  assert.equal(tree.entries.length, s.entries().filter((e) => !isBookkeeping(e)).length, where);
  assert.equal(tree.leafId, s.leafId, where);
  const inTree = new Set(tree.entries.map((n) => n.id));
  const roots = tree.entries.filter((n) => n.parentId === null);
  assert.equal(roots.length, s.entryCount > 0 ? 1 : 0, `${where}: ${roots.length} roots`);
  for (const n of tree.entries) assert.ok(n.parentId === null || inTree.has(n.parentId), `${where}: ${n.id} dangles`);
}

/**
 * What an append writes after a line a crash cut short: a newline, a "pith.torn" entry naming
 * that line's offset (so no later read takes it for an entry), then the entry itself.
 */
function assertAppendedAfterTear(added: string, entry: SessionEntry, tornOffset: number, where: string): void {
  assert.ok(added.startsWith("\n"), `${where}: the new line does not start fresh`);
  const lines = added.slice(1).split("\n");
  assert.equal(lines.length, 3, `${where}: expected a torn marker, the entry and a final newline: ${JSON.stringify(added.slice(0, 300))}`);
  const marker = JSON.parse(lines[0]) as { type: string; customType: string; parentId: string | null; data: { offset: number } };
  assert.equal(marker.type, "custom", where);
  assert.equal(marker.customType, "pith.torn", where);
  assert.equal(marker.data.offset, tornOffset, `${where}: the marker names the torn line`);
  assert.equal(marker.parentId, entry.parentId, `${where}: the marker hangs where the entry does`);
  assert.equal(lines[1], JSON.stringify(entry), where);
  assert.equal(lines[2], "", where);
}

function newSession(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: dir, sessionsDir: join(dir, "sessions") });
  const file = s.file;
  s.close();
  return file;
}

test("SIGKILLed writers: reported entries survive intact, only the last line is torn, the next writer carries on", async (t) => {
  const file = newSession(t);
  const children: LineChild[] = [];
  t.after(async () => {
    for (const c of children) c.kill();
    await Promise.all(children.map((c) => c.closed));
  });
  const start = () => {
    const c = new LineChild(APPENDER, [file]);
    children.push(c);
    return c;
  };

  const reported: string[] = []; // every id a child printed, in order
  const everTorn = new Set<number>(); // line numbers a crash left torn, in any round
  let expectedParent: string | null = null; // the leaf as last verified: the next child's first entry hangs there
  let tornRounds = 0;
  let unreportedWrites = 0;
  let tornThenAppended = 0;

  let next = start();
  for (let round = 0; round < ROUNDS; round++) {
    const child = next;
    assert.equal(await child.next(), "loaded");
    child.send(`go ${round}`);
    assert.equal(await child.next(), "ready", `round ${round}: the child could not open the file (stale lock not taken over?)`);
    next = start(); // loads its modules while this one writes
    await sleep(Math.floor(Math.random() * (MAX_KILL_DELAY_MS + 1)));
    child.kill("SIGKILL");
    const exit = await child.closed;
    assert.equal(exit.signal, "SIGKILL", `round ${round}: the child ended by itself: ${JSON.stringify(exit)}\n${child.stderr}`);
    const ids = child.rest().filter((l) => l.length > 0);
    const where = `round ${round} (${ids.length} ids reported)`;

    const raw = readFileSync(file);
    const lines = lineCount(raw);
    const endsClean = raw[raw.length - 1] === 0x0a;
    assert.equal(lockOwnerPid(file), child.pid, `${where}: the killed child's lock file should still be there`);

    // Even rounds: the parent takes the stale lock over, checks, appends. Odd rounds: it only
    // reads, and the next child has to take the dead one's lock over itself.
    const writable = round % 2 === 0;
    const s = SessionFile.open(file, { readOnly: !writable });
    try {
      if (writable) assert.equal(lockOwnerPid(file), process.pid, `${where}: the stale lock was not taken over`);

      const torn = kinds(s.warnings, "torn-line");
      assert.ok(torn.length <= 1, `${where}: more than one torn line: ${JSON.stringify(s.warnings)}`);
      if (torn.length === 1) {
        assert.equal(torn[0], lines, `${where}: only the last line may be torn`);
        assert.ok(!endsClean);
        everTorn.add(torn[0]);
        tornRounds++;
      } else if (!endsClean) {
        // no torn line reported, yet the last line has no "\n": it must be a whole entry (the
        // kill cut the write just before its newline), not a torn one taken for an entry
        const last = raw.subarray(raw.lastIndexOf(0x0a) + 1).toString("utf8");
        assert.doesNotThrow(() => JSON.parse(last), `${where}: an unterminated, invalid last line was taken for an entry (see the todo test about "}")`);
      }
      // every torn line of an earlier round was followed by an append: it is a terminated
      // malformed line now, never glued to the next entry
      const malformed = kinds(s.warnings, "malformed-line");
      for (const line of malformed) assert.ok(everTorn.has(line), `${where}: line ${line} is malformed but no crash tore it`);
      for (const line of everTorn) assert.ok(malformed.includes(line) || torn.includes(line), `${where}: torn line ${line} is no longer reported as malformed (see the todo test about "}")`);
      for (const kind of ["dangling-parent", "duplicate-id", "recovered-entry"] as const) {
        assert.deepEqual(kinds(s.warnings, kind), [], `${where}: ${kind}: ${JSON.stringify(s.warnings)}`);
      }

      // every id the child reported: present, intact, chained in the order reported
      let parent: string | null = expectedParent;
      ids.forEach((id, n) => {
        const e = s.entry(id);
        assert.equal(sealedTag(e, id, where), `r${round}-n${n}`, `${where}: entry ${id}`);
        assert.equal(e!.parentId, parent, `${where}: entry ${id} has the wrong parent`);
        parent = id;
        reported.push(id);
      });
      // the leaf is the last entry written whole: the last one reported, or one the child wrote
      // but was killed before reporting
      const leaf = s.leafId;
      if (leaf !== parent) {
        const e = s.entry(leaf!);
        assert.equal(e?.parentId, parent, `${where}: leaf ${leaf} does not follow the last reported entry ${parent}`);
        assert.equal(sealedTag(e, leaf!, where), `r${round}-n${ids.length}`);
        unreportedWrites++;
      }

      // the tree: every entry in it, one root, no parent that points nowhere
      if (round % TREE_EVERY === TREE_EVERY - 1) checkTree(s, where);
      assert.deepEqual(kinds(s.warnings, "unreadable-entry"), [], `${where}: damaged entries in the index`);

      if (!writable) {
        expectedParent = leaf;
        assert.equal(lockOwnerPid(file), child.pid, `${where}: a read-only open must not touch the lock`);
        continue;
      }

      // the next append after a torn line starts on a fresh line and parses fine
      const marker = s.appendMessage(sealedMessage(`parent-r${round}`, `appended after round ${round}`));
      assert.equal(marker.parentId, leaf);
      s.close();
      const after = readFileSync(file);
      assert.ok(after.subarray(0, raw.length).equals(raw), `${where}: bytes already in the file changed`);
      const added = after.subarray(raw.length).toString("utf8");
      if (endsClean) assert.equal(added, JSON.stringify(marker) + "\n", `${where}: the new line is not whole and separate`);
      else assertAppendedAfterTear(added, marker, raw.lastIndexOf(0x0a) + 1, where);
      if (torn.length === 1) tornThenAppended++;
      const r = SessionFile.open(file, { readOnly: true });
      try {
        assert.deepEqual(kinds(r.warnings, "torn-line"), [], `${where}: still a torn line after an append`);
        assert.deepEqual(kinds(r.warnings, "malformed-line").sort((a, b) => a - b), [...everTorn].sort((a, b) => a - b));
        assert.equal(sealedTag(r.entry(marker.id), marker.id, where), `parent-r${round}`);
        assert.equal(r.entry(marker.id)!.parentId, leaf);
        assert.equal(r.leafId, marker.id);
      } finally {
        r.close();
      }
      expectedParent = marker.id;
    } finally {
      s.close();
    }
  }
  next.kill();

  // the whole file, once more: one chain from the first entry to the leaf, every entry intact
  const s = SessionFile.open(file, { readOnly: true });
  try {
    assert.deepEqual(kinds(s.warnings, "torn-line"), []);
    checkTree(s, "at the end");
    const ctx = s.buildContext();
    assert.equal(ctx.entryIds.length, s.entries().filter((e) => !isBookkeeping(e)).length, "the context of the leaf is every entry");
    for (const id of ctx.entryIds) sealedTag(s.entry(id), id, "at the end");
    let pos = -1;
    const index = new Map(ctx.entryIds.map((id, i) => [id, i]));
    for (const id of reported) {
      const at = index.get(id);
      assert.ok(at !== undefined && at > pos, `reported entry ${id} is not in order on the path`);
      pos = at;
    }
    assert.deepEqual(kinds(s.warnings, "unreadable-entry"), []);
    t.diagnostic(
      `children load the store ${store.via === "tsx" ? "through tsx" : store.via === "dist" ? "from dist/" : "compiled from src/"}; ${ROUNDS} kills: ${reported.length} reported entries, ${s.entryCount} entries, ${(readFileSync(file).length / 1e6).toFixed(1)} MB; ` +
        `${tornRounds} kills tore a line (${tornThenAppended} checked right after the next append), ${unreportedWrites} entries written but not yet reported`,
    );
  } finally {
    s.close();
  }
});

/** A session with two intact entries and a third whose line is cut to `keep` bytes. */
function tornFixture(t: Parameters<typeof tempDir>[0]) {
  const file = newSession(t);
  const s = SessionFile.open(file);
  const a = s.appendMessage(sealedMessage("a", "first"));
  const b = s.appendMessage(sealedMessage("b", 'second, with "quotes", a \\ backslash\tand a tab'));
  const c = s.appendMessage(sealedMessage("c", 'torn: "q" \\ é ß 漢字 — € \n line'));
  s.close();
  const full = readFileSync(file);
  const cStart = full.lastIndexOf(0x0a, full.length - 2) + 1;
  const cLine = full.subarray(cStart); // with its "\n"
  const cut = (keep: number) => writeFileSync(file, Buffer.concat([full.subarray(0, cStart), cLine.subarray(0, keep)]));
  return { file, a, b, c, cLine, cut };
}

/** Opens a file whose line 4 is torn, appends, and checks the result. */
function checkTornThenAppend(file: string, ids: { a: string; b: string; c: string }, where: string): void {
  const before = readFileSync(file);
  const s = SessionFile.open(file);
  let d: SessionEntry;
  try {
    assert.deepEqual(
      s.warnings.map((w) => [w.kind, w.line]),
      [["torn-line", 4]],
      `${where}: ${JSON.stringify(s.warnings)}`,
    );
    assert.ok(!s.has(ids.c), `${where}: the torn entry is in the index`);
    assert.equal(s.leafId, ids.b, where);
    d = s.appendMessage(sealedMessage("d", "after the tear"));
    assert.equal(d.parentId, ids.b, where);
  } finally {
    s.close();
  }
  const after = readFileSync(file);
  assert.ok(after.subarray(0, before.length).equals(before), where);
  assertAppendedAfterTear(after.subarray(before.length).toString("utf8"), d, before.lastIndexOf(0x0a) + 1, where);
  const r = SessionFile.open(file, { readOnly: true });
  try {
    assert.ok(!r.has(ids.c), `${where}: the torn entry is back in the index once its line is terminated`);
    assert.equal(checkSealedEntry(r.entry(d.id), d.id), "d", where);
    assert.equal(r.leafId, d.id, where);
    assert.deepEqual(r.buildContext().entryIds, [ids.a, ids.b, d.id], where);
    assert.deepEqual(
      r.warnings.map((w) => [w.kind, w.line]),
      [["malformed-line", 4]],
      `${where}: ${JSON.stringify(r.warnings)}`,
    );
  } finally {
    r.close();
  }
}

test("a last line cut at any byte is ignored, and the next append starts a fresh line", (t) => {
  const { file, a, b, c, cLine, cut } = tornFixture(t);
  let checked = 0;
  // keep = cLine.length - 1 is the whole entry without its "\n": not torn (see the next test)
  for (let keep = 1; keep < cLine.length - 1; keep++) {
    cut(keep);
    checkTornThenAppend(file, { a: a.id, b: b.id, c: c.id }, `cut after ${keep} of ${cLine.length} bytes`);
    checked++;
  }
  assert.ok(checked > 100);
});

test("a whole last entry without its newline is kept, and the next append starts a fresh line", (t) => {
  const { file, b, c, cLine, cut } = tornFixture(t);
  cut(cLine.length - 1);
  const s = SessionFile.open(file);
  const d = s.appendMessage(sealedMessage("d", "after"));
  s.close();
  assert.deepEqual(s.warnings, []);
  const r = SessionFile.open(file, { readOnly: true });
  try {
    assert.deepEqual(r.warnings, []);
    assert.equal(checkSealedEntry(r.entry(c.id)), "c");
    assert.equal(r.entry(c.id)!.parentId, b.id);
    assert.equal(r.entry(d.id)!.parentId, c.id);
    assert.equal(r.leafId, d.id);
  } finally {
    r.close();
  }
});

test('a torn last line that happens to end in "}" is ignored like any other torn line, also after the next append', (t) => {
    const file = newSession(t);
    const s = SessionFile.open(file);
    const a = s.appendMessage(sealedMessage("a", "first"));
    const b = s.appendMessage(sealedMessage("b", "second"));
    const c = s.appendMessage(sealedMessage("c", "code: if (x) { y(); } else { z(); }"));
    s.close();
    const full = readFileSync(file);
    const text = full.toString("latin1");
    const cStart = text.lastIndexOf("\n", text.length - 2) + 1;
    // cut right after the first "}" of c's text: a crash tearing the write there
    writeFileSync(file, full.subarray(0, text.indexOf("}", cStart) + 1));
    checkTornThenAppend(file, { a: a.id, b: b.id, c: c.id }, 'cut after "}"');
});
