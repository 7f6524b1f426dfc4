// Tool calls and results as ACP shows them: kind, title, absolute locations, raw input, output
// content and diffs. Every update is checked against the SDK's schema, losslessly; the first tests
// show that check catches what the SDK's forgiving parse would let through silently.
import assert from "node:assert/strict";
import { homedir } from "node:os";
import { test } from "node:test";
import { shownInput, toolCallInfo, toolCallStart, toolKind, toolLocations, toolStatusUpdate, toolTitle } from "../../src/acp/tool-calls.js";
import { toolProgressUpdate, toolResultUpdate } from "../../src/acp/tool-results.js";
import { assertValidUpdate, updateProblem } from "../support/acp-schema.js";

const cwd = "/home/u/project";

test("the schema check refuses what the SDK's parse would silently drop or default", () => {
  const good = { sessionUpdate: "tool_call", toolCallId: "c1", title: "Read a", kind: "read", status: "pending" };
  assert.equal(updateProblem(good), undefined);
  assert.match(updateProblem({ ...good, kind: "banana" }) ?? "", /changed it/, "an unknown kind is dropped by the SDK, caught here");
  assert.match(updateProblem({ ...good, locations: [{ path: "/a", line: -1 }] }) ?? "", /changed it/);
  assert.match(updateProblem({ ...good, title: undefined }) ?? "", /does not parse/);
  assert.match(updateProblem({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x", textSignature: "sig" } }) ?? "", /changed it/, "a pith-only key would vanish");
  assert.match(updateProblem({ sessionUpdate: "usage_update", used: 10.5, size: 100 }) ?? "", /does not parse/, "used must be an integer");
  assert.match(updateProblem({ sessionUpdate: "notice", severity: "info", title: "" }) ?? "", /does not parse/);
  assert.throws(() => assertValidUpdate({ ...good, status: "running" }));
});

test("kinds: read and ls read, write and edit edit, bash executes, grep and find search, anything else is other", () => {
  assert.deepEqual(
    ["read", "ls", "write", "edit", "bash", "grep", "find", "mcp__x", "", "constructor"].map(toolKind),
    ["read", "read", "edit", "edit", "execute", "search", "search", "other", "other", "other"],
  );
});

test("titles say what the call does, paths as the model gave them (absolute ones inside cwd made relative)", () => {
  assert.equal(toolTitle("read", { path: "src/x.ts" }, cwd), "Read src/x.ts");
  assert.equal(toolTitle("read", { path: "src/x.ts", offset: 10, limit: 5 }, cwd), "Read src/x.ts (lines 10-14)");
  assert.equal(toolTitle("read", { path: "src/x.ts", offset: 10 }, cwd), "Read src/x.ts (from line 10)");
  assert.equal(toolTitle("read", { path: `${cwd}/src/y.ts` }, cwd), "Read src/y.ts");
  assert.equal(toolTitle("read", { path: "/etc/hosts" }, cwd), "Read /etc/hosts");
  assert.equal(toolTitle("write", { path: "a.txt", content: "x" }, cwd), "Write a.txt");
  assert.equal(toolTitle("edit", { path: "src/a.ts", oldText: "a", newText: "b" }, cwd), "Edit src/a.ts");
  assert.equal(toolTitle("bash", { command: "npm test" }, cwd), "Run `npm test`");
  assert.equal(toolTitle("bash", { command: "echo `date`" }, cwd), "Run `` echo `date` ``");
  assert.equal(toolTitle("bash", { command: "cd a\nmake all" }, cwd), "Run `cd a …` (full command below)");
  assert.equal(toolTitle("bash", { command: "x".repeat(200) }, cwd).length, "Run ``".length + 80 + " (full command below)".length);
  assert.equal(toolTitle("bash", { command: "ls \u202etxt.exe" }, cwd), "Run `ls \\u202etxt.exe` (full command below)", "a bidi override is shown, not obeyed");
  assert.equal(toolTitle("grep", { pattern: "TODO", path: "src", glob: "*.ts" }, cwd), "Search for `TODO` in src (*.ts)");
  assert.equal(toolTitle("find", { pattern: "*.json" }, cwd), "Find `*.json`");
  assert.equal(toolTitle("ls", {}, cwd), "List .");
  assert.equal(toolTitle("ls", { path: "src" }, cwd), "List src");
  assert.equal(toolTitle("mcp_fetch", { url: "x" }, cwd), "mcp_fetch");
  assert.equal(toolTitle("read", "not an object", cwd), "Read a file");
  assert.equal(toolTitle("bash", null, cwd), "Run a command");
});

test("locations are absolute (relative to cwd, ~ is home), with read's offset as the line; bash has none", () => {
  assert.deepEqual(toolLocations("read", { path: "src/x.ts", offset: 40 }, cwd), [{ path: `${cwd}/src/x.ts`, line: 40 }]);
  assert.deepEqual(toolLocations("read", { path: "../other/y.ts" }, cwd), [{ path: "/home/u/other/y.ts" }]);
  assert.deepEqual(toolLocations("read", { path: "~/notes.md" }, cwd), [{ path: `${homedir()}/notes.md` }]);
  assert.deepEqual(toolLocations("read", { path: "a", offset: 0 }, cwd), [{ path: `${cwd}/a` }], "no line 0 (lines are 1-based)");
  assert.deepEqual(toolLocations("read", { path: "a", offset: 2.5 }, cwd), [{ path: `${cwd}/a` }]);
  assert.deepEqual(toolLocations("edit", { path: "/abs/f.ts", oldText: "a", newText: "b" }, cwd), [{ path: "/abs/f.ts" }]);
  assert.deepEqual(toolLocations("grep", { pattern: "x", path: "src" }, cwd), [{ path: `${cwd}/src` }]);
  assert.deepEqual(toolLocations("grep", { pattern: "x" }, cwd), []);
  assert.deepEqual(toolLocations("bash", { command: "ls", path: "x" }, cwd), []);
});

test("the tool_call carries kind, title, locations, raw input, and for write / edit the proposed diff", () => {
  const args = { path: "src/a.ts", oldText: "const a = 1;", newText: "const a = 2;" };
  const call = toolCallStart("c1", "edit", args, cwd);
  assertValidUpdate(call);
  assert.deepEqual(call, {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "Edit src/a.ts",
    kind: "edit",
    status: "pending",
    rawInput: { path: "src/a.ts", oldTextBytes: 12, newTextBytes: 12 },
    name: "edit",
    locations: [{ path: `${cwd}/src/a.ts` }],
    content: [{ type: "diff", path: `${cwd}/src/a.ts`, oldText: "const a = 1;", newText: "const a = 2;" }],
  });
  const write = toolCallInfo("write", { path: "new.txt", content: "hello\n" }, cwd);
  assert.deepEqual(write.content, [{ type: "diff", path: `${cwd}/new.txt`, newText: "hello\n" }], "no oldText: a new file, as far as the arguments tell");
  const multi = toolCallInfo("edit", { path: "a", edits: [{ oldText: "1", newText: "2" }, { oldText: "3", newText: "4" }] }, cwd);
  assert.equal(multi.content.length, 2, "an edit with several replacements shows each");
  assert.deepEqual(toolCallInfo("read", { path: "a" }, cwd).content, []);
  assert.deepEqual(toolCallInfo("bash", { command: "npm test" }, cwd).content, [], "a command the title shows whole is not repeated");
  const long = `cd a\n${"x".repeat(100)}\nrm -rf build`;
  assert.deepEqual(toolCallInfo("bash", { command: long }, cwd).content, [{ type: "content", content: { type: "text", text: "```\n" + long + "\n```" } }], "a command the title cuts is in the content whole");
  assertValidUpdate(toolCallStart("c3", "bash", { command: long }, cwd));
  assertValidUpdate(toolCallStart("c2", "weird", undefined, cwd));
  assertValidUpdate(toolStatusUpdate("c2", "in_progress"));
});

test("rawInput leaves out the texts the diff carries (their sizes in bytes instead); arguments no diff shows stay whole", () => {
  assert.deepEqual(shownInput("write", { path: "a.txt", content: "héllo" }, cwd), { path: "a.txt", contentBytes: 6 });
  assert.deepEqual(toolCallStart("c1", "write", { path: "a.txt", content: "x".repeat(100_000) }, cwd).rawInput, { path: "a.txt", contentBytes: 100_000 });
  assert.deepEqual(
    shownInput("edit", { path: "a", edits: [{ oldText: "1", newText: "22" }, { oldText: "3" }, "odd"] }, cwd),
    { path: "a", edits: [{ oldTextBytes: 1, newTextBytes: 2 }, { oldText: "3" }, "odd"] },
    "each replacement the diffs show; a malformed one as given",
  );
  assert.deepEqual(shownInput("write", { content: "no path" }, cwd), { content: "no path" }, "no diff without a path: nothing left out");
  assert.deepEqual(shownInput("write", { path: "a", content: 5 }, cwd), { path: "a", content: 5 });
  assert.deepEqual(shownInput("bash", { command: "ls" }, cwd), { command: "ls" });
  assert.equal(shownInput("read", undefined, cwd), undefined);
});

test("results: completed with fenced output, failed with the error, diffs only for changes that went through", () => {
  const read = toolResultUpdate("c1", "read", { path: "a.md" }, { content: [{ type: "text", text: "1\t# Title\n2\t```js\n" }], isError: false }, cwd);
  assertValidUpdate(read);
  assert.equal(read.status, "completed");
  assert.deepEqual(read.content, [{ type: "content", content: { type: "text", text: "````\n1\t# Title\n2\t```js\n````" } }], "a fence longer than any run inside");

  const editArgs = { path: "src/a.ts", oldText: "a", newText: "b" };
  const edited = toolResultUpdate("c2", "edit", editArgs, { content: [{ type: "text", text: "Edited src/a.ts" }], details: { diff: "@@", firstChangedLine: 12 }, isError: false }, cwd);
  assertValidUpdate(edited);
  assert.deepEqual(edited.content, [
    { type: "diff", path: `${cwd}/src/a.ts`, oldText: "a", newText: "b" },
    { type: "content", content: { type: "text", text: "Edited src/a.ts" } },
  ]);
  assert.deepEqual(edited.locations, [{ path: `${cwd}/src/a.ts`, line: 12 }], "the changed line, from the result's details");

  const failedEdit = toolResultUpdate("c3", "edit", editArgs, { content: [{ type: "text", text: "oldText was not found" }], isError: true }, cwd);
  assertValidUpdate(failedEdit);
  assert.equal(failedEdit.status, "failed");
  assert.deepEqual(failedEdit.content, [{ type: "content", content: { type: "text", text: "oldText was not found" } }], "the proposed diff goes away");

  const bash = toolResultUpdate("c4", "bash", { command: "false" }, { content: [{ type: "text", text: "out\n\nCommand failed with exit code 1" }], isError: true }, cwd);
  assertValidUpdate(bash);
  assert.equal((bash.content?.[0] as { content: { text: string } }).content.text, "```\nout\n\nCommand failed with exit code 1\n```", "bash output fenced even on failure");

  const written = toolResultUpdate("c5", "write", { path: "n.txt", content: "x" }, { content: [{ type: "text", text: "Overwrote n.txt" }], details: { created: false }, isError: false }, cwd, "old");
  assertValidUpdate(written);
  assert.deepEqual(written.content?.[0], { type: "diff", path: `${cwd}/n.txt`, oldText: "old", newText: "x" }, "the earlier content when the caller has it");

  const image = toolResultUpdate("c6", "read", { path: "p.png" }, { content: [{ type: "image", data: "iVBOR", mimeType: "image/png" }, { type: "text", text: "" }], isError: false }, cwd);
  assertValidUpdate(image);
  assert.deepEqual(image.content, [{ type: "content", content: { type: "image", data: "iVBOR", mimeType: "image/png" } }]);

  const unknownArgs = toolResultUpdate("c7", "edit", undefined, { content: [{ type: "text", text: "Edited" }], isError: false }, cwd);
  assertValidUpdate(unknownArgs);
  assert.equal(unknownArgs.content?.length, 1, "without the arguments, no diff");

  const progress = toolProgressUpdate("c4", "bash", { content: [{ type: "text", text: "building…" }] });
  assertValidUpdate(progress);
  assert.deepEqual(progress, { sessionUpdate: "tool_call_update", toolCallId: "c4", status: "in_progress", content: [{ type: "content", content: { type: "text", text: "```\nbuilding…\n```" } }] });
});
