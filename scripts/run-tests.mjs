#!/usr/bin/env node
// Runs every test file under test/ with node's own test runner through tsx.
// Node 20 neither expands `**` globs nor discovers .ts files by itself, so the list is built here.
// Usage: npm test [-- <substring filter on paths>]
//        npm run test:quick [-- <filter>]   (= --quick: the in-process files only, scripts/quick-tests.mjs)
//
// The end-to-end tests run bin/pith, which runs the compiled dist/, and `pith serve`'s web bundle
// (clients/web/dist). Both are brought up to date here, once, before the runner starts (the web
// bundle only when test/web files, or other files that drive the web UI, are selected), under the
// build lock (scripts/fresh-dist.mjs).
// The test files are told (PITH_TESTS_BUILT=1): they check freshness without building, so no
// file rebuilds dist/ while another one's daemons run from it. The quick loop starts no bin/pith,
// so it builds nothing (PITH_TESTS_QUICK=1 tells the files not to build either).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureFresh } from "./fresh-dist.mjs";
import { isQuick } from "./quick-tests.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith(".test.ts")) out.push(full);
  }
  return out;
}

const quick = process.argv.includes("--quick");
const filters = process.argv.slice(2).filter((a) => a !== "--quick");
const files = collect(join(root, "test"))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .filter((f) => !quick || isQuick(root, f));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// a file elsewhere (test/security) that drives the web UI says so by using the web harness
const drivesWeb = (f) => f.startsWith(`test${sep}web${sep}`) || readFileSync(join(root, f), "utf8").includes("support/web-harness.js");
if (!quick) {
  try {
    ensureFresh({ web: files.some(drivesWeb) });
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=3", ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, ...(quick ? { PITH_TESTS_QUICK: "1" } : { PITH_TESTS_BUILT: "1" }) },
});
process.exit(result.status ?? 1);
