// Confinement: every path argument of every file tool stays inside the working directory, after
// symlinks are resolved; links within it are fine; allowOutsideCwd lifts the rule.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { editTool } from "../../src/tools/edit.js";
import { findTool } from "../../src/tools/find.js";
import { grepTool } from "../../src/tools/grep.js";
import { lsTool } from "../../src/tools/ls.js";
import { resolvePath } from "../../src/tools/paths.js";
import { readTool } from "../../src/tools/read.js";
import { writeTool } from "../../src/tools/write.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

const OUTSIDE = /outside the working directory/;

function setup(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t);
  const cwd = join(root, "work");
  const outside = join(root, "outside");
  mkdirSync(join(cwd, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(cwd, "sub", "inner.txt"), "inner\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  return { root, cwd, outside };
}

test("paths: ../ and absolute paths outside cwd are refused by every file tool", async (t) => {
  const { cwd, outside } = setup(t);
  const ctx = ctxFor(cwd);
  const secret = join(outside, "secret.txt");
  await rejectsTool(readTool.execute({ path: "../outside/secret.txt" }, ctx), OUTSIDE);
  await rejectsTool(readTool.execute({ path: secret }, ctx), OUTSIDE);
  await rejectsTool(readTool.execute({ path: "sub/../../outside/secret.txt" }, ctx), OUTSIDE);
  await rejectsTool(writeTool.execute({ path: "../outside/new.txt", content: "x" }, ctx), OUTSIDE);
  await rejectsTool(writeTool.execute({ path: join(outside, "deep", "new.txt"), content: "x" }, ctx), OUTSIDE);
  await rejectsTool(editTool.execute({ path: secret, oldText: "secret", newText: "public" }, ctx), OUTSIDE);
  await rejectsTool(lsTool.execute({ path: ".." }, ctx), OUTSIDE);
  await rejectsTool(grepTool.execute({ pattern: "secret", path: outside }, ctx), OUTSIDE);
  await rejectsTool(findTool.execute({ pattern: "*", path: "/" }, ctx), OUTSIDE);
  assert.equal(readFileSync(secret, "utf8"), "secret\n");
  assert.equal(existsSync(join(outside, "new.txt")), false);
  assert.equal(existsSync(join(outside, "deep")), false);
});

test("paths: a symlink pointing out of cwd is refused; one within cwd is fine", async (t) => {
  const { cwd, outside } = setup(t);
  const ctx = ctxFor(cwd);
  symlinkSync(outside, join(cwd, "out-dir"));
  symlinkSync(join(outside, "secret.txt"), join(cwd, "out-file"));
  symlinkSync(join(cwd, "sub"), join(cwd, "in-dir"));
  symlinkSync("sub/inner.txt", join(cwd, "in-file"));

  await rejectsTool(readTool.execute({ path: "out-file" }, ctx), OUTSIDE, /resolves to/);
  await rejectsTool(readTool.execute({ path: "out-dir/secret.txt" }, ctx), OUTSIDE);
  await rejectsTool(writeTool.execute({ path: "out-dir/new.txt", content: "x" }, ctx), OUTSIDE);
  await rejectsTool(lsTool.execute({ path: "out-dir" }, ctx), OUTSIDE);
  await rejectsTool(grepTool.execute({ pattern: "secret", path: "out-dir" }, ctx), OUTSIDE);

  assert.match(textOf(await readTool.execute({ path: "in-file" }, ctx)), /inner/);
  assert.match(textOf(await readTool.execute({ path: "in-dir/inner.txt" }, ctx)), /inner/);
  await writeTool.execute({ path: "in-dir/made.txt", content: "made" }, ctx);
  assert.equal(readFileSync(join(cwd, "sub", "made.txt"), "utf8"), "made");
  assert.match(textOf(await lsTool.execute({ path: "in-dir" }, ctx)), /inner\.txt/);
});

test("paths: a dangling symlink cannot be used to create a file outside", async (t) => {
  const { cwd, outside } = setup(t);
  symlinkSync(join(outside, "planted.txt"), join(cwd, "trap"));
  symlinkSync(join(outside, "newdir"), join(cwd, "trapdir"));
  await rejectsTool(writeTool.execute({ path: "trap", content: "x" }, ctxFor(cwd)), OUTSIDE);
  await rejectsTool(writeTool.execute({ path: "trapdir/f.txt", content: "x" }, ctxFor(cwd)), OUTSIDE);
  assert.equal(existsSync(join(outside, "planted.txt")), false);
  assert.equal(existsSync(join(outside, "newdir")), false);
});

test("paths: a cwd reached through a symlink still contains its files", async (t) => {
  const { root, cwd } = setup(t);
  const linkedCwd = join(root, "linked-work");
  symlinkSync(cwd, linkedCwd);
  const ctx = ctxFor(linkedCwd);
  assert.match(textOf(await readTool.execute({ path: "sub/inner.txt" }, ctx)), /inner/);
  assert.match(textOf(await readTool.execute({ path: join(cwd, "sub/inner.txt") }, ctx)), /inner/);
  assert.match(textOf(await readTool.execute({ path: join(linkedCwd, "sub/inner.txt") }, ctx)), /inner/);
});

test("paths: allowOutsideCwd lets tools reach outside", async (t) => {
  const { cwd, outside } = setup(t);
  const ctx = ctxFor(cwd, { allowOutsideCwd: true });
  assert.match(textOf(await readTool.execute({ path: "../outside/secret.txt" }, ctx)), /secret/);
  await writeTool.execute({ path: join(outside, "new.txt"), content: "ok" }, ctx);
  assert.equal(readFileSync(join(outside, "new.txt"), "utf8"), "ok");
});

test("paths: ~ means the home directory, and is confined like any path", async (t) => {
  const { cwd } = setup(t);
  const allowed = await resolvePath("~/notes.txt", { cwd, allowOutsideCwd: true });
  assert.equal(allowed.absolute, join(homedir(), "notes.txt"));
  assert.equal((await resolvePath("~", { cwd, allowOutsideCwd: true })).absolute, homedir());
  // only a leading "~" or "~/" is special
  assert.equal((await resolvePath("a/~/b", { cwd })).absolute, join(cwd, "a/~/b"));
  if (!homedir().startsWith(cwd)) await rejectsTool(readTool.execute({ path: "~/x" }, ctxFor(cwd)), OUTSIDE);
});

test("paths: relative paths resolve against cwd, the cwd itself is allowed", async (t) => {
  const { cwd } = setup(t);
  assert.equal((await resolvePath(".", { cwd })).absolute, cwd);
  assert.equal((await resolvePath("sub/../sub/x", { cwd })).absolute, join(cwd, "sub", "x"));
  await rejectsTool(resolvePath("bad\0name", { cwd }), /NUL/);
});
