// The providers bench at a small size, so it cannot rot: every provider's every shape streams
// through the raw SDK and through the provider, the same number of deltas each way (the
// harness checks the counts). The figures are not judged here (timing belongs to `npm run bench`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { PROVIDER_CASES, runProvidersBench } from "../../bench/providers/index.js";

test("providers bench: each provider and shape measured against the raw SDK stream", { timeout: 120_000 }, async () => {
  const lines: string[] = [];
  const figures = await runProvidersBench({ deltas: 300, runs: 1, log: (l) => lines.push(l) });
  assert.deepEqual(
    figures.map((f) => `${f.provider}/${f.shape}`),
    PROVIDER_CASES.flatMap((c) => c.shapes.map((s) => `${c.provider}/${s}`)),
  );
  for (const f of figures) {
    assert.equal(f.deltas, 300);
    for (const k of ["rawCpuMs", "pithCpuMs", "rawWallMs", "pithWallMs", "ratio"] as const) assert.ok(Number.isFinite(f[k]) && f[k] > 0, `${f.provider}/${f.shape}.${k} = ${f[k]}`);
  }
  const out = lines.join("\n");
  assert.match(out, /openai-completions: tool-call argument deltas/);
  assert.match(out, /"bench":"providers"/);
  assert.match(out, /"bench":"providers-ollama"/, "the Ollama part ran too");
});
