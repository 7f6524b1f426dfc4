import assert from "node:assert/strict";
import { test } from "node:test";
import { branchDivergence, compactionSettings, estimateMessagesTokens, prepareBranchSummary, pruneToolOutputs, summarizeBranch } from "../../src/compaction/index.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { SessionFile } from "../../src/session/index.js";
import { FakeSummarizer } from "../support/fake-summarizer.js";
import { assistant, call, result, user } from "../support/messages.js";
import { appendTurn } from "../support/sessions.js";
import { tempDir } from "../support/tmp.js";

function toolHistory(rounds: number, chars: number): AgentMessage[] {
  const out: AgentMessage[] = [user("go")];
  for (let i = 0; i < rounds; i++) {
    out.push(assistant("", [call(`c${i}`, "read", { path: `f${i}` })]));
    out.push(result(`c${i}`, "read", `output ${i} ` + "z = 1;\n".repeat(chars / 7)));
  }
  return out;
}

test("pruning replaces old tool outputs, keeps the newest, and leaves the input untouched", () => {
  const messages = toolHistory(20, 7000); // ~2k tokens each
  const before = JSON.stringify(messages);
  const out = pruneToolOutputs(messages, { enabled: true, keepToolTokens: 8000, minPruneTokens: 5000 });
  assert.equal(JSON.stringify(messages), before, "input not modified");
  assert.ok(out.prunedCount > 10 && out.freedTokens > 20000);
  const results = out.messages.filter((m) => m.role === "toolResult");
  assert.match((results[0].content[0] as { text: string }).text, /older output of read left out/);
  assert.match((results.at(-1)!.content[0] as { text: string }).text, /^output 19 /, "the newest output stays");
  assert.equal(results[0].toolCallId, "c0", "the pairing stays intact");
  assert.ok(estimateMessagesTokens(out.messages) < estimateMessagesTokens(messages) - 20000);
  // too little to gain, or disabled: unchanged
  assert.equal(pruneToolOutputs(messages, { enabled: true, keepToolTokens: 8000, minPruneTokens: 10 ** 6 }).prunedCount, 0);
  assert.equal(pruneToolOutputs(messages, { enabled: false, keepToolTokens: 0, minPruneTokens: 0 }).prunedCount, 0);
});

test("branch summary: the abandoned entries back to the common ancestor, with their files", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  appendTurn(s, "shared start", 1, 100);
  const ancestor = s.leafId!;
  appendTurn(s, "try approach A", 2, 500);
  appendTurn(s, "refine approach A", 2, 500);
  const oldPath = s.branchPath();
  s.branch(ancestor);
  const targetPath = s.branchPath();
  const div = branchDivergence(oldPath, targetPath);
  assert.equal(div.commonAncestorId, ancestor);
  assert.equal(div.entries[0].type, "message");

  const prep = prepareBranchSummary(oldPath, targetPath, 100_000)!;
  assert.equal((prep.messages[0] as { content: string }).content, "try approach A");
  assert.ok(prep.fileLists.modifiedFiles.length > 0);
  const port = new FakeSummarizer();
  const res = await summarizeBranch(prep, { port, limits: { contextWindow: 200_000, maxOutputTokens: 8000 }, settings: compactionSettings(), signal: new AbortController().signal });
  assert.equal(port.requests[0].kind, "branch");
  assert.match(port.requests[0].prompt, /side branch/);
  assert.match(res.summary, /<modified-files>/);
  const entry = s.branchWithSummary(ancestor, res.summary, res.details);
  assert.deepEqual(s.buildContext().messages.map((m) => m.role).at(-1), "branchSummary");
  assert.equal(s.leafId, entry.id);

  // a small budget keeps the newest messages but still counts every file
  const small = prepareBranchSummary(oldPath, targetPath, 50)!;
  assert.equal(small.messages.length, 1);
  assert.deepEqual(small.fileLists, prep.fileLists);
  assert.equal(prepareBranchSummary(targetPath, targetPath, 1000), null, "nothing abandoned: nothing to summarize");
});
