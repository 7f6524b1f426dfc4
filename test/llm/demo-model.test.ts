// The offline demo model's pure parts: tidying notes, and the notes the scripted summarizer
// writes from a transcript (goal, done, blocked, files; an update keeps the earlier notes).
import assert from "node:assert/strict";
import { test } from "node:test";
import { initialPrompt, updatePrompt } from "../../src/compaction/prompts.js";
import { demoPace, DEMO_PACE_MS } from "../../src/llm/demo-model.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { failedStep, readRun } from "../../src/llm/demo-run.js";
import { nextDemoTurn, tidyNotes } from "../../src/llm/demo-script.js";
import { scriptedSummary } from "../../src/llm/scripted-summary.js";

test("tidyNotes: one bullet style, no repeats, no blank runs; idempotent", () => {
  const messy = "# n\n\n\n- a  \n* b\n- a\n+ c\n\n";
  const tidy = tidyNotes(messy);
  assert.equal(tidy, "# n\n\n- a\n- b\n- c\n");
  assert.equal(tidyNotes(tidy), tidy);
  assert.equal(tidyNotes("- messages\n* compaction\n"), "- messages\n- compaction\n- branch summaries\n");
});

test("the scripted summary: goal, what was done, what failed, the files; an update keeps the earlier notes", () => {
  const transcript = [
    "[user]\nTidy up the notes",
    '[assistant]\nReading.\n[assistant calls tool read] {"path":"notes.md"}',
    "[tool read returned]\n# notes",
    '[assistant calls tool edit] {"path":"notes.md","oldText":"a","newText":"b"}',
    "[tool edit failed]\noldText was not found in notes.md",
  ].join("\n\n");
  const first = scriptedSummary(initialPrompt(transcript));
  assert.match(first, /^## Goal\n- Tidy up the notes\n/);
  assert.match(first, /### Done\n- \[x\] read notes\.md\n/);
  assert.match(first, /### Blocked\n- could not edit notes\.md: oldText was not found in notes\.md\n/);
  assert.match(first, /## Critical Context\n- file: notes\.md$/);
  assert.doesNotMatch(first, /fallback/i);
  const next = scriptedSummary(updatePrompt('[user]\nCheck it\n\n[assistant calls tool bash] {"command":"wc -l notes.md"}', first));
  assert.match(next, /## Goal\n- Tidy up the notes\n- Check it\n/);
  assert.match(next, /### Done\n- \[x\] read notes\.md\n- \[x\] ran `wc -l notes\.md`\n/);
});

test("the demo's pace: PITH_DEMO_PACE_MS, else the reading pace", () => {
  assert.equal(demoPace({}), DEMO_PACE_MS);
  assert.equal(demoPace({ PITH_DEMO_PACE_MS: "" }), DEMO_PACE_MS);
  assert.equal(demoPace({ PITH_DEMO_PACE_MS: "0" }), 0);
  assert.equal(demoPace({ PITH_DEMO_PACE_MS: "junk" }), DEMO_PACE_MS);
});

test("a tool call skipped because a steer came first is a step still to take, not a failure", () => {
  const now = Date.now();
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const messages = [
    { role: "user", content: "Tidy up the notes", timestamp: now },
    { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "ls", arguments: { path: "." } }], api: "x", provider: "scripted", model: "m", usage, stopReason: "toolUse", timestamp: now },
    { role: "toolResult", toolCallId: "c1", toolName: "ls", content: [{ type: "text", text: "(empty directory)" }], isError: false, timestamp: now },
    { role: "assistant", content: [{ type: "toolCall", id: "c2", name: "write", arguments: { path: "notes.md", content: "- a\n" } }], api: "x", provider: "scripted", model: "m", usage, stopReason: "toolUse", timestamp: now },
    { role: "toolResult", toolCallId: "c2", toolName: "write", content: [{ type: "text", text: "Skipped: the user sent a new message before this tool ran." }], isError: true, timestamp: now },
    { role: "user", content: "Also note that steering works", timestamp: now },
  ] as unknown as AgentMessage[];
  const run = readRun(messages);
  assert.equal(failedStep(run), undefined, "the skipped write is no failure");
  assert.equal(run.steps.some((s) => s.name === "write"), false, "and not a step taken");
  const turn = nextDemoTurn(run);
  assert.match(turn.text ?? "", /^You asked: "Also note that steering works"\. Changing course/);
  assert.match(JSON.stringify(turn.toolCalls), /- Also note that steering works/);
});
