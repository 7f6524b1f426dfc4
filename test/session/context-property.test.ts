// Random sessions (seeded): the lazily built context of a reopened file equals the pure builder
// over the fully parsed path, for every leaf; the tree reaches every entry exactly once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionFile, buildSessionContext } from "../../src/session/index.js";
import { assistant, call, result, user } from "../support/messages.js";
import { rng } from "../support/random.js";
import { tempDir } from "../support/tmp.js";

test("lazy context = full context over random branched, compacted sessions", (t) => {
  const dir = tempDir(t);
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const s = SessionFile.create({ cwd: `/p/${seed}`, sessionsDir: dir });
    const ids: string[] = [];
    const steps = 20 + r.int(120);
    for (let i = 0; i < steps; i++) {
      const roll = r.next();
      if (roll < 0.3) ids.push(s.appendMessage(user(`u${i}`)).id);
      else if (roll < 0.5) {
        ids.push(s.appendMessage(assistant("", [call(`c${i}`, "read", { path: `f${i}` })])).id);
        ids.push(s.appendMessage(result(`c${i}`, "read", "x".repeat(r.int(50)))).id);
      } else if (roll < 0.65) ids.push(s.appendMessage(assistant(`a${i}`)).id);
      else if (roll < 0.72 && ids.length > 0) {
        const path = s.branchPath();
        const kept = path.length > 0 ? r.pick(path).id : "nowhere";
        ids.push(s.append({ type: "compaction", summary: `S${i}`, firstKeptEntryId: kept, tokensBefore: i }).id);
      } else if (roll < 0.8 && ids.length > 0) s.branch(r.next() < 0.1 ? null : r.pick(ids));
      else if (roll < 0.85) ids.push(s.appendThinkingLevelChange(r.pick(["low", "high"])).id);
      else if (roll < 0.9) ids.push(s.appendModelChange("p", `m${i}`).id);
      else if (roll < 0.95 && ids.length > 0) s.setLabel(r.pick(ids), r.next() < 0.3 ? "" : `L${i}`);
      else if (ids.length > 0) ids.push(s.branchWithSummary(r.pick(ids), `B${i}`).id);
    }
    const leaf = s.leafId;
    s.close();

    const lazy = SessionFile.open(s.file, { readOnly: true });
    const full = SessionFile.open(s.file, { readOnly: true });
    assert.equal(lazy.leafId, leaf, `seed ${seed}: leaf restored`);
    assert.deepEqual(lazy.warnings, []);
    for (const id of [leaf, ...ids.slice(-10)]) {
      if (id === null) continue;
      assert.deepEqual(lazy.buildContext(id), buildSessionContext(full.branchPath(id)), `seed ${seed}, leaf ${id}`);
    }
    const tree = lazy.tree();
    const seen = new Set(tree.entries.map((n) => n.id));
    assert.equal(seen.size, tree.entries.length, "each entry once");
    for (const n of tree.entries) assert.ok(n.parentId === null || seen.has(n.parentId), "parents present");
    lazy.close();
    full.close();
  }
});
