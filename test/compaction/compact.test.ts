import assert from "node:assert/strict";
import { test } from "node:test";
import {
  appendCompaction,
  compact,
  compactionInputOf,
  compactionSettings,
  CompactionAbortedError,
  prepareCompaction,
  shouldCompact,
  type CompactionPreparation,
} from "../../src/compaction/index.js";
import { SessionFile } from "../../src/session/index.js";
import { FakeSummarizer } from "../support/fake-summarizer.js";
import { appendTurn, orphans } from "../support/sessions.js";
import { tempDir } from "../support/tmp.js";

const limits = { contextWindow: 200_000, maxOutputTokens: 32_000 };
const settings = compactionSettings({ keepRecentTokens: 3000 });

function prepared(s: SessionFile, reason: "threshold" | "manual" = "manual"): CompactionPreparation {
  const out = prepareCompaction(compactionInputOf(s), settings, reason);
  assert.ok(out.ok, out.ok ? "" : out.message);
  return out.preparation;
}

test("shouldCompact is Pi's rule and respects enabled", () => {
  assert.equal(shouldCompact(183_617, 200_000, settings), true);
  assert.equal(shouldCompact(183_616, 200_000, settings), false);
  assert.equal(shouldCompact(199_000, 200_000, { ...settings, enabled: false }), false);
});

test("first compaction: structured summary, user messages verbatim, file lists by pith, context rebuilt", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  appendTurn(s, "Use tabs, never spaces. Fix the parser.");
  appendTurn(s, "Now add tests for the parser");
  appendTurn(s, "Refactor the lexer");
  appendTurn(s, "Last request: update the docs");
  const prep = prepared(s);
  const port = new FakeSummarizer();
  const result = await compact(prep, { port, limits, settings, signal: new AbortController().signal, instructions: "focus on the parser" });

  const history = port.requests.filter((r) => r.kind === "history");
  assert.equal(history.length, 1);
  const req = history[0];
  assert.match(req.prompt, /<transcript>\n\[user\]\nUse tabs, never spaces/);
  assert.match(req.prompt, /## Constraints & Preferences/);
  assert.match(req.prompt, /particular attention to: focus on the parser/);
  assert.doesNotMatch(req.prompt, /<existing-notes>/);
  assert.match(req.systemPrompt, /Never reply to the user/);

  assert.match(result.summary, /^## Goal\nsummary \d \(history\)/);
  assert.match(result.summary, /<user-messages>[\s\S]*- Use tabs, never spaces. Fix the parser\.[\s\S]*<\/user-messages>/);
  assert.match(result.summary, /<read-files>\n(src\/file\d\.ts\n)+<\/read-files>/);
  assert.match(result.summary, /<modified-files>\n/);
  assert.ok(result.details.userMessages.includes("Use tabs, never spaces. Fix the parser."));
  assert.ok(result.tokensAfter < result.tokensBefore, `${result.tokensAfter} < ${result.tokensBefore}`);
  assert.equal(result.fallback, undefined);

  const entry = appendCompaction(s, result);
  const ctx = s.buildContext();
  assert.equal(ctx.messages[0].role, "compactionSummary");
  assert.equal(ctx.entryIds[0], entry.id);
  assert.equal(ctx.entryIds[1], result.firstKeptEntryId);
  assert.deepEqual(orphans(ctx.messages), []);
});

test("the next compaction updates the previous summary and re-summarizes what the last one kept", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  for (let i = 0; i < 4; i++) appendTurn(s, `task ${i}`);
  const port = new FakeSummarizer();
  const first = await compact(prepared(s), { port, limits, settings, signal: new AbortController().signal });
  appendCompaction(s, first);
  const keptBefore = s.buildContext().entryIds.slice(1);
  for (let i = 4; i < 8; i++) appendTurn(s, `task ${i}`);
  const prep = prepared(s);
  const summarizedIds = new Set(compactionInputOf(s).entryIds.slice(1, prep.firstKeptIndex));
  for (const id of keptBefore) assert.ok(summarizedIds.has(id), `message ${id} kept by the first compaction is summarized by the second`);
  const second = await compact(prep, { port, limits, settings, signal: new AbortController().signal });
  const req = port.requests.filter((r) => r.kind === "history")[1];
  assert.match(req.prompt, /<existing-notes>\n## Goal\nsummary \d \(history\)/);
  assert.doesNotMatch(req.prompt, /<existing-notes>[\s\S]*<user-messages>[\s\S]*<\/existing-notes>/, "pith's own sections are not fed back to the model");
  assert.match(req.prompt, /\[user\]\ntask 3/);
  assert.ok(second.details.userMessages.includes("task 0"), "user messages carried from the earlier compaction");
  assert.ok(second.details.readFiles.length + second.details.modifiedFiles.length >= first.details.readFiles.length);
});

test("a long previous summary asks the model to compress old Done items", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  for (let i = 0; i < 3; i++) appendTurn(s, `t${i}`);
  s.append({ type: "compaction", summary: "## Goal\n" + "done item\n".repeat(20000), firstKeptEntryId: s.buildContext().entryIds.at(-1)!, tokensBefore: 1 });
  for (let i = 0; i < 3; i++) appendTurn(s, `u${i}`);
  const port = new FakeSummarizer();
  await compact(prepared(s), { port, limits, settings, signal: new AbortController().signal });
  assert.match(port.requests[0].prompt, /Fold older "Done" items/);
});

test("a split turn gets its own prefix summary, merged into the main one", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  appendTurn(s, "small earlier turn", 1, 200);
  appendTurn(s, "one huge turn", 12, 3000);
  const prep = prepared(s);
  assert.equal(prep.isSplitTurn, true);
  assert.equal(prep.turnPrefixMessages[0].role, "user");
  const port = new FakeSummarizer();
  const result = await compact(prep, { port, limits, settings, signal: new AbortController().signal });
  assert.deepEqual(port.requests.map((r) => r.kind).sort(), ["history", "turn-prefix"]);
  assert.ok(port.requests.find((r) => r.kind === "turn-prefix")!.maxTokens < port.requests.find((r) => r.kind === "history")!.maxTokens);
  assert.match(result.summary, /Earlier part of the current turn/);
  appendCompaction(s, result);
  assert.deepEqual(orphans(s.buildContext().messages), []);
});

test("when the summarizer fails, an extractive summary is used and marked; an abort is not a failure", async (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  for (let i = 0; i < 4; i++) appendTurn(s, `request number ${i}`);
  const failing = new FakeSummarizer({ fail: Object.assign(new Error("529 overloaded"), { errorClass: "transient" }) });
  const result = await compact(prepared(s), { port: failing, limits, settings, signal: new AbortController().signal });
  assert.deepEqual(result.fallback, { reason: "529 overloaded" });
  assert.equal(result.details.fallback, true);
  assert.match(result.summary, /^\(Extractive summary: the summarizer failed \(529 overloaded\)/);
  assert.match(result.summary, /request number 1/);
  assert.match(result.summary, /\[x\] read src\/file\d\.ts/);

  const timeout = await compact(prepared(s), { port: new FakeSummarizer({ hang: true }), limits, settings: { ...settings, summaryTimeoutMs: 50 }, signal: new AbortController().signal });
  assert.match(timeout.fallback!.reason, /did not answer within/);

  const ac = new AbortController();
  const pending = compact(prepared(s), { port: new FakeSummarizer({ hang: true }), limits, settings, signal: ac.signal });
  setTimeout(() => ac.abort(), 20);
  await assert.rejects(pending, CompactionAbortedError);
});

test("an automatic compaction that would free too little is skipped; a manual one runs; nothing before the cut is an error", (t) => {
  const s = SessionFile.create({ cwd: "/p", sessionsDir: tempDir(t) });
  t.after(() => s.close());
  appendTurn(s, "tiny", 0, 0);
  let out = prepareCompaction(compactionInputOf(s), settings, "manual");
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.code, "nothing_to_compact");

  // one small turn, then a huge recent one that must be kept: compacting frees almost nothing
  appendTurn(s, "small", 1, 100);
  appendTurn(s, "recent", 0, 0);
  s.appendMessage({ role: "user", content: "x ".repeat(40000), timestamp: 1 });
  out = prepareCompaction(compactionInputOf(s), compactionSettings({ keepRecentTokens: 1000 }), "threshold");
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.code, "too_little_gain");
  assert.match(!out.ok ? out.message : "", /would free about \d+ of \d+ tokens, under 10%/);
  assert.equal(prepareCompaction(compactionInputOf(s), compactionSettings({ keepRecentTokens: 1000 }), "manual").ok, true);
});
