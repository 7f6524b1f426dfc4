// The permission modes decide from what a tool declares it may do (tools/types.ts), never from its
// name: a tool named like a writing one that declares it reads only runs without a question in
// "ask" and runs in "readonly"; a tool named like a reading one that declares unknown effects is
// asked about in "ask" and refused in "readonly". The built-in tools declare themselves.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PermissionMode } from "../../protocol/index.js";
import { runHooks } from "../../src/host/live/run-hooks.js";
import type { RunCompaction } from "../../src/host/compaction/ports.js";
import { createCodingTools } from "../../src/tools/index.js";
import type { ToolEffects } from "../../src/tools/types.js";

function hooksIn(mode: PermissionMode) {
  const asked: string[] = [];
  const hooks = runHooks({
    sessionId: "s",
    compaction: {} as RunCompaction,
    permission: { mode: () => mode, ask: async (r) => (asked.push(r.toolName), "allow"), allowedAlways: new Set(), cancelRun() {} },
    events: { emit() {} },
    queue: { record() {} },
    retry: { maxAttempts: 0, baseDelayMs: 0, maxDelayMs: 0 },
    place: () => undefined,
  });
  const canRun = (name: string, effects: ToolEffects) => hooks.canRunTool!({ type: "toolCall", id: `call-${name}`, name, arguments: {} }, { signal: new AbortController().signal, effects, runId: "run-1" });
  return { asked, canRun };
}

test("ask asks before every tool that is not read-only, whatever its name", async () => {
  const { asked, canRun } = hooksIn("ask");
  for (const [name, effects] of [["write", "read"], ["read", "unknown"], ["notes__search", "read"], ["db__query", "unknown"], ["edit", "write"], ["bash", "run"]] as const) {
    assert.deepEqual(await canRun(name, effects), { allow: true }, `${name} (${effects}) allowed once asked, or without asking`);
  }
  assert.deepEqual(asked, ["read", "db__query", "edit", "bash"]);
});

test("readonly refuses every tool that is not read-only, and runs the ones that are", async () => {
  const { asked, canRun } = hooksIn("readonly");
  assert.deepEqual(await canRun("write", "read"), { allow: true });
  assert.deepEqual(await canRun("notes__search", "read"), { allow: true });
  for (const [name, effects] of [["read", "unknown"], ["db__query", "unknown"], ["edit", "write"], ["bash", "run"]] as const) {
    const verdict = await canRun(name, effects);
    assert.equal(verdict.allow, false, `${name} (${effects}) refused`);
    assert.match(!verdict.allow ? verdict.reason : "", /read-only/);
  }
  assert.deepEqual(asked, [], "readonly never asks");
});

test("auto runs every tool without asking", async () => {
  const { asked, canRun } = hooksIn("auto");
  for (const effects of ["read", "write", "run", "unknown"] as const) assert.deepEqual(await canRun(`t-${effects}`, effects), { allow: true });
  assert.deepEqual(asked, []);
});

test("the built-in tools declare their effects: read, ls, grep and find read only; write and edit write files; bash runs commands", () => {
  const declared = Object.fromEntries(createCodingTools().map((t) => [t.name, t.effects]));
  assert.deepEqual(declared, { read: "read", bash: "run", edit: "write", write: "write", grep: "read", find: "read", ls: "read" });
});
