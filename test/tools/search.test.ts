// ls, grep and find over a small real tree, and the glob matcher they share.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { findTool } from "../../src/tools/find.js";
import { globMatcher, globMatches } from "../../src/tools/glob.js";
import { grepTool } from "../../src/tools/grep.js";
import { lsTool } from "../../src/tools/ls.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

function tree(t: Parameters<typeof tempDir>[0], files: Record<string, string | Buffer>): string {
  const dir = tempDir(t);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

const PROJECT = {
  "README.md": "# Demo\nTODO: write docs\n",
  ".env": "SECRET_TODO=1\n",
  "src/main.ts": "import { a } from './a';\n// TODO fix main\nexport const main = a;\n",
  "src/a.ts": "export const a = 1;\n",
  "src/util/b.spec.ts": "test('todo list', () => {});\n",
  "src/util/c.js": "// todo: lowercase\n",
  "config/app.json": '{ "todo": true }\n',
  "node_modules/dep/index.ts": "// TODO in a dependency\n",
  ".git/HEAD": "TODO in git\n",
  "bin/tool.bin": Buffer.from("TODO\0binary"),
};

test("ls lists sorted entries, directories with '/', dotfiles included", async (t) => {
  const dir = tree(t, { "b.txt": "", "A.txt": "", ".hidden": "", "sub/x": "", "a-dir/y": "" });
  symlinkSync(join(dir, "sub"), join(dir, "link-to-sub"));
  symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
  const out = await lsTool.execute({}, ctxFor(dir));
  assert.equal(textOf(out), [".hidden", "a-dir/", "A.txt", "b.txt", "dangling", "link-to-sub/", "sub/"].join("\n"));
  assert.equal(textOf(await lsTool.execute({ path: "sub" }, ctxFor(dir))), "x");
});

test("ls: limit with a note; empty directory; errors", async (t) => {
  const dir = tree(t, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}`, ""])));
  mkdirSync(join(dir, "empty"));
  const out = await lsTool.execute({ limit: 5 }, ctxFor(dir));
  assert.equal(textOf(out), "empty/\nf00\nf01\nf02\nf03\n\n[Showing 5 of 13 entries. Use limit=13 to see all.]");
  assert.match(textOf(await lsTool.execute({ path: "empty" }, ctxFor(dir))), /empty/);
  await rejectsTool(lsTool.execute({ path: "f00" }, ctxFor(dir)), /not a directory/);
  await rejectsTool(lsTool.execute({ path: "missing" }, ctxFor(dir)), /not found: missing/);
});

test("grep finds matches as file:line: text, skipping .git, node_modules and binary files", async (t) => {
  const dir = tree(t, PROJECT);
  const out = await grepTool.execute({ pattern: "TODO" }, ctxFor(dir));
  assert.equal(textOf(out), [".env:1: SECRET_TODO=1", "README.md:2: TODO: write docs", "src/main.ts:2: // TODO fix main"].join("\n"));
  assert.deepEqual(out.details, { matches: 3 });
});

test("grep: ignoreCase, literal, regex, and a path that is a directory or a file", async (t) => {
  const dir = tree(t, PROJECT);
  const ci = textOf(await grepTool.execute({ pattern: "todo", ignoreCase: true, path: "src" }, ctxFor(dir)));
  assert.equal(ci, ["main.ts:2: // TODO fix main", "util/b.spec.ts:1: test('todo list', () => {});", "util/c.js:1: // todo: lowercase"].join("\n"));
  assert.equal(textOf(await grepTool.execute({ pattern: "^export const \\w+ = \\d", path: "src" }, ctxFor(dir))), "a.ts:1: export const a = 1;");
  assert.equal(textOf(await grepTool.execute({ pattern: "{ a }", literal: true }, ctxFor(dir))), "src/main.ts:1: import { a } from './a';");
  assert.equal(textOf(await grepTool.execute({ pattern: "main", path: "src/main.ts" }, ctxFor(dir))), "src/main.ts:2: // TODO fix main\nsrc/main.ts:3: export const main = a;");
  assert.equal(textOf(await grepTool.execute({ pattern: "nothing-like-this" }, ctxFor(dir))), "No matches found");
});

test("grep: glob filters file names or relative paths", async (t) => {
  const dir = tree(t, PROJECT);
  const ts = textOf(await grepTool.execute({ pattern: "o", glob: "*.ts" }, ctxFor(dir)));
  assert.deepEqual(ts.split("\n").map((l) => l.split(":")[0]), ["src/a.ts", "src/main.ts", "src/main.ts", "src/util/b.spec.ts"]);
  const spec = textOf(await grepTool.execute({ pattern: "todo", glob: "src/**/*.spec.ts" }, ctxFor(dir)));
  assert.equal(spec, "src/util/b.spec.ts:1: test('todo list', () => {});");
  const braces = textOf(await grepTool.execute({ pattern: "todo", ignoreCase: true, glob: "*.{js,json}" }, ctxFor(dir)));
  assert.equal(braces, ['config/app.json:1: { "todo": true }', "src/util/c.js:1: // todo: lowercase"].join("\n"));
});

test("grep: context lines and the match limit", async (t) => {
  const dir = tree(t, { "f.txt": "a\nb\nhit 1\nc\nd\ne\nhit 2\nhit 3\nf\n" });
  const ctx = textOf(await grepTool.execute({ pattern: "hit", context: 1 }, ctxFor(dir)));
  assert.equal(ctx, ["f.txt-2- b", "f.txt:3: hit 1", "f.txt-4- c", "f.txt-6- e", "f.txt:7: hit 2", "f.txt:8: hit 3", "f.txt-9- f"].join("\n"));
  const limited = await grepTool.execute({ pattern: "hit", limit: 2 }, ctxFor(dir));
  assert.equal(textOf(limited), "f.txt:3: hit 1\nf.txt:7: hit 2\n\n[Stopped at 2 matches; there may be more. Use limit=4 or a narrower pattern, path or glob.]");
  assert.deepEqual(limited.details, { matches: 2, stoppedAt: "limit" });
});

test("grep: long lines are cut; a bad regex is a clear error", async (t) => {
  const dir = tree(t, { "min.js": `var x="${"z".repeat(2000)}";\n` });
  const text = textOf(await grepTool.execute({ pattern: "var x" }, ctxFor(dir)));
  assert.ok(text.length < 700);
  assert.match(text, /line truncated/);
  assert.match(text, /cut at 500 characters/);
  await rejectsTool(grepTool.execute({ pattern: "(unclosed" }, ctxFor(dir)), /Invalid regular expression/, /literal: true/);
  await rejectsTool(grepTool.execute({ pattern: "x", path: "missing" }, ctxFor(dir)), /not found: missing/);
});

test("grep stops early on a big tree once the limit is reached", async (t) => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = "match\n".repeat(200);
  const dir = tree(t, files);
  const started = Date.now();
  const out = await grepTool.execute({ pattern: "match", limit: 5 }, ctxFor(dir));
  assert.equal(textOf(out).split("\n\n")[0].split("\n").length, 5);
  assert.ok(Date.now() - started < 1000);
});

test("find matches globs against names or relative paths, sorted, skipping .git and node_modules", async (t) => {
  const dir = tree(t, PROJECT);
  const find = async (pattern: string, path?: string) => textOf(await findTool.execute({ pattern, path }, ctxFor(dir)));
  assert.equal(await find("*.ts"), "src/a.ts\nsrc/main.ts\nsrc/util/b.spec.ts");
  assert.equal(await find("**/*.json"), "config/app.json");
  assert.equal(await find("src/**/*.spec.ts"), "src/util/b.spec.ts");
  assert.equal(await find("src/*.ts"), "src/a.ts\nsrc/main.ts");
  assert.equal(await find("?.ts"), "src/a.ts");
  assert.equal(await find("*.{js,json}"), "config/app.json\nsrc/util/c.js");
  assert.equal(await find(".*"), ".env");
  assert.equal(await find("*.ts", "src/util"), "b.spec.ts");
  assert.equal(await find("*.md", "./"), "README.md");
  assert.equal(await find("*.py"), "No files found matching the pattern");
});

test("find: limit with a note, and errors", async (t) => {
  const dir = tree(t, Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x/f${i}.txt`, ""])));
  const out = await findTool.execute({ pattern: "*.txt", limit: 3 }, ctxFor(dir));
  assert.equal(textOf(out), "x/f0.txt\nx/f1.txt\nx/f2.txt\n\n[Showing 3 of 8 files. Use limit=8 to see all, or narrow the pattern.]");
  await rejectsTool(findTool.execute({ pattern: "*", path: "x/f0.txt" }, ctxFor(dir)), /not a directory/);
  await rejectsTool(findTool.execute({ pattern: "*", path: "nope" }, ctxFor(dir)), /not found: nope/);
  await rejectsTool(findTool.execute({ pattern: "[z-a]" }, ctxFor(dir)), /Invalid glob/);
});

test("glob: *, **, ?, braces, classes and escapes", () => {
  const m = (glob: string, path: string) => globMatches(glob, path);
  assert.ok(m("*.ts", "a.ts"));
  assert.ok(!m("*.ts", "dir/a.ts"));
  assert.ok(m("*.ts", ".hidden.ts"));
  assert.ok(m("**/*.ts", "a.ts"));
  assert.ok(m("**/*.ts", "x/y/z/a.ts"));
  assert.ok(m("src/**", "src/a/b/c"));
  assert.ok(!m("src/**", "srcx/a"));
  assert.ok(m("src/**/test/*.js", "src/test/a.js"));
  assert.ok(m("src/**/test/*.js", "src/a/b/test/a.js"));
  assert.ok(!m("src/**/test/*.js", "src/a/b/test/c/a.js"));
  assert.ok(m("a?c", "abc"));
  assert.ok(!m("a?c", "a/c"));
  assert.ok(m("*.{ts,tsx}", "x.tsx"));
  assert.ok(!m("*.{ts,tsx}", "x.js"));
  assert.ok(m("{src,lib}/**/*.{a,b{c,d}}", "lib/x/y.bd"));
  assert.ok(m("[abc].txt", "b.txt"));
  assert.ok(!m("[!abc].txt", "b.txt"));
  assert.ok(m("[!abc].txt", "d.txt"));
  assert.ok(m("file[0-9].md", "file7.md"));
  assert.ok(m("\\*.txt", "*.txt"));
  assert.ok(!m("\\*.txt", "a.txt"));
  assert.ok(m("a+b(c).txt", "a+b(c).txt"));
  assert.ok(m("{a", "{a"));
  assert.ok(m("x[", "x["));
  // slash-less patterns match the name at any depth; others the whole relative path
  assert.ok(globMatcher("*.ts")("deep/er/x.ts"));
  assert.ok(!globMatcher("src/*.ts")("lib/src/x.ts"));
  assert.ok(globMatcher("./src/*.ts")("src/x.ts"));
});

test("grep: the output byte cap drops the crossing line and counts only what is shown", async (t) => {
  const dir = tree(t, { "wide.txt": Array.from({ length: 2000 }, (_, i) => `hit ${i} ${"w".repeat(100)}`).join("\n") });
  const out = await grepTool.execute({ pattern: "hit", limit: 10_000 }, ctxFor(dir));
  const [body, note] = textOf(out).split("\n\n");
  assert.ok(Buffer.byteLength(body) <= 50 * 1024);
  assert.match(note, /Output limit of 50 KB reached/);
  const shown = body.split("\n").length;
  assert.deepEqual(out.details, { matches: shown, stoppedAt: "bytes" });
});
