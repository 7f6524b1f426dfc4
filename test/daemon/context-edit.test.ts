// Through the daemon (bin/pith over real pipes): a session Pi 1.5.2 edited with context_edit
// entries gives getMessages Pi 1.5.2's context and getTree the edits as entries, and the next
// model request (to the fake Messages API) leaves the left-out message out and sends the
// replacement, not the stored content.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeAnthropic, textReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, Cleanup, startRpcDaemon } from "../support/daemon-client.js";
import { asStored, CONTEXT_EDIT_DIR, CONTEXT_EDIT_FIXTURES, piView } from "../support/context-edit-fixtures.js";
import { tempDir } from "../support/tmp.js";

const cleanup = new Cleanup();
let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
  cleanup.after(() => fake.close());
});
after(() => cleanup.run());

test("getMessages of every Pi-edited fixture is Pi 1.5.2's context; getTree lists the edits; the model request carries the edited context", async (t) => {
  checkDist(t);
  const home = tempDir(t, "pith-ctxedit-home-");
  const dir = join(home, "imported");
  mkdirSync(dir);
  const d = startRpcDaemon(t, { home, fake, cwd: home });
  await d.peer.initialize();
  const opened = new Map<string, string>();
  for (const name of CONTEXT_EDIT_FIXTURES) {
    const file = join(dir, `${name}.jsonl`);
    copyFileSync(join(CONTEXT_EDIT_DIR, `${name}.jsonl`), file);
    const { sessionId, state } = await d.peer.request("openSession", { sessionFile: file });
    opened.set(name, sessionId);
    const { messages } = await d.peer.request("getMessages", { sessionId });
    assert.deepEqual(asStored(messages), asStored(piView(name).messages), name);
    assert.equal(state.messageCount, piView(name).contextMessages, `${name}: the state counts the edited context`);
  }

  const sessionId = opened.get("omit-and-replace")!;
  const tree = await d.peer.request("getTree", { sessionId });
  assert.deepEqual(
    tree.entries.filter((n) => n.type === "context_edit").map((n) => n.preview),
    ["context omit: e0000004", "context replace: e0000003"],
  );

  fake.enqueue(textReply("ok"));
  const from = fake.requests.length;
  await d.peer.runPrompt(sessionId, "and c.ts?");
  const body = JSON.stringify(fake.requests[from].body.messages);
  assert.doesNotMatch(body, /It exports a constant/, "the left-out message is not sent");
  assert.doesNotMatch(body, /export const a = 1/, "the replaced tool output is not sent");
  assert.match(body, /2 lines, left out; read it again if needed/, "its replacement is");
  assert.match(body, /and c\.ts\?/);
  d.endStdin();
  assert.equal((await d.waitExit()).code, 0);
});
