// The offline demo shows compaction within its first task: an offline session (no key, no script)
// running the demo's "Tidy up the notes" in its scratch project compacts automatically mid-run
// (start, the summary streamed, the end with the summary, the meter dropping), and a compact asked
// for after that task has something before its cut. `-p` on the same notes prints the compaction's
// result line on stderr, as the web UI's marker reads.
import assert from "node:assert/strict";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEMO_FILES } from "../../src/llm/demo-script.js";
import { startRpcDaemon, type Ev } from "../support/daemon-client.js";
import "../support/fresh-dist.js"; // importing it builds dist/ when it is stale
import { tempDir } from "../support/tmp.js";
import { runAsUser } from "../support/user-run.js";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

test("offline, the demo's first task compacts mid-run; a compact after it works", { timeout: 60_000 }, async (t) => {
  const home = realpathSync(tempDir(t, "pith-democ-home-"));
  const d = startRpcDaemon(t, { home });
  await d.peer.initialize();
  // no cwd: offline, the session works in the demo's scratch project
  const s = await d.peer.request("createSession", {});
  const { events } = await d.peer.runPrompt(s.sessionId, "Tidy up the notes", 30_000);
  const types = events.map((e: Ev) => e.type);
  const start = types.indexOf("compaction_start");
  const end = types.indexOf("compaction_end");
  assert.ok(start >= 0 && end > start, `an automatic compaction in the run: ${types.filter((x) => x.startsWith("compaction")).join(", ")}`);
  assert.ok(start < types.lastIndexOf("tool_execution_end"), "mid-run, before the last tool call");
  assert.equal((events[start] as Json).reason, "threshold");
  const streamed = events.slice(start, end).filter((e: Ev) => e.type === "compaction_update" && typeof (e as Json).delta === "string");
  assert.ok(streamed.length > 1, "the summary streamed in pieces");
  const result = (events[end] as Json).result;
  assert.match(result.summary, /## Goal\n- Tidy up the notes/);
  assert.ok(result.tokensAfter < result.tokensBefore, `${result.tokensBefore} -> ${result.tokensAfter}`);
  const usage = events.filter((e: Ev) => e.type === "usage_update").map((e) => (e as Json).contextTokens as number);
  const before = (events[start] as Json).tokensBefore as number;
  assert.ok(usage.some((n) => n < before * 0.85), `the meter drops: ${before} then ${usage.join(", ")}`);
  const final = events.filter((e: Ev) => e.type === "message_end").at(-1) as Json;
  assert.match(final.message.content[0].text, /^Done: notes\.md now lists messages, compaction and branch summaries \(3 items\)\.$/);

  const manual = await d.peer.request("compact", { sessionId: s.sessionId });
  assert.ok(manual.tokensAfter < manual.tokensBefore, `manual: ${manual.tokensBefore} -> ${manual.tokensAfter}`);
});

test("-p: a compaction prints its result line on stderr", { timeout: 60_000 }, async (t) => {
  const cwd = realpathSync(tempDir(t, "pith-democ-cwd-"));
  for (const [name, text] of Object.entries(DEMO_FILES)) writeFileSync(join(cwd, name), text);
  const r = await runAsUser(["-p", "Tidy up the notes"], { cwd, home: realpathSync(tempDir(t, "pith-democ-home-")) });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^… compacting the context \(threshold, [\d,]+ tokens\)$/m);
  const line = /^✓ compacted: ([\d,]+) → ([\d,]+) tokens$/m.exec(r.stderr);
  assert.ok(line, r.stderr);
  assert.ok(Number(line[2].replace(/,/g, "")) < Number(line[1].replace(/,/g, "")));
  assert.equal(r.stdout, "Done: notes.md now lists messages, compaction and branch summaries (3 items).\n");
});
