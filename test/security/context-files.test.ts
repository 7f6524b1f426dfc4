// AGENTS.md / CLAUDE.md go into the system prompt sent to the API. A repository (or the model,
// with ln -s in its bash) can make them links: to ~/.ssh/id_rsa, to pith's token. Through the
// real daemon and the fake Messages API: what the API received never holds the target's text,
// while a real AGENTS.md (and CLAUDE.md -> AGENTS.md, common in real repositories) still goes in.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { FLOW_SETTINGS, startRpcDaemon, writeSettings, type RpcPeer } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { modelCalls } from "../support/model-tools.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

const SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- context-file-secret-4242";
const PITH_SECRET = "pith-home-private-7777";
const RULES = "LEGIT-AGENTS-RULES: run npm test before committing";

/** The system prompt of the request the fake API got for one prompt in `sessionId`. */
async function systemPromptOf(peer: RpcPeer, sessionId: string): Promise<string> {
  const from = fake.requests.length;
  fake.enqueue(textReply("ok"));
  await peer.runPrompt(sessionId, "hello");
  const req = fake.requests[from];
  assert.ok(req, "the API got the prompt");
  return JSON.stringify(req.body.system);
}

async function daemon(t: Parameters<typeof tempDir>[0], home: string, cwd: string) {
  writeSettings(home, FLOW_SETTINGS);
  const d = startRpcDaemon(t, { home, fake, cwd });
  await d.peer.initialize();
  t.after(async () => {
    d.endStdin();
    await d.waitExit();
    await drainFake(fake);
  });
  return d;
}

test("a repository's AGENTS.md / CLAUDE.md linking out of the project or into pith's home stays out of the prompt; links inside it work", async (t) => {
  const base = tempDir(t, "pith-ctx-");
  const outside = join(base, "outside");
  const parent = join(base, "parent");
  const cwd = join(parent, "project");
  const home = join(cwd, "pith-home"); // pith's home inside the project: denied even so
  mkdirSync(outside);
  mkdirSync(join(cwd, "docs"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(outside, "id_rsa"), `${SECRET}\n`);
  writeFileSync(join(home, "private.txt"), `${PITH_SECRET}\n`);
  writeFileSync(join(cwd, "docs", "rules.md"), `${RULES}\n`);
  symlinkSync("docs/rules.md", join(cwd, "AGENTS.md")); // a link within the project: fine
  symlinkSync(join(home, "private.txt"), join(cwd, "CLAUDE.md")); // into pith's home: never
  // a parent directory's files may not lead out of that directory either
  symlinkSync(join(outside, "id_rsa"), join(parent, "AGENTS.md"));
  writeFileSync(join(parent, "parent-rules.md"), "PARENT-RULES-OK\n");
  symlinkSync("parent-rules.md", join(parent, "CLAUDE.md"));

  const d = await daemon(t, home, cwd);
  const s = await d.peer.request("createSession", { cwd });
  const system = await systemPromptOf(d.peer, s.sessionId);
  assert.ok(system.includes(RULES), "a link to a file inside the project is read");
  assert.ok(system.includes("PARENT-RULES-OK"), "a parent's link within its own directory is read");
  assert.ok(!system.includes("context-file-secret"), "a link out of the directory never reaches the API");
  assert.ok(!system.includes(PITH_SECRET), "pith's home never reaches the API");
  assert.deepEqual(d.peer.violations, []);
});

test("a link the model makes with bash (AGENTS.md -> a key outside) stays out of the next prompts' system prompt", async (t) => {
  const base = tempDir(t, "pith-ctx-");
  const outside = join(base, "outside");
  const cwd = join(base, "project");
  const home = join(base, "home");
  mkdirSync(outside);
  mkdirSync(cwd);
  writeFileSync(join(outside, "id_rsa"), `${SECRET}\n`);
  writeFileSync(join(cwd, "CLAUDE.md"), `${RULES}\n`);

  const d = await daemon(t, home, cwd);
  const s = await d.peer.request("createSession", { cwd });
  const made = await modelCalls(d.peer, fake, s.sessionId, "bash", {
    command: `ln -s ${join(outside, "id_rsa")} AGENTS.md && ls -l AGENTS.md`,
  });
  assert.equal(made.isError, false, made.text);

  // the same session's next prompt, and a new session in the same project (its prompt is built anew)
  const again = await systemPromptOf(d.peer, s.sessionId);
  const fresh = await d.peer.request("createSession", { cwd });
  const next = await systemPromptOf(d.peer, fresh.sessionId);
  for (const system of [again, next]) {
    assert.ok(system.includes(RULES), "the project's own CLAUDE.md is read");
    assert.ok(!system.includes("context-file-secret"), "the model's link never reaches the API");
  }
  assert.deepEqual(d.peer.violations, []);
});
