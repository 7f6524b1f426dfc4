// The shapes bench at a small size, so it cannot rot: every shape is generated and measured,
// Pi's figure comes from Pi itself, the listing counts every file, and the daemon's event loop
// is probed. The figures are not judged here (timing belongs to `npm run bench`), only their
// presence and sanity.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SHAPES } from "../../bench/shapes.js";
import { runShapesBench } from "../../bench/shapes.bench.js";

test("shapes bench: every shape measured beside the plain parse and Pi, listing and event-loop figures present", { timeout: 240_000 }, async () => {
  const lines: string[] = [];
  const r = await runShapesBench({ mb: 0.15, runs: 1, listing: [40], oneProcess: true, log: (l) => lines.push(l) });
  assert.deepEqual(r.figures.map((f) => f.shape), [...SHAPES]);
  for (const f of r.figures) {
    assert.ok(f.entries > 10, `${f.shape}: ${f.entries} entries`);
    for (const k of ["plainMs", "openMs", "tree1Ms", "tree2Ms", "navigateMs", "getMessagesMs", "maxRssMb"] as const) {
      assert.ok(Number.isFinite(f[k]) && f[k] >= 0, `${f.shape}.${k} = ${f[k]}`);
    }
    // Pi's open is well under its 30 s cut-off at this size
    assert.ok(f.piMs !== null && f.piMs > 0, `${f.shape}: Pi figure ${f.piMs}`);
  }
  assert.deepEqual(r.listing.map((l) => l.files), [40]);
  assert.deepEqual(r.eventLoop.map((h) => h.call), ["openSession", "getTree (first)", "navigateTree", "getMessages", "forkSession", "listSessions"]);
  for (const h of r.eventLoop) assert.ok(h.max >= h.p99 && h.p99 > 0, `${h.call}: p99 ${h.p99} max ${h.max}`);
  const out = lines.join("\n");
  for (const shape of SHAPES) assert.match(out, new RegExp(`\\b${shape}\\b`));
  assert.match(out, /open\/plain/);
  assert.match(out, /listSessions: 40 files/);
});
