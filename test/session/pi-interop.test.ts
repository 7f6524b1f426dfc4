// Files pith writes mean the same to Pi: Pi 0.58.3 (through ../shared/tools/pi-oracle.mjs)
// builds the same context messages from them as pith does. Runs only where the oracle and its
// installed Pi package are present (it must not reach the network from a test).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { SessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, call, result, user } from "../support/messages.js";
import { repoRoot, tempDir } from "../support/tmp.js";

const ORACLE = resolve(repoRoot, "..", "shared", "tools", "pi-oracle.mjs");
const PI_PACKAGE = join(homedir(), ".cache", "pi-oracle-0.58.3", "node_modules", "@mariozechner", "pi-coding-agent");
const oracleSkip = !existsSync(ORACLE)
  ? `Pi oracle not found at ${ORACLE}; skipping`
  : !existsSync(PI_PACKAGE)
    ? `Pi 0.58.3 is not installed for the oracle (run: node ${ORACLE} <any session file>, once, with network); skipping`
    : false;

interface OracleOut {
  contextMessages: number;
  roleSequence: string;
  model: { provider: string; modelId: string } | null;
  thinkingLevel: string;
  messages: unknown[];
}

function pi(file: string): OracleOut {
  return JSON.parse(execFileSync(process.execPath, [ORACLE, file, "--messages"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 << 20 })) as OracleOut;
}

function assertSameAsPi(file: string): void {
  const s = SessionFile.open(file, { readOnly: true });
  const ours = s.buildContext();
  s.close();
  const theirs = pi(file);
  assert.equal(ours.messages.length, theirs.contextMessages);
  // compare as the file states it (Pi keeps undefined fields that JSON drops)
  assert.deepEqual(JSON.parse(JSON.stringify(ours.messages)), JSON.parse(JSON.stringify(theirs.messages)));
  assert.deepEqual(ours.model, theirs.model);
  assert.equal(ours.thinkingLevel, theirs.thinkingLevel);
}

test("a branched, compacted, labelled session written by pith reads the same in Pi", { skip: oracleSkip }, (t) => {
  const s = SessionFile.create({ cwd: "/work/app", sessionsDir: tempDir(t) });
  s.appendThinkingLevelChange("medium");
  const first = s.appendMessage(user("start"));
  s.appendMessage(assistant("", [call("c1", "read", { path: "a.ts" })]));
  s.appendMessage(result("c1", "read", "export const a = 1;"));
  const kept = s.appendMessage(user("change it"));
  s.appendMessage(assistant("done"));
  s.append({ type: "compaction", summary: "## Goal\nchange a", firstKeptEntryId: kept.id, tokensBefore: 4000, details: { readFiles: ["a.ts"], modifiedFiles: [] } });
  s.append({ type: "custom_message", customType: "note", content: "injected", display: true });
  s.appendMessage({ role: "bashExecution", command: "ls", output: "a.ts", exitCode: 0, cancelled: false, truncated: false, timestamp: 7 });
  const tip = s.appendMessage(assistant("after compaction"));
  s.setLabel(first.id, "start");
  s.appendModelChange("anthropic", "claude-opus-4-5");
  // leave the branch: the leaf marker must make Pi resume at the target too
  s.branch(kept.id);
  s.close();
  assertSameAsPi(s.file);

  const again = SessionFile.open(s.file);
  again.branchWithSummary(tip.id, "explored another approach");
  again.appendMessage(user("continue"));
  again.close();
  assertSameAsPi(s.file);

  const back = SessionFile.open(s.file);
  back.branch(null);
  back.close();
  assertSameAsPi(s.file);
});

test("the Pi fixture migrated by pith reads the same in Pi, message for message", { skip: oracleSkip || fixtureSkip }, (t) => {
  const file = copyFixture(tempDir(t));
  SessionFile.open(file).close();
  assertSameAsPi(file);
});
