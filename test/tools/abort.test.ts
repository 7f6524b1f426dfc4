// Every tool refuses to start on an aborted signal with a plain Error saying so (not a ToolError:
// an abort is the user's doing, not a mistake for the model to fix); grep and find stop mid-walk.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createCodingTools } from "../../src/tools/index.js";
import { grepTool } from "../../src/tools/grep.js";
import { ToolError } from "../../src/tools/types.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor } from "./helpers.js";

const ARGS: Record<string, unknown> = {
  read: { path: "f.txt" },
  bash: { command: "true" },
  edit: { path: "f.txt", oldText: "a", newText: "b" },
  write: { path: "f.txt", content: "x" },
  grep: { pattern: "a" },
  find: { pattern: "*" },
  ls: {},
};

test("an aborted signal stops every tool before it does anything", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.txt"), "a\n");
  const ac = new AbortController();
  ac.abort();
  for (const tool of createCodingTools()) {
    await assert.rejects(tool.execute(ARGS[tool.name], ctxFor(dir, { signal: ac.signal })), (err: Error) => {
      assert.ok(!(err instanceof ToolError), `${tool.name}: an abort is not a ToolError`);
      assert.match(err.message, /aborted/, tool.name);
      return true;
    });
  }
});

test("grep stops walking when aborted mid-search", async (t) => {
  const dir = tempDir(t);
  for (let i = 0; i < 200; i++) {
    mkdirSync(join(dir, `d${i}`));
    writeFileSync(join(dir, `d${i}`, "f.txt"), "nothing here\n".repeat(50));
  }
  const ac = new AbortController();
  const run = grepTool.execute({ pattern: "absent" }, ctxFor(dir, { signal: ac.signal }));
  setImmediate(() => ac.abort());
  await assert.rejects(run, /aborted/);
});
