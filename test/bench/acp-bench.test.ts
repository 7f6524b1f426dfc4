// The ACP bench at its smallest, so it cannot rot: every turn shape runs over both fronts, the
// 1 MB write is measured, the large-session load runs. Timings are not judged (they belong to
// `npm run bench -- acp`); what the 1 MB write turn writes is: its only lines over 64 KiB are the
// ones whose diff block is itself that large.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SHAPES } from "../../bench/acp-turns.js";
import { runAcpBench } from "../../bench/acp.bench.js";

test("acp bench: every turn shape over pith acp and pith --mode rpc, the 1 MB write's largest lines, the session/load figures", { timeout: 240_000 }, async () => {
  const r = await runAcpBench(1, 0.2);
  assert.deepEqual(Object.keys(r.turns), SHAPES.map((s) => s.name));
  for (const [name, f] of Object.entries(r.turns) as [string, { rpc: Record<string, number>; acp: Record<string, number> }][]) {
    for (const side of [f.rpc, f.acp]) {
      for (const k of ["firstTextMs", "turnMs", "lines", "textLines", "bytes"]) assert.ok(Number.isFinite(side[k]) && side[k] > 0, `${name}.${k} = ${side[k]}`);
    }
  }
  const write = r.write1MB.acp;
  assert.equal(write.largest.largestBlock?.type, "diff", `the largest line is the write's diff: ${JSON.stringify(write.largest)}`);
  assert.ok(write.largest.bytes > 1_000_000);
  assert.ok(write.over.length > 0);
  for (const o of write.over) assert.ok((o.largestBlock?.bytes ?? 0) > 64 * 1024, `a line over 64 KiB without a block that large: ${JSON.stringify(o)}`);
  assert.ok(write.largestWithoutBigBlock.bytes < 64 * 1024, `${JSON.stringify(write.largestWithoutBigBlock)}`);
  assert.ok(r.load.updates > 0 && r.load.entries > 0);
});
