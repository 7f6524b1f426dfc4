// The tree found with ids known to be unique (parents looked for near each entry, a map of ids
// only when one is far) is the tree found with a map of every id: random sessions with chains,
// branches near and far back, roots and parents that are not among the records.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EntryRecord } from "../../src/session/load.js";
import { buildTreeView } from "../../src/session/tree.js";
import { rng } from "../support/random.js";

function records(seed: number, n: number): EntryRecord[] {
  const r = rng(seed);
  const out: EntryRecord[] = [];
  for (let i = 0; i < n; i++) {
    const k = r.next();
    let parentId: string | null;
    if (i === 0 || k < 0.02) parentId = null;
    else if (k < 0.75) parentId = out[i - 1].id;
    else if (k < 0.9) parentId = out[Math.max(0, i - 1 - r.int(40))].id;
    else if (k < 0.97) parentId = out[r.int(i)].id; // far back: past the near search
    else parentId = `gone${i}`; // a parent that is not among the records (bookkeeping left out)
    out.push({ type: "message", id: `e${seed}-${i}`, parentId, timestamp: `2026-01-01T00:${String(r.int(60)).padStart(2, "0")}:00Z`, role: "user", bodyAt: -1, lineNo: i + 2, offset: 0, length: 0 });
  }
  return out;
}

test("parents found near each entry give the tree a map of every id gives", () => {
  let far = 0;
  for (const seed of [1, 2, 3, 4]) {
    const recs = records(seed, 3000);
    far += recs.filter((rec, i) => rec.parentId !== null && !recs.slice(Math.max(0, i - 256), i).some((p) => p.id === rec.parentId)).length;
    const preview = (rec: EntryRecord) => rec.id;
    const labels = new Map([[recs[7].id, "seven"]]);
    assert.deepEqual(buildTreeView(recs, preview, labels, recs[2999].id, true), buildTreeView(recs, preview, labels, recs[2999].id, false), `seed ${seed}`);
  }
  assert.ok(far > 100, `parents beyond the near search were exercised (${far})`);
});
