// `pith eval` end to end: the real binary over pith's own cases, against fake models behind a fake
// OpenAI-compatible server (test/support/fake-eval-models.ts): a keeper whose summaries keep the
// planted facts and a dropper whose summaries keep none. The eval must rank them apart on every
// deterministic dimension, with the floor below and the ceiling above both; the judge grades
// blind; the offline model runs the whole flow and says its scores mean nothing; bad input is
// named; Ctrl-C ends with what was measured.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { generateCases } from "../../src/eval/cases/generate.js";
import type { EvalReport } from "../../src/eval/report.js";
import { daemonEnv, runPith, writeSettings } from "../support/daemon-client.js";
import { startFakeAnthropic, toolUseReply } from "../support/fake-anthropic.js";
import { startFakeOllama } from "../support/fake-ollama.js";
import { evalSettings, startFakeEvalModels } from "../support/fake-eval-models.js";
import { BIN } from "../support/user-run.js";
import { tempDir } from "../support/tmp.js";

const CASES = generateCases();
const truths = CASES.map((c) => c.truth);
const DIMENSIONS = ["recall", "artifacts", "continuation", "decisions", "overall"] as const;

function readReport(file: string): EvalReport {
  return JSON.parse(readFileSync(file, "utf8")) as EvalReport;
}

const show = (r: { stdout: string; stderr: string }) => `stdout:\n${r.stdout}\nstderr:\n${r.stderr.slice(-3000)}`;

test("the eval ranks a summarizer that keeps the planted facts above one that drops them, on every dimension, between the floor and the ceiling", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  const out = join(home, "report.json");
  const r = await runPith(["eval", "--compare", "summarizer=fake/keeper,fake/dropper", "--json", out], { home, cwd: home, timeoutMs: 240_000 });
  assert.equal(r.code, 0, show(r));
  const report = readReport(out);
  assert.equal(report.offline, false);
  assert.equal(report.interrupted, false);
  const [keeper, dropper] = report.configurations;
  assert.equal(keeper.name, "summarizer=fake/keeper");
  assert.equal(dropper.summarizer, "fake/dropper");
  assert.equal(keeper.cases.length, CASES.length);
  assert.deepEqual(keeper.cases.filter((c) => c.bad).map((c) => `${c.case}: ${c.bad}`), [], "no bad case");
  for (const d of DIMENSIONS) {
    const [k, dr, floor, ceiling] = [keeper.dimensions[d].mean, dropper.dimensions[d].mean, keeper.floor[d].mean, keeper.ceiling[d].mean];
    assert.ok(k > dr, `${d}: the keeper (${k.toFixed(3)}) above the dropper (${dr.toFixed(3)})\n${r.stdout}`);
    assert.ok(floor <= dr, `${d}: the floor (${floor.toFixed(3)}) at or below the dropper (${dr.toFixed(3)})`);
    assert.ok(ceiling >= k, `${d}: the ceiling (${ceiling.toFixed(3)}) at or above the keeper (${k.toFixed(3)})`);
  }
  // floor and ceiling are the same model's: asked once, shared by both configurations
  assert.deepEqual(dropper.floor, keeper.floor);
  // every answer is in the report, with what it was scored against
  const first = CASES.find((c) => c.name === keeper.cases[0].case);
  const probe = keeper.cases[0].probes.find((p) => p.dimension === "recall");
  assert.ok(first && probe && probe.question.includes(first.truth.facts[0].question) && typeof probe.answer === "string" && probe.score !== null);
  assert.deepEqual(probe.expected, { dimension: "recall", answer: first.truth.facts[0].answer });
  assert.ok(keeper.cost.compactions.requests >= CASES.length && keeper.cost.compactions.input > 0 && keeper.cost.probes.cost > 0, JSON.stringify(keeper.cost));
  // the table: both configurations side by side, floor first and ceiling last
  const header = r.stdout.split("\n").find((l) => l.startsWith("dimension")) ?? "";
  assert.match(header, /floor\s+summarizer=fake\/keeper\s+summarizer=fake\/dropper\s+ceiling/, r.stdout);
  assert.match(r.stdout, /^recall\s+\d\.\d\d ± \d\.\d\d/m);
});

test("the judge grades free-form answers 0-5, blind to which configuration answered, and two cycles compact twice", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  const out = join(home, "report.json");
  const one = CASES[0].name;
  const r = await runPith(["eval", "--case", one, "--cycles", "2", "--judge", "fake/judge", "--compare", "summarizer=fake/keeper,fake/dropper", "--json", out], { home, cwd: home, timeoutMs: 120_000 });
  assert.equal(r.code, 0, show(r));
  const [keeper, dropper] = readReport(out).configurations;
  assert.equal(keeper.cases[0].compactions.length, 2);
  assert.ok(keeper.judged && dropper.judged, "judged scores for both");
  assert.ok(keeper.judged.overall.mean > dropper.judged.overall.mean, `keeper ${keeper.judged.overall.mean} > dropper ${dropper.judged.overall.mean}`);
  for (const p of keeper.cases[0].probes.filter((x) => x.dimension === "judged")) assert.ok(p.judgment && p.score! >= 0 && p.score! <= 5, JSON.stringify(p));
  const judged = models.requests.filter((q) => String((q.body as { model?: string }).model) === "judge");
  assert.ok(judged.length > 0);
  for (const q of judged) {
    const text = JSON.stringify(q.body);
    for (const leak of ["keeper", "dropper", "summarizer=", "pith eval"]) assert.ok(!text.includes(leak), `the judge saw "${leak}"`);
  }
  assert.match(r.stdout, /judged overall/);
});

test("a window smaller than the case: replayed, it compacts at the threshold as a session would, and what the notes keep survives every compaction", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  const settings = evalSettings(models.baseURL);
  writeSettings(home, { ...settings, models: settings.models.map((m) => ({ ...m, contextWindow: 32_000 })), model: "fake/keeper" });
  const out = join(home, "report.json");
  const smallest = [...CASES].sort((a, b) => a.session.length - b.session.length)[0].name;
  const r = await runPith(["eval", "--case", smallest, "--compare", "summarizer=fake/keeper,fake/dropper", "--json", out], { home, cwd: home, timeoutMs: 60_000 });
  assert.equal(r.code, 0, show(r));
  const [keeper, dropper] = readReport(out).configurations;
  const [k] = keeper.cases;
  assert.ok(k.compactions.filter((c) => c.reason === "threshold").length >= 3, JSON.stringify(k.compactions));
  for (const c of k.compactions) assert.ok(c.tokensBefore > c.tokensAfter && c.tokensBefore <= 32_000 + 8_000, JSON.stringify(c));
  assert.ok(k.ceiling && "skipped" in k.ceiling, "the whole case does not fit: no ceiling");
  assert.equal(keeper.dimensions.recall.mean, 1, "the keeper's notes carried every fact through every compaction");
  assert.ok(dropper.dimensions.overall.mean < keeper.dimensions.overall.mean);
});

test("--compare framing=conversation,transcript asks the same summarizer both ways, side by side", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  const out = join(home, "report.json");
  const r = await runPith(["eval", "--case", CASES[0].name, "--model", "fake/keeper", "--compare", "framing=conversation,transcript", "--json", out], { home, cwd: home, timeoutMs: 60_000 });
  assert.equal(r.code, 0, show(r));
  // said before the first request: about what it will send, priced at the named model's input price
  const planned = /about ([\d.]+)(k|M) input tokens to send \(≈ \$([\d.]+) at the input price/.exec(r.stderr);
  assert.ok(planned, r.stderr);
  const report = readReport(out);
  const sent = report.configurations.reduce((a, c) => a + c.cost.compactions.input + c.cost.probes.input + c.cost.brackets.input + c.cost.judge.input, 0);
  const said = Number(planned[1]) * (planned[2] === "M" ? 1e6 : 1e3);
  assert.ok(said > sent / 2 && said < sent * 2, `planned ${said}, sent ${sent}`);
  const [conversation, transcript] = report.configurations;
  assert.deepEqual([conversation.framing, transcript.framing], ["conversation", "transcript"]);
  const bodies = models.requests.map((q) => JSON.stringify(q.body));
  assert.ok(bodies.some((b) => b.includes("The conversation is about to be compacted")), "a summary asked as the conversation");
  assert.ok(bodies.some((b) => b.includes("<transcript>")), "a summary asked over a transcript");
  assert.equal(conversation.dimensions.overall.mean, 1);
  assert.equal(transcript.dimensions.overall.mean, 1);
});

test("--baseline shows an earlier run's figures beside this one's; a file that is not a report is refused", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  const before = join(home, "before.json");
  const one = CASES[0].name;
  assert.equal((await runPith(["eval", "--case", one, "--json", before], { home, cwd: home, timeoutMs: 60_000 })).code, 0);
  // the change measured: a summarizer that keeps nothing, against the run before it
  const r = await runPith(["eval", "--case", one, "--summarizer", "fake/dropper", "--baseline", before], { home, cwd: home, timeoutMs: 60_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^dimension\s+baseline pith\s+floor\s+pith\s+ceiling$/m);
  assert.match(r.stdout, /^overall\s+1\.00 ± 0\.00\s+\d\.\d\d ± 0\.00\s+0\.[0-4]\d ± 0\.00\s+1\.00 ± 0\.00$/m, r.stdout);
  assert.match(r.stdout, new RegExp(`baseline pith: from ${before.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}, model fake/keeper`));
  writeFileSync(join(home, "other.json"), JSON.stringify({ version: 1, configurations: [] }));
  symlinkSync(before, join(home, "link.json"));
  for (const [file, message] of [
    ["missing.json", /--baseline: no such file/],
    ["other.json", /is not a pith eval report/],
    ["link.json", /is a symbolic link/],
    ["settings.json", /is not a pith eval report/],
  ] as const) {
    const bad = await runPith(["eval", "--case", one, "--baseline", join(home, file)], { home, cwd: home });
    assert.equal(bad.code, 2, `${file}: ${show(bad)}`);
    assert.match(bad.stderr, message, file);
  }
});

test("offline, the scripted model runs the whole flow over every shipped case, and says its scores mean nothing", async (t) => {
  const home = tempDir(t);
  const out = join(home, "report.json");
  const r = await runPith(["eval", "--model", "scripted", "--json", out], { home, cwd: home, timeoutMs: 240_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /OFFLINE: .*say nothing about compaction/);
  const report = readReport(out);
  assert.equal(report.offline, true);
  assert.equal(report.configurations[0].cases.length, CASES.length);
  // the demo model's 10k window: replayed, every case passes the threshold again and again, as a session on it would
  for (const c of report.configurations[0].cases) {
    assert.ok(c.probes.length > 0 && !c.bad, `${c.case}: ${c.bad}`);
    assert.ok(c.compactions.filter((k) => k.reason === "threshold").length > 5, `${c.case}: ${c.compactions.length} compactions`);
    assert.ok(c.contextTokens < 10_000, `${c.case}: questioned at ${c.contextTokens} tokens, within the window`);
  }
  assert.match(r.stdout, /\d+ compaction\(s\) over 8 case\(s\): \d+ past the threshold as the cases were replayed, 0 at the midpoint, \d+ at the end/);
});

test("over Anthropic's API too: a model that cannot answer even from the whole session makes a bad case, and nothing measured exits 1", async (t) => {
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  // every reply says it cannot tell and calls a tool to look again (never run)
  fake.setDefault(toolUseReply("read", { path: "PLAN.md" }, { text: "I could not say." }));
  const home = tempDir(t);
  const out = join(home, "report.json");
  const smallest = [...CASES].sort((a, b) => a.session.length - b.session.length)[0].name;
  const r = await runPith(["eval", "--case", smallest, "--json", out], { home, cwd: home, fake, timeoutMs: 60_000 });
  assert.equal(r.code, 1, show(r));
  const report = readReport(out);
  assert.equal(report.offline, false);
  const [c] = report.configurations[0].cases;
  assert.equal(report.configurations[0].model, "anthropic/claude-sonnet-4-5", "the case's own model, which this daemon can use");
  assert.match(c.bad ?? "", /its ceiling \(no compaction\) scores 0\.\d\d overall/);
  assert.ok(c.probes.every((p) => p.answer === "I could not say." && p.toolCalls?.[0] === "read"), JSON.stringify(c.probes[0]));
  assert.match(r.stdout, /\d+ probe answer\(s\) called a tool instead of answering/);
  // Anthropic caches: the summary is asked as the conversation, the case's last request sent again
  assert.ok(fake.requests.some((q) => JSON.stringify(q.body).includes("The conversation is about to be compacted")), "the summary was asked of the model, framed as the conversation");
  assert.equal(report.configurations[0].framing, "conversation");
  assert.ok(report.configurations[0].cost.probes.input > 0);
  assert.match(r.stdout, /bad cases \(not scored\):/);
});

test("over Ollama too: its discovered window sets the threshold the case is replayed against", async (t) => {
  const ollama = await startFakeOllama({ models: [{ name: "qwen3:8b", contextLength: 40_960, capabilities: ["completion", "tools"] }] });
  t.after(() => ollama.close());
  const home = tempDir(t);
  writeSettings(home, { providers: { box: { api: "ollama", baseUrl: ollama.url } }, model: "box/qwen3:8b" });
  const out = join(home, "report.json");
  const smallest = [...CASES].sort((a, b) => a.session.length - b.session.length)[0].name;
  const r = await runPith(["eval", "--case", smallest, "--json", out], { home, cwd: home, timeoutMs: 60_000 });
  const report = readReport(out);
  const conf = report.configurations[0];
  assert.equal(conf.model, "box/qwen3:8b", show(r));
  assert.equal(report.offline, false);
  const [c] = conf.cases;
  assert.ok(c.compactions.filter((k) => k.reason === "threshold").length >= 2, JSON.stringify(c.compactions));
  assert.ok(c.ceiling && "skipped" in c.ceiling);
  assert.ok(ollama.chatRequests.length > c.compactions.length && ollama.chatRequests.every((q) => q.body.options.num_ctx === 40_960));
});

test("a folder of cases: bad entries are left out with the reason, a case whose ceiling fails is reported and not scored", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  const dir = join(home, "cases");
  mkdirSync(dir);
  const good = CASES[0];
  writeFileSync(join(dir, "good.jsonl"), good.session);
  writeFileSync(join(dir, "good.truth.json"), JSON.stringify(good.truth));
  // a truth that asks for a token the session never states: even the whole session cannot answer it
  const impossible = { ...good.truth, name: "impossible", facts: good.truth.facts.map((f) => ({ ...f, answer: `never-stated-${f.id}` })), decisions: good.truth.decisions.map((d) => ({ ...d, chosen: "never-chosen" })), openTasks: [{ task: "x", keywords: ["never-named-task"] }] };
  writeFileSync(join(dir, "impossible.jsonl"), good.session);
  writeFileSync(join(dir, "impossible.truth.json"), JSON.stringify(impossible));
  writeFileSync(join(dir, "notjson.jsonl"), good.session);
  writeFileSync(join(dir, "notjson.truth.json"), "{ not json");
  writeFileSync(join(dir, "wrong.jsonl"), good.session);
  writeFileSync(join(dir, "wrong.truth.json"), JSON.stringify({ version: 1, name: "wrong" }));
  writeFileSync(join(dir, "linked.truth.json.target"), JSON.stringify({ ...good.truth, name: "linked" }));
  symlinkSync(join(dir, "linked.truth.json.target"), join(dir, "linked.truth.json"));
  writeFileSync(join(dir, "linked.jsonl"), good.session);
  assert.equal(spawnSync("mkfifo", [join(dir, "fifo.jsonl")]).status, 0);
  writeFileSync(join(dir, "fifo.truth.json"), JSON.stringify({ ...good.truth, name: "fifo" }));
  writeFileSync(join(dir, "lonely.jsonl"), good.session);
  const out = join(home, "report.json");
  const r = await runPith(["eval", "--cases", dir, "--json", out], { home, cwd: home, timeoutMs: 120_000 });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /left out notjson: notjson\.truth\.json is not JSON/);
  assert.match(r.stderr, /left out wrong: wrong\.truth\.json is not a ground truth/);
  assert.match(r.stderr, /left out linked: .*linked\.truth\.json is a symbolic link/);
  assert.match(r.stderr, /left out fifo: .*fifo\.jsonl is not a regular file/);
  assert.match(r.stderr, /left out lonely: .*lonely\.jsonl has no lonely\.truth\.json beside it/);
  const report = readReport(out);
  const cases = report.configurations[0].cases;
  assert.deepEqual(cases.map((c) => c.case).sort(), ["good", "impossible"]);
  // a case is never written to, and the user's own store gets nothing: the runs work on copies
  assert.equal(readFileSync(join(dir, "good.jsonl"), "utf8"), good.session);
  assert.ok(!existsSync(join(home, "sessions")) || readdirSync(join(home, "sessions")).length === 0, "nothing in $PITH_HOME/sessions");
  const bad = cases.find((c) => c.case === "impossible");
  assert.match(bad?.bad ?? "", /its ceiling \(no compaction\) scores 0\.\d\d overall/);
  assert.equal(report.configurations[0].dimensions.overall.n, 1, "only the good case is scored");
  assert.match(r.stdout, /bad cases \(not scored\):\n {2}impossible: /);
});

test("usage errors exit 2 with one line; an unknown model is refused before anything runs", async (t) => {
  const home = tempDir(t);
  for (const [args, message] of [
    [["--cycles", "3"], /bad --cycles: 3 \(1 or 2\)/],
    [["--framing", "poem"], /bad --framing: poem/],
    [["--compare", "framing=conversation"], /needs two or more values/],
    [["--compare", "temperature=1,2"], /bad --compare: temperature=1,2/],
    [["--compare", "framing=conversation,poem"], /framing takes conversation and transcript/],
    [["--case", "no-such-case"], /no case no-such-case \(the cases: /],
    [["--json"], /--json needs a value/],
    [["--cases", join(home, "missing")], /no such folder/],
  ] as const) {
    const r = await runPith(["eval", ...args], { home, cwd: home });
    assert.equal(r.code, 2, `${args.join(" ")}: ${show(r)}`);
    assert.match(r.stderr, message, args.join(" "));
  }
  const r = await runPith(["eval", "--model", "nosuch/model", "--case", CASES[0].name], { home, cwd: home });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /nosuch/);
});

test("Ctrl-C stops the eval at once, prints what was measured, writes the report and exits 130", async (t) => {
  const models = await startFakeEvalModels(truths);
  t.after(() => models.close());
  const home = tempDir(t);
  writeSettings(home, { ...evalSettings(models.baseURL), model: "fake/keeper" });
  // the first case is measured; the second's summary never comes
  const out = join(home, "report.json");
  const [one, two] = CASES.map((c) => c.name).sort();
  const runDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith("pith-eval-")).sort();
  const before = runDirs();
  const child = spawn(BIN, ["eval", "--case", one, "--case", two, "--json", out], { cwd: home, env: daemonEnv({ home }), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  t.after(() => child.kill("SIGKILL"));
  const deadline = Date.now() + 60_000;
  while (!stderr.includes(`[2/2] ${two}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  models.server.enqueue({ kind: "hang", beforeHeaders: true });
  const asked = models.requests.length;
  while (models.requests.length === asked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const sent = Date.now();
  child.kill("SIGINT");
  const code = await exited;
  assert.ok(Date.now() - sent < 5_000, `exited ${Date.now() - sent} ms after SIGINT`);
  assert.equal(code, 130, `stdout:\n${stdout}\nstderr:\n${stderr}`);
  assert.match(stdout, /INTERRUPTED: what was measured before Ctrl-C/);
  assert.ok(existsSync(out));
  const report = readReport(out);
  assert.equal(report.interrupted, true);
  assert.deepEqual(report.configurations[0].cases.map((c) => c.case), [one], "the first case, measured");
  assert.deepEqual(runDirs(), before, "the run's folder (its copies, its sessions) removed");
});
