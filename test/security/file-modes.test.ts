// Transcripts are not readable by other local users: everything pith creates under $PITH_HOME is
// private (files 0600, folders 0700, as ssh does), and so are bash's full-output files in the
// shared temp dir; a file that already exists keeps its mode (a migration included).
import assert from "node:assert/strict";
import { chmodSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SessionFile } from "../../src/session/index.js";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { byType, FLOW_SETTINGS, startRpcDaemon } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const mode = (path: string) => statSync(path).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

/** Every file and folder under `root` with a mode other than the private ones. */
function notPrivate(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const p = join(root, name);
    const want = statSync(p).isDirectory() ? 0o700 : 0o600;
    if (mode(p) !== want) out.push(`${name}: ${octal(mode(p))}`);
  }
  return out;
}

test("a fresh $PITH_HOME, its sessions, forks, locks, settings and bash's spilled output are private", async (t) => {
  const home = join(tempDir(t), "fresh-home");
  const cwd = tempDir(t);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  await d.peer.request("updateSettings", { patch: FLOW_SETTINGS });
  const s = await d.peer.request("createSession", { cwd });
  fake.enqueue(textReply("hello"));
  const run = await d.peer.runPrompt(s.sessionId, "hi");
  const entryId = byType(run.events, "message_end").find((e) => e.entryId)!.entryId!;
  await d.peer.request("forkSession", { sessionId: s.sessionId, entryId });
  const big = await d.peer.request("bash", { sessionId: s.sessionId, command: "seq 1 200000" });
  assert.equal(big.truncated, true);
  const spilled = (big.output as string).match(/\/\S*pith-bash-[^\s)\]]+\.log/)?.[0];
  assert.ok(spilled, `the full output's file is named: ${big.output.slice(-300)}`);
  assert.equal(mode(spilled!), 0o600, "bash's full output");
  assert.equal(mode(`${s.sessionFile}.lock`), 0o600, "the lock file, while the session is open");
  assert.deepEqual(notPrivate(home), []);
  assert.equal(mode(home), 0o700);
  d.endStdin();
  await d.waitExit();
  await drainFake(fake);
});

test("existing files keep their mode: an appended session, a migrated v1 file and its backup, the settings file", (t) => {
  const dir = tempDir(t);
  const s = SessionFile.create({ cwd: "/w", sessionsDir: dir });
  s.close();
  chmodSync(s.file, 0o640);
  const again = SessionFile.open(s.file);
  again.appendMessage({ role: "user", content: "more", timestamp: 1 });
  again.close();
  assert.equal(mode(s.file), 0o640, "an append does not change the mode");

  const v1 = join(dir, "old.jsonl");
  writeFileSync(v1, [JSON.stringify({ type: "session", id: "old", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" }), JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "x", timestamp: 1 } })].join("\n") + "\n");
  chmodSync(v1, 0o644);
  const migrated = SessionFile.open(v1);
  assert.ok(migrated.backupFile);
  migrated.close();
  assert.equal(mode(v1), 0o644, "the migrated file keeps the original's mode");
  assert.equal(mode(migrated.backupFile!), 0o644, "so does the backup");
});
