// read, write and edit with an editor that lends its buffers (ctx.editor.files): the editor's text
// is windowed and cut like a file's; images, binary files and pith's own spill files come from
// disk; a new file's directories are made by pith and the file by the editor; an edit whose result
// is not UTF-8 goes to disk byte for byte.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { editTool } from "../../src/tools/edit.js";
import type { EditorFiles } from "../../src/tools/editor-ports.js";
import { readTool } from "../../src/tools/read.js";
import { writeTool } from "../../src/tools/write.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

function editor(buffers: Map<string, string>) {
  const calls: string[] = [];
  const files: Required<EditorFiles> = {
    async readTextFile(path) {
      calls.push(`read ${path}`);
      const text = buffers.get(path);
      if (text === undefined) throw new Error(`no buffer for ${path}`);
      return text;
    },
    async writeTextFile(path, content) {
      calls.push(`write ${path}`);
      buffers.set(path, content);
    },
  };
  return { calls, files };
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

test("read: the buffer's lines, windowed and numbered as a file's; images, binary files and spill files from disk", async (t) => {
  const dir = realpathSync(tempDir(t));
  const temp = realpathSync(tempDir(t));
  writeFileSync(join(dir, "a.txt"), "disk\n");
  writeFileSync(join(dir, "dot.png"), PNG);
  writeFileSync(join(dir, "bin"), Buffer.from([1, 0, 2]));
  writeFileSync(join(temp, "pith-bash-1.log"), "spilled\n");
  const lines = Array.from({ length: 3000 }, (_, i) => `buffer ${i + 1}`).join("\n");
  const e = editor(new Map([[join(dir, "a.txt"), lines], [join(dir, "bin"), "text now"]]));
  const ctx = ctxFor(dir, { editor: { files: e.files }, tempDir: temp });

  const out = await readTool.execute({ path: "a.txt", offset: 10, limit: 2 }, ctx);
  assert.equal(textOf(out).split("\n\n")[0], "    10\tbuffer 10\n    11\tbuffer 11");
  assert.match(textOf(out), /Showing lines 10-11 of 3000\. Use offset=12 to continue\./);
  const image = await readTool.execute({ path: "dot.png" }, ctx);
  assert.equal(image.content[1].type, "image");
  await rejectsTool(readTool.execute({ path: "bin" }, ctx), /binary file/);
  assert.match(textOf(await readTool.execute({ path: join(temp, "pith-bash-1.log") }, ctx)), /spilled/);
  assert.deepEqual(e.calls, [`read ${join(dir, "a.txt")}`], "only the text file went to the editor");
});

test("write: missing directories made by pith (checked), the file written by the editor; a directory or a dangling link refused", async (t) => {
  const dir = realpathSync(tempDir(t));
  mkdirSync(join(dir, "d"));
  const e = editor(new Map());
  const ctx = ctxFor(dir, { editor: { files: { writeTextFile: e.files.writeTextFile } } });
  const out = await writeTool.execute({ path: "x/y/new.txt", content: "hi" }, ctx);
  assert.match(textOf(out), /Created x\/y\/new\.txt/);
  assert.ok(existsSync(join(dir, "x/y")), "the directories");
  assert.equal(existsSync(join(dir, "x/y/new.txt")), false, "not the file: the editor's to write");
  await rejectsTool(writeTool.execute({ path: "d", content: "x" }, ctx), /is a directory/);
  symlinkSync(join(dir, "d", "missing.txt"), join(dir, "dangling"));
  await rejectsTool(writeTool.execute({ path: "dangling", content: "x" }, ctx), /symbolic link to a file that does not exist/);
  assert.deepEqual(e.calls, [`write ${join(dir, "x/y/new.txt")}`]);
});

test("edit: the buffer's text edited and handed back; with only writing lent, the disk's bytes are edited; a non-UTF-8 result goes to disk unchanged elsewhere", async (t) => {
  const dir = realpathSync(tempDir(t));
  const file = join(dir, "f.txt");
  writeFileSync(file, "disk one\ndisk two\n");
  const buffers = new Map([[file, "buf one\nbuf two\n"]]);
  const e = editor(buffers);
  await editTool.execute({ path: "f.txt", oldText: "buf two", newText: "buf 2" }, ctxFor(dir, { editor: { files: e.files } }));
  assert.equal(buffers.get(file), "buf one\nbuf 2\n");
  assert.equal(readFileSync(file, "utf8"), "disk one\ndisk two\n");

  await editTool.execute({ path: "f.txt", oldText: "disk two", newText: "disk 2" }, ctxFor(dir, { editor: { files: { writeTextFile: e.files.writeTextFile } } }));
  assert.equal(buffers.get(file), "disk one\ndisk 2\n", "read from disk, written by the editor");

  const latin1 = Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("\nold\n")]);
  writeFileSync(file, latin1);
  e.calls.length = 0;
  await editTool.execute({ path: "f.txt", oldText: "old", newText: "new" }, ctxFor(dir, { editor: { files: { writeTextFile: e.files.writeTextFile } } }));
  assert.deepEqual(readFileSync(file), Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("\nnew\n")]), "the 0xe9 byte kept");
  assert.deepEqual(e.calls, [], "not handed to the editor as text");
});
