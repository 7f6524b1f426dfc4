// The tool set as the agent sees it: names, Pi's parameter names, JSON schemas for the API, and
// argument checking that turns bad input into a ToolError for the model.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createCodingTools, runTool, toolByName } from "../../src/tools/index.js";
import { ToolError } from "../../src/tools/types.js";
import { tempDir } from "../support/tmp.js";
import { ctxFor, rejectsTool, textOf } from "./helpers.js";

const EXPECTED: Record<string, { required: string[]; optional: string[] }> = {
  read: { required: ["path"], optional: ["offset", "limit"] },
  bash: { required: ["command"], optional: ["timeout"] },
  edit: { required: ["path", "oldText", "newText"], optional: [] },
  write: { required: ["path", "content"], optional: [] },
  grep: { required: ["pattern"], optional: ["path", "glob", "ignoreCase", "literal", "context", "limit"] },
  find: { required: ["pattern"], optional: ["path", "limit"] },
  ls: { required: [], optional: ["path", "limit"] },
};

test("createCodingTools has the seven tools with Pi's parameter names", () => {
  const tools = createCodingTools();
  assert.deepEqual(tools.map((t) => t.name), ["read", "bash", "edit", "write", "grep", "find", "ls"]);
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, `${tool.name} needs a description`);
    const schema = tool.inputSchema;
    assert.equal(schema.type, "object");
    assert.equal("$schema" in schema, false);
    const props = schema.properties as Record<string, { description?: string }>;
    const want = EXPECTED[tool.name];
    assert.deepEqual(Object.keys(props).sort(), [...want.required, ...want.optional].sort(), tool.name);
    assert.deepEqual(((schema.required as string[] | undefined) ?? []).slice().sort(), want.required.slice().sort(), tool.name);
    for (const [name, prop] of Object.entries(props)) assert.ok(prop.description, `${tool.name}.${name} lacks a description`);
    assert.doesNotMatch(JSON.stringify(schema), /9007199254740991/);
  }
});

test("toolByName", () => {
  assert.equal(toolByName("grep")?.name, "grep");
  assert.equal(toolByName("nope"), undefined);
  const tools = createCodingTools().slice(0, 2);
  assert.equal(toolByName("edit", tools), undefined);
});

test("a tool's parse is strict about types and explains what is wrong", () => {
  const read = toolByName("read")!;
  assert.deepEqual(read.parse({ path: "a", offset: 2 }), { path: "a", offset: 2 });
  const bad = (args: unknown) => {
    assert.throws(() => read.parse(args), (err: unknown) => err instanceof ToolError && /Invalid arguments for read/.test(err.message));
  };
  bad({});
  bad({ path: 1 });
  bad({ path: "a", limit: "10" });
  bad({ path: "a", offset: 0 });
  bad({ path: "a", offset: 1.5 });
  assert.throws(() => toolByName("bash")!.parse({ command: "x", timeout: -1 }), ToolError);
});

test("runTool checks arguments then runs the tool", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "f.txt"), "hi\n");
  assert.equal(textOf(await runTool(toolByName("read")!, { path: "f.txt" }, ctxFor(dir))), "     1\thi");
  await rejectsTool(runTool(toolByName("write")!, { path: "x" }, ctxFor(dir)), /content/);
});
