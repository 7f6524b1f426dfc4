// When a skipped automatic compaction is tried again and when it is reported again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionSkips } from "../../src/host/compaction/compaction-skips.js";

/** A path of entries a..: the leaf is the last; a branch move replaces the path. */
function fakeFile(path: string[]) {
  return {
    path,
    get leafId() {
      return this.path.at(-1) ?? null;
    },
    isOnPath(id: string | null) {
      return id === null || this.path.includes(id);
    },
  };
}

test("a skip holds until the context grew by minSavingsFraction of its size; a stored compaction ends it", () => {
  const file = fakeFile(["a"]);
  const skips = new CompactionSkips(file);
  assert.equal(skips.holds(6000, 0.1), false, "nothing skipped yet");
  assert.equal(skips.skipped(6000, 0.1), true, "the first skip is reported");
  file.path.push("b");
  assert.equal(skips.holds(6050, 0.1), true, "50 tokens on: the same answer");
  assert.equal(skips.holds(6599, 0.1), true);
  assert.equal(skips.holds(6600, 0.1), false, "10% more: worth trying again");
  skips.stored();
  assert.equal(skips.holds(6050, 0.1), false, "a compaction since: another context");
});

test("reported once per context size: a skip near the size last reported is not news, one 10% away is", () => {
  const file = fakeFile(["a"]);
  const skips = new CompactionSkips(file);
  assert.equal(skips.skipped(6500, 0.1), true);
  skips.stored();
  assert.equal(skips.skipped(6700, 0.1), false, "compacted and grown back to about the same size: said already");
  assert.equal(skips.holds(6750, 0.1), true, "but it holds from the new skip's size");
  assert.equal(skips.skipped(7200, 0.1), true, "10% past the size reported: news");
  assert.equal(skips.skipped(5000, 0.1), true, "a context much smaller than the one reported: news too");
});

test("a move to another branch ends both; a client's cancel holds like a skip but is not reported", () => {
  const file = fakeFile(["a", "b"]);
  const skips = new CompactionSkips(file);
  assert.equal(skips.skipped(6000, 0.1), true);
  file.path.splice(1, 1, "c");
  assert.equal(skips.holds(6000, 0.1), false, "the skip was judged on a branch no longer active");
  assert.equal(skips.skipped(6000, 0.1), true, "and this branch has not been told");
  skips.stored();
  skips.cancelled(6000);
  assert.equal(skips.holds(6100, 0.1), true);
  assert.equal(skips.holds(6600, 0.1), false);
});
