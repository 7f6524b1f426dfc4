// grep's two engines: ripgrep (linear time) and the JavaScript engine in a worker thread. Both
// give the same output; a pattern ripgrep cannot read goes to JavaScript; the worker is stopped
// by abort and by the time limit; pith's own folder is never searched (nor walked by find).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { findTool } from "../../src/tools/find.js";
import { findRipgrep } from "../../src/tools/grep-rg.js";
import { runGrep } from "../../src/tools/grep.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

const rgSkip = findRipgrep() ? false : "ripgrep (rg) is not installed: install the Debian package ripgrep; skipping the ripgrep engine's tests";
const HOSTILE = "^(a+)+$";

function project(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  writeFileSync(join(dir, "src", "a.ts"), "const foo = 1;\nconst foobar = 2;\nlet x = foo;\n");
  writeFileSync(join(dir, "src", "deep", "b.ts"), "foo();\nbar();\n");
  writeFileSync(join(dir, "z.txt"), "foo at the top\n");
  writeFileSync(join(dir, "long.txt"), `${"a".repeat(40)}!\n`);
  return dir;
}

test("ripgrep and the JavaScript engine give the same output, in the same order", { skip: rgSkip }, async (t) => {
  const dir = project(t);
  const cases = [{ pattern: "foo" }, { pattern: "foo", context: 1 }, { pattern: "FOO", ignoreCase: true, glob: "*.ts" }, { pattern: "foo", limit: 2 }, { pattern: "foo()", literal: true }, { pattern: "nothing here" }];
  for (const params of cases) {
    const rg = await runGrep(params, ctxFor(dir), { engine: "ripgrep" });
    const js = await runGrep(params, ctxFor(dir), { engine: "js" });
    assert.equal(textOf(rg), textOf(js), JSON.stringify(params));
    assert.deepEqual(rg.details, js.details, JSON.stringify(params));
  }
});

test("a hostile pattern: ripgrep answers at once; a pattern only JavaScript reads still works", { skip: rgSkip }, async (t) => {
  const dir = project(t);
  assert.equal(textOf(await runGrep({ pattern: HOSTILE }, ctxFor(dir), { engine: "ripgrep" })), "No matches found");
  // look-ahead: ripgrep refuses it, the JavaScript engine reads it
  assert.equal(textOf(await runGrep({ pattern: "foo(?=bar)", path: "src" }, ctxFor(dir))), "a.ts:2: const foobar = 2;");
  await rejectsTool(runGrep({ pattern: "(unclosed" }, ctxFor(dir)), /Invalid regular expression/, /literal: true/);
});

test("the JavaScript engine in its worker: abort stops a backtracking pattern, and so does the time limit", async (t) => {
  const dir = project(t);
  const controller = new AbortController();
  const running = runGrep({ pattern: HOSTILE, path: "long.txt" }, ctxFor(dir, { signal: controller.signal }), { engine: "js" });
  // the event loop is free while the worker backtracks: this timer fires
  await new Promise((r) => setTimeout(r, 50));
  controller.abort();
  await assert.rejects(running, /aborted/);
  await rejectsTool(runGrep({ pattern: HOSTILE, path: "long.txt" }, ctxFor(dir), { engine: "js", timeLimitMs: 200 }), /stopped after/);
});

test("grep and find never look inside pith's own folder, even when it lies inside the searched tree", async (t) => {
  const dir = project(t);
  const home = join(dir, ".pith-home");
  mkdirSync(join(home, "sessions"), { recursive: true });
  writeFileSync(join(home, "token"), "foo-secret-token\n");
  writeFileSync(join(home, "sessions", "s.ts"), "foo in a transcript\n");
  const ctx = ctxFor(dir, { deniedPaths: [home] });
  const engines: ("js" | "ripgrep")[] = rgSkip ? ["js"] : ["js", "ripgrep"];
  for (const engine of engines) {
    const text = textOf(await runGrep({ pattern: "foo" }, ctx, { engine }));
    assert.doesNotMatch(text, /secret|transcript/, `${engine}: ${text}`);
    assert.match(text, /z\.txt:1: foo at the top/);
  }
  const found = textOf(await findTool.execute({ pattern: "*" }, ctx));
  assert.doesNotMatch(found, /pith-home/);
  assert.match(found, /src\/a\.ts/);
});
