// `pith --mode json "prompt"`: one prompt, headless, against the fake Messages API. stdout is
// checked line by line: the session header first (type "session"), then one event per line with
// type, sessionId and seq (1, 2, 3, ...), agent_end last. Exit codes: 0 ok, 1 error or abort,
// 2 usage.
import assert from "node:assert/strict";
import { existsSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EventLine, SessionHeader } from "../../protocol/index.js";
import { authError, hang, textReply, toolUseReply, type FakeAnthropic, startFakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, Cleanup, DaemonProcess, FLOW_SETTINGS, poll, runPith, writeSettings } from "../support/daemon-client.js";
import { drainFake } from "../support/daemon-flows.js";
import { tempDir } from "../support/tmp.js";

// `--mode json`'s lines as parsed: checkLines checks each against SessionHeader / EventLine before
// the tests read them, so they are read freely here (this is not the RPC peer's typed stream).
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: FakeAnthropic;
let home: string;
let cwd: string;
const cleanup = new Cleanup();

before(async () => {
  fake = await startFakeAnthropic();
  home = realpathSync(tempDir(cleanup, "pith-json-home-"));
  cwd = realpathSync(tempDir(cleanup, "pith-json-cwd-"));
  writeFileSync(join(cwd, "a.txt"), "hello from a.txt\n");
  writeSettings(home, FLOW_SETTINGS);
});

after(async () => {
  await fake.close();
  await cleanup.run();
});

interface Checked {
  header: Json;
  events: Json[];
  result: Json;
}

/** Checks stdout line by line and returns the header and the events. */
function checkLines(stdout: string): Checked {
  assert.ok(stdout.endsWith("\n"), "every line ends with LF");
  const lines = stdout.slice(0, -1).split("\n");
  const parsed = lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch {
      assert.fail(`line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
    }
  });
  const [header, ...rest] = parsed;
  const result = rest.pop();
  const events = rest;
  assert.equal(header.type, "session", "line 1 is the session header");
  assert.ok(SessionHeader.safeParse(header).success, JSON.stringify(header));
  assert.equal(header.version, 3);
  events.forEach((e, i) => {
    assert.equal(typeof e.type, "string", `line ${i + 2} has a type`);
    assert.equal(e.sessionId, header.id, `line ${i + 2} (${e.type}) has the session's id`);
    assert.equal(e.seq, i + 1, `line ${i + 2} (${e.type}) has seq ${i + 1}`);
    const r = EventLine.safeParse(e);
    assert.ok(r.success, `line ${i + 2} (${e.type}) matches EventLine: ${r.success ? "" : r.error.message.slice(0, 400)}`);
  });
  assert.ok(events.length > 0);
  assert.equal(events.at(-1).type, "agent_end", "agent_end is the last line");
  assert.equal(events.filter((e) => e.type === "agent_end").length, 1);
  assert.equal(events[0].type, "agent_start");
  // the last line: the run's result, as other agents' json modes end
  const end = events.at(-1);
  assert.deepEqual(Object.keys(result).slice(0, 6), ["type", "sessionId", "stopReason", "text", "usage", "cost"], JSON.stringify(result));
  assert.equal(result.type, "result");
  assert.equal(result.sessionId, header.id);
  assert.equal(result.stopReason, end.stopReason);
  assert.deepEqual(result.usage, end.usage);
  assert.equal(result.cost, end.usage.cost.total);
  const replies = events.filter((e) => e.type === "message_end" && e.message.role === "assistant");
  const lastText = (replies.at(-1)?.message.content ?? []).filter((b: Json) => b.type === "text").map((b: Json) => b.text).join("");
  assert.equal(result.text, lastText, "the final reply's text");
  assert.equal(result.error, end.error?.message);
  return { header, events, result };
}

function sessionFiles(): string[] {
  const dir = join(home, "sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(dir, f));
}

const show = (r: { code: number | null; stdout: string; stderr: string }) => `exit ${r.code}\n--- stdout:\n${r.stdout.slice(-3000)}\n--- stderr:\n${r.stderr.slice(-2000)}`;

test("a prompt with a tool: exit 0, the header then every event, agent_end stop last", async (t) => {
  checkDist(t);
  fake.enqueue(toolUseReply("read", { path: "a.txt" }, { text: "Reading." }), textReply("It says hello."));
  const r = await runPith(["--mode", "json", "what does a.txt say?"], { home, fake, cwd });
  assert.equal(r.code, 0, show(r));
  const { header, events, result } = checkLines(r.stdout);
  assert.equal(header.cwd, cwd);
  assert.equal(events.at(-1).stopReason, "stop");
  assert.equal(result.text, "It says hello.");
  assert.ok(!events.some((e) => e.type === "notice"), "no offline notice with a real model");
  const types = events.map((e) => e.type);
  for (const ty of ["message_start", "message_update", "message_end", "tool_execution_start", "tool_execution_end", "turn_end", "usage_update"]) assert.ok(types.includes(ty), `${ty} is printed`);
  const toolEnd = events.find((e) => e.type === "tool_execution_end");
  assert.match(JSON.stringify(toolEnd.result.content), /hello from a\.txt/);
  const files = sessionFiles();
  assert.equal(files.length, 1);
  assert.ok(files[0].includes(header.id), "the session file is named after the header's id");
  assert.equal(fake.remaining(), 0);
  t.diagnostic(`pith --mode json with one tool call: ${r.ms.toFixed(0)} ms`);
});

test("--session FILE and --continue carry on a stored session; --model picks the model", async () => {
  const [file] = sessionFiles();
  const first = fake.requests.length;
  fake.enqueue(textReply("Carrying on."));
  const r1 = await runPith(["--mode", "json", "--session", file, "--model", "small-model", "and then?"], { home, fake, cwd });
  assert.equal(r1.code, 0, show(r1));
  const c1 = checkLines(r1.stdout);
  assert.ok(file.includes(c1.header.id), "the same session");
  assert.equal(fake.requests[first].body.model, "small-model");
  assert.match(JSON.stringify(fake.requests[first].body.messages), /what does a\.txt say\?/, "the earlier messages are in the context");

  fake.enqueue(textReply("Still going."));
  const r2 = await runPith(["--mode", "json", "--continue", "last one"], { home, fake, cwd });
  assert.equal(r2.code, 0, show(r2));
  const c2 = checkLines(r2.stdout);
  assert.equal(c2.header.id, c1.header.id, "--continue takes the latest session of this cwd");
  assert.match(JSON.stringify(fake.requests[first + 1].body.messages), /and then\?/);
  assert.equal(fake.requests[first + 1].body.model, "small-model", "the model change was stored");
  assert.equal(sessionFiles().length, 1);
  assert.equal(fake.remaining(), 0);
});

test("an auth error from the API: exit 1, an error event (-32014, class auth) then agent_end error", async () => {
  const acwd = realpathSync(tempDir(cleanup, "pith-json-cwd-"));
  fake.enqueue(authError());
  const r = await runPith(["--mode", "json", "hello"], { home, fake, cwd: acwd });
  assert.equal(r.code, 1, show(r));
  const { events } = checkLines(r.stdout);
  const end = events.at(-1);
  assert.equal(end.stopReason, "error");
  assert.equal(end.error.status, 401);
  const err = events.find((e) => e.type === "error");
  assert.ok(err, "an error event");
  assert.equal(err.code, -32014);
  assert.equal(err.data.class, "auth");
  assert.equal(err.data.retryable, false);
  assert.ok(events.indexOf(err) < events.length - 1, "before agent_end");
  assert.equal(events.filter((e) => e.type === "retry_start").length, 0, "an auth error is not retried");
  assert.equal(fake.remaining(), 0);
});

test("SIGTERM during the stream aborts the run: exit 1, agent_end aborted last", async (t) => {
  const acwd = realpathSync(tempDir(cleanup, "pith-json-cwd-"));
  fake.enqueue(hang({ reply: { content: [{ type: "text", text: "a reply that never ends", chunkSize: 4 }] }, afterFrames: 5 }));
  const d = new DaemonProcess(t, ["--mode", "json", "tell me"], { home, fake, cwd: acwd });
  let stdout = "";
  d.proc.stdout!.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  await poll(() => (stdout.includes('"type":"message_update"') ? true : undefined), "a message_update line");
  d.proc.kill("SIGTERM");
  const exit = await d.waitExit();
  await new Promise((r) => setImmediate(r));
  assert.equal(exit.code, 1, show({ code: exit.code, stdout, stderr: d.stderr }));
  const { events } = checkLines(stdout);
  assert.equal(events.at(-1).stopReason, "aborted");
  const reply = events.filter((e) => e.type === "message_end").at(-1);
  assert.equal(reply.message.stopReason, "aborted");
  await drainFake(fake);
});

test("bad usage exits 2 with nothing on stdout: no prompt, a blank prompt, --session with --continue, an unknown mode", async () => {
  const runs = await Promise.all([
    runPith(["--mode", "json"], { home, fake, cwd }),
    runPith(["--mode", "json", "   "], { home, fake, cwd }),
    runPith(["--mode", "json", "--session", "x.jsonl", "--continue", "hi"], { home, fake, cwd }),
    runPith(["--mode", "yaml", "hi"], { home, fake, cwd }),
  ]);
  for (const r of runs) {
    assert.equal(r.code, 2, show(r));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^pith: /);
    assert.ok(r.stderr.trimEnd().split("\n").length <= 12, show(r));
  }
  assert.match(runs[0].stderr, /a prompt is needed/);
  const missing = await runPith(["--mode", "json", "--session", join(home, "nope.jsonl"), "hi"], { home, fake, cwd });
  assert.equal(missing.code, 1, show(missing));
  assert.equal(missing.stdout, "");
  // a sentence, not a code
  assert.equal(missing.stderr, `pith: no such session file: ${join(home, "nope.jsonl")}\n`);
  assert.equal(fake.requests.filter((q) => q.body.messages?.some((m: Json) => JSON.stringify(m).includes('"hi"'))).length, 0, "no model call");
});
