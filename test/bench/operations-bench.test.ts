// The operations bench at one run per figure, so it cannot rot: every front, store and
// operation is measured (PostgreSQL where it can run here). The figures are not judged here
// (timing belongs to `npm run bench -- operations`), only their presence and sanity.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runOperationsBench } from "../../bench/operations.bench.js";
import { postgresSkip } from "../support/postgres.js";

test("operations bench: each operation over both fronts and every store has a figure, beside its baselines", { timeout: 120_000 }, async () => {
  const r = await runOperationsBench(1);
  const stores = postgresSkip ? ["file"] : ["file", "PostgreSQL"];
  assert.deepEqual(Object.keys(r.baselines), stores);
  for (const store of stores) {
    assert.ok(r.baselines[store] > 0, `${store} baseline`);
    for (const front of ["JSON-RPC", "ACP"]) {
      for (const op of ["nothing stored", "session change", "exclusive change", "prompt"]) {
        const ms = r.figures[`${store} ${front} ${op}`];
        assert.ok(Number.isFinite(ms) && ms > 0, `${store} ${front} ${op}: ${ms}`);
      }
    }
  }
});
