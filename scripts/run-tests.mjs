#!/usr/bin/env node
// Runs every test file under test/ with node's own test runner through tsx.
// Node 20 neither expands `**` globs nor discovers .ts files by itself, so the list is built here.
// Usage: npm test [-- <substring filter on paths>]
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

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

const filters = process.argv.slice(2);
const files = collect(join(root, "test"))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
  cwd: root,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
