// Through the daemon (bin/pith over real pipes, the fake Messages API): with compaction.prune on,
// once enough old tool output can be freed the next model request carries placeholders instead
// of the old outputs, all at once; the decision is stored as context_edit entries (the tool
// results themselves stay in the file), the requests after it keep the pruned prefix as it was
// (the prompt cache is broken once per batch, not per turn), and Pi 1.5.2 reads the resulting
// file as pith does.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, Cleanup, startRpcDaemon, writeSettings } from "../support/daemon-client.js";
import { asStored, PI_LATEST_ORACLE } from "../support/context-edit-fixtures.js";
import { tempDir } from "../support/tmp.js";

const cleanup = new Cleanup();
let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
  cleanup.after(() => fake.close());
});
after(() => cleanup.run());

const FILES = ["alpha", "bravo", "charlie", "delta"];
/** about 2300 estimated tokens of text, every line naming its file */
function fileText(tag: string): string {
  return Array.from({ length: 120 }, (_, i) => `${tag}-line-${i}: the quick brown fox jumps over the lazy dog.`).join("\n");
}

/** The request's messages without the cache breakpoints (they move to the newest turn each request). */
function messagesOf(body: Record<string, any>): unknown {
  return JSON.parse(JSON.stringify(body.messages, (k, v) => (k === "cache_control" ? undefined : v)));
}

const oracleInstalled = existsSync(join(homedir(), ".cache", "pi-oracle-1.5.2", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "session-manager.js"));

test("prune on: old tool outputs leave the model's request in one batch, stored as context_edit entries Pi 1.5.2 reads alike", async (t) => {
  checkDist(t);
  const home = tempDir(t, "pith-prune-home-");
  const cwd = tempDir(t, "pith-prune-cwd-");
  for (const f of FILES) writeFileSync(join(cwd, `${f}.txt`), fileText(f));
  writeSettings(home, { compaction: { prune: { enabled: true, keepToolTokens: 3000, minPruneTokens: 3000 } } });
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(...FILES.map((f) => toolUseReply("read", { path: `${f}.txt` })), textReply("done"));
  const from = fake.requests.length;
  await d.peer.runPrompt(s.sessionId, "read the four files");
  const requests = fake.requests.slice(from).map((r) => JSON.stringify(r.body.messages));
  assert.equal(requests.length, 5);

  // 3rd request: alpha and bravo sent whole (freeing alpha alone is under minPruneTokens)
  assert.match(requests[2], /alpha-line-7:/);
  assert.match(requests[2], /bravo-line-7:/);
  // 4th: alpha and bravo are past the newest 3000 tokens and free enough: both go at once
  assert.doesNotMatch(requests[3], /alpha-line-7:|bravo-line-7:/, "the old outputs are left out");
  assert.equal(requests[3].match(/older output of read left out to save context \(about \d+ tokens\); read the file again if it is needed/g)?.length, 2);
  assert.match(requests[3], /charlie-line-7:/, "the newest output stays");
  // 5th: charlie alone would free too little, so the prefix the 4th request sent stays as it was
  assert.match(requests[4], /charlie-line-7:/);
  const fourth = messagesOf(fake.requests[from + 3].body) as unknown[];
  const fifth = messagesOf(fake.requests[from + 4].body) as unknown[];
  assert.deepEqual(fifth.slice(0, fourth.length), fourth, "no second prune: the cached prefix holds");

  // the file: the tool results are stored whole, two context_edit entries replace the old ones
  const lines = readFileSync(s.sessionFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const results = lines.filter((e) => e.type === "message" && e.message.role === "toolResult");
  assert.equal(results.length, 4);
  assert.ok(results.every((e, i) => JSON.stringify(e.message.content).includes(`${FILES[i]}-line-119`)), "the originals are kept");
  const edits = lines.filter((e) => e.type === "context_edit");
  assert.deepEqual(edits.map((e) => e.targetId), [results[0].id, results[1].id]);
  assert.match(edits[0].replacement.content[0].text, /^\[older output of read left out/);

  const { messages } = await d.peer.request("getMessages", { sessionId: s.sessionId });
  assert.doesNotMatch(JSON.stringify(messages), /alpha-line-7:/, "getMessages gives the edited context");
  d.endStdin();
  assert.equal((await d.waitExit()).code, 0);

  const skip = !PI_LATEST_ORACLE ? "the Pi latest oracle (../shared/tools/pi-latest-oracle.mjs) is not here" : !oracleInstalled ? "Pi 1.5.2 is not installed for the oracle (~/.cache/pi-oracle-1.5.2)" : "";
  if (skip) return t.diagnostic(`${skip}; skipping the comparison with Pi 1.5.2`);
  const { stdout } = await promisify(execFile)("node", [PI_LATEST_ORACLE!, "read", s.sessionFile, "--messages"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.deepEqual(asStored(messages), asStored(JSON.parse(stdout).messages), "Pi 1.5.2 gives the same context");
});
