// A permission question outlives the editor view it was shown in (issue 33, row 4): pith keeps
// it for the session, so an editor that loads or resumes the session while it waits (its thread
// view was closed and opened again, and the dialog went with it) is asked again, the same tool
// call; the earlier request is cancelled ($/cancel_request), and the answer given to the new one
// decides. `pith acp` is one editor per process (the editor owns it: its stdin closing ends the
// process and closes the sessions, which withdraws what they wait for), so the editor that loads
// or resumes is the same connection here.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import { startAcp, type AcpDaemon } from "../support/acp-daemon.js";
import { FLOW_SETTINGS, SMALL_MODEL, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { startFakeAnthropic, textReply, toolUseReply, type FakeAnthropic } from "../support/fake-anthropic.js";
import { tempDir } from "../support/tmp.js";

let fake: FakeAnthropic;
before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  await fake.close();
});

/** `p`, or a failure naming `what` after 10 s (a test never waits for ever). */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`timed out after 10 s waiting for ${what}`)), 10_000)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const cancelRequests = (a: AcpDaemon) => a.stdoutLines.filter((l) => (JSON.parse(l) as { method?: string }).method === "$/cancel_request");

async function reopenedWhileAsked(t: TestContext, reopen: "load" | "resume"): Promise<void> {
  const home = tempDir(t);
  const cwd = tempDir(t);
  writeSettings(home, { ...FLOW_SETTINGS, model: SMALL_MODEL.id });
  t.after(() => drainFake(fake));
  const a = await startAcp(t, { home, fake, cwd });
  t.after(() => assert.deepEqual(a.violations, [], "every message parsed by the SDK's client"));
  t.after(() => assert.deepEqual(a.wireProblems(), [], "every line JSON-RPC, every update valid"));
  const { sessionId } = await a.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.request(acp.methods.agent.session.setMode, { sessionId, modeId: "ask" });
  fake.enqueue(toolUseReply("write", { path: "x.txt", content: "x" }, { id: "toolu_q" }), textReply("written"));

  const asked: string[] = [];
  let firstWithdrawn = false;
  let shown!: () => void;
  const firstShown = new Promise<void>((resolve) => (shown = resolve));
  // the first dialog is lost with the view: never answered (its request is cancelled later)
  a.onPermission((req, signal) => {
    asked.push(req.toolCall.toolCallId);
    shown();
    return new Promise((_resolve, reject) =>
      signal.addEventListener("abort", () => {
        firstWithdrawn = true;
        reject(new Error("withdrawn"));
      }),
    );
  });
  const prompt = a.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write x" }] });
  await within(firstShown, "the first question");
  assert.deepEqual(asked, ["toolu_q"]);

  // the view opens again: the question comes again, and this time it is answered
  let secondShown!: () => void;
  const again = new Promise<void>((resolve) => (secondShown = resolve));
  a.onPermission((req) => {
    asked.push(req.toolCall.toolCallId);
    secondShown();
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });
  if (reopen === "load") await a.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  else await a.request(acp.methods.agent.session.resume, { sessionId, cwd });
  await within(again, `the question asked again after session/${reopen}`);
  assert.deepEqual(asked, ["toolu_q", "toolu_q"], `session/${reopen} is asked the same tool call`);
  assert.equal((await prompt).stopReason, "end_turn");
  assert.equal(existsSync(join(cwd, "x.txt")), true, "the answer to the question asked again decided: the write ran");
  assert.equal(firstWithdrawn, true, "the earlier request was cancelled");
  assert.equal(cancelRequests(a).length, 1, "one $/cancel_request: the earlier copy");
  await a.end();
}

test("session/load while a permission question waits: the editor is asked again, its answer decides, the earlier request is cancelled", async (t) => {
  await reopenedWhileAsked(t, "load");
});

test("session/resume while a permission question waits: the editor is asked again, its answer decides", async (t) => {
  await reopenedWhileAsked(t, "resume");
});
