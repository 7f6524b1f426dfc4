// Files pith writes mean the same to Pi: Pi 0.58.3 (the exact-pinned devDependency, loaded in
// this process by ../support/pi.ts) builds the same context messages from them as pith does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionFile } from "../../src/session/index.js";
import { copyFixture, fixtureSkip } from "../support/fixture.js";
import { assistant, call, result, user } from "../support/messages.js";
import { openWithPi } from "../support/pi.js";
import { tempDir } from "../support/tmp.js";

async function assertSameAsPi(file: string): Promise<void> {
  const s = SessionFile.open(file, { readOnly: true });
  const ours = s.buildContext();
  s.close();
  const theirs = await openWithPi(file);
  assert.equal(ours.messages.length, theirs.messages.length);
  // compare as the file states it (Pi keeps undefined fields that JSON drops)
  assert.deepEqual(JSON.parse(JSON.stringify(ours.messages)), JSON.parse(JSON.stringify(theirs.messages)));
  assert.deepEqual(ours.model, theirs.model);
  assert.equal(ours.thinkingLevel, theirs.thinkingLevel);
}

test("a branched, compacted, labelled session written by pith reads the same in Pi", async (t) => {
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
  await assertSameAsPi(s.file);

  const again = SessionFile.open(s.file);
  again.branchWithSummary(tip.id, "explored another approach");
  again.appendMessage(user("continue"));
  again.close();
  await assertSameAsPi(s.file);

  const back = SessionFile.open(s.file);
  back.branch(null);
  back.close();
  await assertSameAsPi(s.file);
});

test("the Pi fixture migrated by pith reads the same in Pi, message for message", { skip: fixtureSkip }, async (t) => {
  const file = copyFixture(tempDir(t));
  SessionFile.open(file).close();
  await assertSameAsPi(file);
});
