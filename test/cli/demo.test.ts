// The offline demo as a new user meets it, through the real bin/pith with no key: in an empty
// directory `--mode json "Tidy up the notes"` works without a failed tool call, at a pace a
// person can watch (its text arrives in many small pieces over seconds); a steer changes the next
// step; a failed tool call is reported as a failure, never as the change made; "hi" writes
// nothing; the offline notice says how to use a real model.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startRpcDaemon, type Ev } from "../support/daemon-client.js";
import "../support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { tempDir } from "../support/tmp.js";
import { BIN, runAsUser, userEnv } from "../support/user-run.js";

type T = Parameters<typeof tempDir>[0];
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function places(t: T): { cwd: string; home: string } {
  return { cwd: realpathSync(tempDir(t, "pith-demo-cwd-")), home: realpathSync(tempDir(t, "pith-demo-home-")) };
}

/** Runs bin/pith and stamps each stdout line with the time it arrived. */
function timedLines(args: string[], p: { cwd: string; home: string }, env: Record<string, string>): Promise<{ code: number | null; lines: { at: number; value: Json }[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd: p.cwd, env: userEnv(p.home, env), stdio: ["ignore", "pipe", "pipe"] });
    const lines: { at: number; value: Json }[] = [];
    let partial = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const at = performance.now();
      const parts = (partial + d).split("\n");
      partial = parts.pop()!;
      for (const l of parts) lines.push({ at, value: JSON.parse(l) });
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, lines, stderr });
    });
  });
}

const textDeltas = (lines: { at: number; value: Json }[]) => lines.filter((l) => l.value.type === "message_update" && l.value.delta?.type === "text" && l.value.delta.text);

test("with no key, in an empty directory: the demo completes without a failed tool call, streaming at a person's pace", { timeout: 90_000 }, async (t) => {
  const p = places(t);
  // PITH_DEMO_PACE_MS "" (unset): the real pace
  const r = await timedLines(["--mode", "json", "Tidy up the notes"], p, { PITH_DEMO_PACE_MS: "" });
  assert.equal(r.code, 0, r.stderr);
  const values = r.lines.map((l) => l.value);
  assert.equal(values[0].type, "session");
  assert.equal(values[1].type, "notice", "the offline notice after the header");
  assert.match(values[1].message, /offline demo/);
  assert.match(values[1].message, /ANTHROPIC_API_KEY or OPENAI_API_KEY/);
  const result = values.at(-1);
  assert.equal(result.type, "result");
  assert.equal(result.stopReason, "stop");
  assert.match(result.text, /^Done: notes\.md now lists messages, compaction and branch summaries \(3 items\)\.$/);
  const ends = values.filter((v) => v.type === "tool_execution_end");
  assert.ok(ends.length >= 3, `tools ran: ${ends.map((e) => e.toolName).join(", ")}`);
  assert.deepEqual(ends.filter((e) => e.isError).map((e) => `${e.toolName}: ${JSON.stringify(e.result.content)}`), [], "no failed tool call");
  assert.deepEqual(readdirSync(p.cwd), ["notes.md"], "no filler files");
  // the pace: a property of the output (a too-fast demo fails it; a slow machine cannot)
  const deltas = textDeltas(r.lines);
  const start = r.lines.find((l) => l.value.type === "agent_start")!.at;
  const end = r.lines.find((l) => l.value.type === "agent_end")!.at;
  t.diagnostic(`${deltas.length} text deltas over ${(deltas.at(-1)!.at - deltas[0].at).toFixed(0)} ms; the run: ${(end - start).toFixed(0)} ms`);
  assert.ok(deltas.length >= 20, `${deltas.length} text deltas`);
  assert.ok(deltas.at(-1)!.at - deltas[0].at >= 2000, "the text arrives over at least 2 s");
  assert.ok(end - start >= 3000, "the run lasts at least 3 s");
  assert.ok(deltas.every((d) => d.value.delta.text.length <= 8), "small pieces");
});

test("a failed tool call: the reply says it failed and does not claim the change", async (t) => {
  const p = places(t);
  // readonly: the model's write is refused
  const r = await runAsUser(["--mode", "json", "--permission-mode", "readonly", "Tidy up the notes"], { ...p });
  const values = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Json);
  const failed = values.filter((v) => v.type === "tool_execution_end" && v.isError);
  assert.equal(failed.length, 1, r.stdout.slice(-2000));
  const result = values.at(-1);
  assert.equal(result.type, "result");
  assert.match(result.text, /\b(failed|could not|unable|error)\b/i);
  assert.doesNotMatch(result.text, /now lists|Done/);
  assert.match(result.text, /notes\.md was not changed/);
  assert.deepEqual(readdirSync(p.cwd), []);
});

test('"hi" writes no file; -p prints only the reply on stdout, the notice on stderr', async (t) => {
  const p = places(t);
  const r = await runAsUser(["-p", "hi"], p);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Hello! I'm pith's offline demo model\. To use a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
  assert.equal(r.stdout.trimEnd().split("\n").length, 1, "only the reply");
  assert.match(r.stderr, /offline demo model/);
  assert.deepEqual(readdirSync(p.cwd), []);
});

test("-p: the final reply on stdout, one line per tool call on stderr", async (t) => {
  const p = places(t);
  const r = await runAsUser(["-p", "Tidy up the notes"], p);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "Done: notes.md now lists messages, compaction and branch summaries (3 items).\n");
  const toolLines = r.stderr.split("\n").filter((l) => /^[✓✗] /.test(l));
  assert.deepEqual(toolLines, ["✓ ls .", "✓ write notes.md", "✓ bash wc -l notes.md && grep -c '^- ' notes.md"]);
});

test("a steer changes the next step: the model answers it and does what it asked", { timeout: 60_000 }, async (t) => {
  const p = places(t);
  const d = startRpcDaemon(t, { home: p.home, cwd: p.cwd, env: { PITH_DEMO_PACE_MS: "20" } });
  await d.peer.initialize();
  const s = await d.peer.request("createSession", { cwd: p.cwd });
  const from = d.peer.mark();
  const { runId } = await d.peer.request("prompt", { sessionId: s.sessionId, text: "Tidy up the notes" });
  await d.peer.waitEvent((e) => e.type === "tool_execution_start", "the first tool call", from);
  const steer = "Also note that steering works";
  await d.peer.request("prompt", { sessionId: s.sessionId, text: steer, delivery: "steer" });
  const events = await d.peer.runEvents(s.sessionId, runId, from, 30_000);
  const messages = events.filter((e: Ev) => e.type === "message_end").map((e) => (e as Json).message);
  const at = messages.findIndex((m) => m.role === "user" && JSON.stringify(m.content).includes(steer));
  assert.ok(at > 0, "the steer is in the run");
  const next = messages.slice(at + 1).find((m) => m.role === "assistant");
  const text = next.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join("");
  assert.match(text, new RegExp(`^You asked: "${steer}"\\. Changing course`));
  const call = next.content.find((b: Json) => b.type === "toolCall");
  assert.ok(call && JSON.stringify(call.arguments).includes(`- ${steer}`), "its tool call does what the steer asked");
  assert.match(readFileSync(join(p.cwd, "notes.md"), "utf8"), new RegExp(`\\n- ${steer}\\n$`));
  const final = messages.at(-1);
  assert.match(final.content.map((b: Json) => b.text ?? "").join(""), new RegExp(`As you asked, it also has "${steer}"`));
});
