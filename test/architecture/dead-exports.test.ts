// No dead exports: every export in the tree is imported by another file (or is public: the
// protocol's modules, the client's entry points), checked by knip with the repository's knip.json.
// An export nobody imports is a name a reader must check the whole tree for before changing it;
// `npx knip --fix --fix-type exports,types` removes the `export` keyword of each one found.
// full suite only: knip reads the whole tree (run `npx knip` beside the quick loop)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/tmp.js";

test("knip finds no unused exports, exported types, files or dependencies", () => {
  const knip = join(repoRoot, "node_modules", "knip", "bin", "knip.js");
  // --no-progress: no spinner on the test's pipe; --no-config-hints: a hint is advice, not a finding
  const run = spawnSync(process.execPath, [knip, "--reporter", "compact", "--no-progress", "--no-config-hints"], { cwd: repoRoot, encoding: "utf8", timeout: 240_000 });
  assert.equal(run.error, undefined, `knip did not run: ${run.error?.message}`);
  assert.equal(run.status, 0, `knip found:\n${run.stdout}${run.stderr}`);
});
