import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadSettings, readSettingsFile, SettingsError } from "../../src/host/policy/settings.js";
import { buildSystemPrompt, findContextFiles } from "../../src/agent/system-prompt.js";
import { createCodingTools } from "../../src/tools/index.js";
import { tempDir } from "../support/tmp.js";

test("project settings override the user's, key by key", (t) => {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeFileSync(join(home, "settings.json"), JSON.stringify({ model: "claude-opus-5-5", compaction: { reserveTokens: 9000, keepRecentTokens: 30000 }, maxTurns: 50 }));
  mkdirSync(join(cwd, ".pith"));
  writeFileSync(join(cwd, ".pith", "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 10000 }, thinkingLevel: "high" }));
  const s = loadSettings(cwd, { PITH_HOME: home });
  assert.deepEqual(s, { model: "claude-opus-5-5", compaction: { reserveTokens: 9000, keepRecentTokens: 10000 }, maxTurns: 50, thinkingLevel: "high" });
  assert.deepEqual(loadSettings(tempDir(t), { PITH_HOME: tempDir(t) }), {}, "no files: no settings");
});

test("a bad settings file is an error naming the file and the key, not a crash", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "settings.json");
  const cases: [string, RegExp][] = [
    ['{"compaction": {"reserveTokens": "lots"}}', /compaction\.reserveTokens/],
    ['{"thinkingLevel": "maximum"}', /thinkingLevel/],
    ['{"modle": "x"}', /modle|Unrecognized key/],
    ["{ not json", /not valid JSON/],
    ["[1, 2]", /top level|expected object/i],
  ];
  for (const [content, pattern] of cases) {
    writeFileSync(file, content);
    assert.throws(
      () => readSettingsFile(file),
      (err: unknown) => err instanceof SettingsError && err.file === file && pattern.test(err.message) && err.message.includes(file),
      content,
    );
  }
});

test("the system prompt names the tools, date and cwd, and carries AGENTS.md / CLAUDE.md from cwd and its parents", (t) => {
  const root = tempDir(t);
  const cwd = join(root, "app", "pkg");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(root, "AGENTS.md"), "Outer rule: use tabs.");
  writeFileSync(join(cwd, "CLAUDE.md"), "Inner rule: run npm test.");
  const files = findContextFiles(cwd).filter((f) => f.path.startsWith(root));
  assert.deepEqual(files.map((f) => f.path), [join(root, "AGENTS.md"), join(cwd, "CLAUDE.md")], "outermost first");
  const prompt = buildSystemPrompt({ cwd, tools: createCodingTools(), contextFiles: files, now: new Date("2026-11-22T10:00:00Z"), appendSystemPrompt: "Be brief." });
  for (const name of ["read", "write", "edit", "bash", "ls", "grep", "find"]) assert.match(prompt, new RegExp(`- ${name}: `));
  assert.match(prompt, /Current date: 2026-11-22/);
  assert.ok(prompt.includes(`Working directory: ${cwd}`));
  assert.ok(prompt.indexOf("Outer rule") < prompt.indexOf("Inner rule"));
  assert.ok(prompt.trimEnd().endsWith("Be brief."));
  const replaced = buildSystemPrompt({ cwd, tools: [], contextFiles: files, systemPrompt: "You are a poet." });
  assert.ok(replaced.startsWith("You are a poet."));
  assert.match(replaced, /Inner rule/, "project context is kept with a replaced prompt");
});
