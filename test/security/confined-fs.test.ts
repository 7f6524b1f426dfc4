// The confined open on its own (confined-fs.ts), without the path check before it: what it
// opens is checked by descriptor, so a symlinked parent, a dangling link or a link into pith's
// home is refused by the open itself, and nothing is created or truncated on the way.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { canVerifyDescriptors, openDirectory, openExisting, openForReplace, type Opened } from "../../src/tools/confined-fs.js";
import { grepTool } from "../../src/tools/grep.js";
import { readTool } from "../../src/tools/read.js";
import { ToolError, type ToolContext } from "../../src/tools/types.js";
import { writeTool } from "../../src/tools/write.js";
import { rejectsTool, textOf } from "../tools/helpers.js";
import { tempDir } from "../support/tmp.js";

const skip = canVerifyDescriptors() ? false : "no /proc/self/fd here: the file tools fall back to checking paths";

function setup(t: Parameters<typeof tempDir>[0]) {
  const base = tempDir(t, "pith-confined-");
  const cwd = join(base, "project");
  const outside = join(base, "outside");
  const home = join(base, "pith-home");
  for (const d of [join(cwd, "sub"), outside, home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  writeFileSync(join(home, "token"), "token-text\n");
  writeFileSync(join(cwd, "sub", "a.txt"), "a\n");
  const ctx: ToolContext = { cwd, signal: new AbortController().signal, deniedPaths: [realpathSync(home)], readOnlyPaths: [join(cwd, ".pith")] };
  return { base, cwd, outside, home, ctx };
}

async function refused(p: Promise<Opened>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof ToolError && pattern.test(err.message));
}

test("an open file is named by its descriptor (/proc/self/fd/N) and checked at its real location", { skip }, async (t) => {
  const { cwd, ctx } = setup(t);
  symlinkSync("sub", join(cwd, "in-link"));
  const file = await openExisting(join(cwd, "in-link", "a.txt"), { ctx, shown: "in-link/a.txt" });
  try {
    assert.match(file.path, /^\/proc\/self\/fd\/\d+$/);
    assert.equal(file.real, realpathSync(join(cwd, "sub", "a.txt")), "a link within the cwd is followed and the target checked");
  } finally {
    await file.handle.close();
  }
  const dir = await openDirectory(join(cwd, "sub"), { ctx, shown: "sub" });
  assert.equal(dir.real, realpathSync(join(cwd, "sub")));
  await dir.handle.close();
});

test("a symlinked parent leading out: no file is created there, whatever the path check said", { skip }, async (t) => {
  const { cwd, outside, ctx } = setup(t);
  symlinkSync(outside, join(cwd, "out"));
  await refused(openForReplace(join(cwd, "out", "new.txt"), { ctx, shown: "out/new.txt" }), /outside the working directory/);
  await refused(openForReplace(join(cwd, "out", "deep", "er", "new.txt"), { ctx, shown: "out/deep/er/new.txt" }), /outside the working directory/);
  assert.equal(existsSync(join(outside, "new.txt")), false);
  assert.equal(existsSync(join(outside, "deep")), false, "mkdir -p made nothing outside");
  // an existing file out there is opened without O_TRUNC, refused, and left whole
  await refused(openForReplace(join(cwd, "out", "secret.txt"), { ctx, shown: "out/secret.txt" }), /outside the working directory/);
  assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "secret\n");
  // inside, missing parents are made one by one
  const made = await openForReplace(join(cwd, "n1", "n2", "f.txt"), { ctx, shown: "n1/n2/f.txt" });
  assert.equal(made.created, true);
  assert.equal(made.real, join(realpathSync(cwd), "n1", "n2", "f.txt"));
  await made.handle.close();
});

test("dangling links: one out creates nothing; one within the cwd says what is wrong", { skip }, async (t) => {
  const { cwd, outside, ctx } = setup(t);
  symlinkSync(join(outside, "planted.txt"), join(cwd, "trap"));
  symlinkSync(join(outside, "newdir"), join(cwd, "trapdir"));
  symlinkSync("missing.txt", join(cwd, "in-dangling"));
  await assert.rejects(openForReplace(join(cwd, "trap"), { ctx, shown: "trap" }), ToolError);
  await assert.rejects(openForReplace(join(cwd, "trapdir", "f.txt"), { ctx, shown: "trapdir/f.txt" }), ToolError);
  assert.equal(existsSync(join(outside, "planted.txt")), false);
  assert.equal(existsSync(join(outside, "newdir")), false);
  await refused(openForReplace(join(cwd, "in-dangling"), { ctx, shown: "in-dangling" }), /does not exist/);
  assert.equal(existsSync(join(cwd, "missing.txt")), false);
});

test("a link into pith's home (or the project's .pith for writing) is refused at open", { skip }, async (t) => {
  const { cwd, home, ctx } = setup(t);
  symlinkSync(join(home, "token"), join(cwd, "tok"));
  symlinkSync(home, join(cwd, "home-link"));
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith", "settings.json"), "{}");
  await refused(openExisting(join(cwd, "tok"), { ctx, shown: "tok" }), /pith's own folder/);
  await refused(openExisting(join(cwd, "tok"), { ctx, shown: "tok" }, "write"), /pith's own folder/);
  await refused(openForReplace(join(cwd, "tok"), { ctx, shown: "tok" }), /pith's own folder/);
  await refused(openForReplace(join(cwd, "home-link", "settings.json"), { ctx, shown: "home-link/settings.json" }), /pith's own folder/);
  await refused(openDirectory(join(cwd, "home-link"), { ctx, shown: "home-link" }), /pith's own folder/);
  await refused(openForReplace(join(cwd, ".pith", "settings.json"), { ctx, shown: ".pith/settings.json" }), /pith's settings/);
  const settings = await openExisting(join(cwd, ".pith", "settings.json"), { ctx, shown: ".pith/settings.json" });
  await settings.handle.close();
  assert.equal(readFileSync(join(home, "token"), "utf8"), "token-text\n");
  assert.equal(existsSync(join(home, "settings.json")), false);
});

test("the spill directory (ctx.tempDir) outside the cwd can be read and searched, never written", async (t) => {
  const { base, ctx } = setup(t);
  const spill = join(base, "spill");
  mkdirSync(spill);
  writeFileSync(join(spill, "bash-output-1.log"), "full output line\n");
  const withSpill = { ...ctx, tempDir: spill };
  assert.match(textOf(await readTool.execute({ path: join(spill, "bash-output-1.log") }, withSpill)), /full output line/);
  assert.match(textOf(await grepTool.execute({ pattern: "full", path: spill }, withSpill)), /full output line/);
  await rejectsTool(writeTool.execute({ path: join(spill, "bash-output-1.log"), content: "x" }, withSpill), /outside the working directory/);
  await rejectsTool(readTool.execute({ path: join(spill, "bash-output-1.log") }, ctx), /outside the working directory/);
  assert.equal(readFileSync(join(spill, "bash-output-1.log"), "utf8"), "full output line\n");
});
