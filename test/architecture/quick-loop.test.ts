// The quick loop (`npm run test:quick`, scripts/quick-tests.mjs) picks files by the names they
// use; checked here the other way round, by what they import: no file it takes reaches, through
// test/support, a helper whose job is to start the pith binary, a browser, PostgreSQL or another user's
// install. A new helper of that kind belongs in the list below and in quick-tests.mjs's.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { isQuick } from "../../scripts/quick-tests.mjs";
import { repoRoot } from "../support/tmp.js";

/**
 * the support modules that exist to start something out of the test's process (daemon-client.ts
 * and the user-run.ts it imports are not among them: their poll, byType and such serve unit tests
 * too; their starters are found by name, and in the quick loop they build nothing)
 */
const STARTERS = ["acp-daemon", "raw-lines", "as-user", "web-harness", "postgres", "pg-store", "daemon-flows"].map((m) => `test/support/${m}.ts`);

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(repoRoot, dir)).sort()) {
    const rel = `${dir}/${name}`;
    if (statSync(join(repoRoot, rel)).isDirectory()) out.push(...testFiles(rel));
    else if (name.endsWith(".test.ts")) out.push(rel);
  }
  return out;
}

/** the test/ modules a file imports, directly and through other test/ modules */
function testImports(file: string, seen = new Set<string>()): Set<string> {
  const source = readFileSync(join(repoRoot, file), "utf8");
  for (const m of source.matchAll(/\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = relative(repoRoot, resolve(repoRoot, dirname(file), m[1] ?? m[2])).replace(/\.m?js$/, (ext) => (ext === ".mjs" ? ".mjs" : ".ts"));
    // (a path in a script's text, run elsewhere, names no module here)
    if (!target.startsWith("test/") || seen.has(target) || !existsSync(join(repoRoot, target))) continue;
    seen.add(target);
    testImports(target, seen);
  }
  return seen;
}

test("the quick loop takes no file that reaches a helper starting the pith binary, a browser, PostgreSQL or another user's install", () => {
  const all = testFiles("test");
  const quick = all.filter((f) => isQuick(repoRoot, f));
  assert.ok(quick.length > 0 && quick.length < all.length, `${quick.length} of ${all.length} files`);
  const offenders = quick.flatMap((f) => [...testImports(f)].filter((m) => STARTERS.includes(m)).map((m) => `${f} imports ${m}`));
  assert.deepEqual(offenders, []);
  // and the folders that are end to end by nature, whatever they import
  assert.deepEqual(quick.filter((f) => f.startsWith("test/daemon/") || f.startsWith("test/bench/")), []);
});

test("it takes the in-process files and leaves the ones marked full suite only", () => {
  for (const f of ["test/session/context.test.ts", "test/llm/openai-responses.test.ts", "test/web/stream.test.ts", "test/architecture/engines.test.ts"]) assert.ok(isQuick(repoRoot, f), `${f} is quick`);
  for (const f of ["test/session/crash.test.ts", "test/web/ui.test.ts", "test/store/conformance.test.ts", "test/security/sandbox.test.ts", "test/cli.test.ts"]) assert.ok(!isQuick(repoRoot, f), `${f} is not`);
});
