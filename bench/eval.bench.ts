// Eval bench: what measuring a compaction costs beside the compaction itself. For each shipped
// case (two shapes of tool output, 60k-300k tokens), in this process against the fake eval models
// (test/support/fake-eval-models.ts, so the figures are pith's own work, not a model's):
//   - baseline: the case opened, compacted and closed through the session host, as a session's
//     `compact` does it;
//   - eval: the whole `pith eval` of that case (compacted, probed, the floor and the ceiling asked);
// as milliseconds and their ratio, and the tokens the probes send against the tokens the summary
// request sends (what a measurement costs with a real model, in its units). Then the whole
// offline flow (the scripted model over every case), which `pith eval` with no model runs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shippedCases, type CaseSet } from "../src/eval/case-set.js";
import { copyCase } from "../src/eval/case-session.js";
import { runEval } from "../src/eval/run-eval.js";
import { tokensOf } from "../src/eval/tally.js";
import { SessionHost } from "../src/host/session-host.js";
import { createLogger } from "../src/log/logger.js";
import { evalSettings, startFakeEvalModels } from "../test/support/fake-eval-models.js";
import { median, round, table } from "./util.js";

const RUNS = Number(process.env.EVAL_BENCH_RUNS ?? 3);
const log = createLogger("silent");

/** The case opened, compacted once and closed, through the operation layer: the work a session's compaction does. */
async function compactOnly(env: NodeJS.ProcessEnv, dir: string, set: CaseSet, name: string): Promise<number> {
  const c = set.cases.find((k) => k.name === name)!;
  const sessions = mkdtempSync(join(dir, "baseline-"));
  const host = new SessionHost({ sessionsDir: sessions, logger: log, env, withoutMcpServers: true });
  const copy = copyCase(c, join(sessions, `${name}.jsonl`), "all");
  const t0 = performance.now();
  const ref = { sessionFile: copy.file, cwd: mkdtempSync(join(dir, "cwd-")) };
  const session = await host.perform("openSession", ref, () => host.open(ref));
  await host.perform("setModel", { sessionId: session.id, model: "fake/keeper" }, (held) => session.setModel(held, "fake/keeper"));
  session.aside.recordLastRequest();
  await host.perform("compact", { sessionId: session.id }, (held) => session.compact(held));
  await host.perform("closeSession", { sessionId: session.id }, () => host.close(session.id));
  const ms = performance.now() - t0;
  await host.shutdown();
  return ms;
}

async function evalOnly(env: NodeJS.ProcessEnv, dir: string, set: CaseSet, name: string, model?: string) {
  const run = mkdtempSync(join(dir, "eval-"));
  const cases = { cases: set.cases.filter((k) => name === "*" || k.name === name), problems: [] };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const report = await runEval({ configurations: [{ name: "pith", model }], cases, cycles: 1, dir: run, log, signal: new AbortController().signal, env });
  const cpu = process.cpuUsage(cpu0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, report };
}

export async function runEvalBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pith-eval-bench-"));
  const casesDir = join(dir, "cases");
  mkdirSync(casesDir);
  const set = shippedCases(casesDir);
  const models = await startFakeEvalModels(set.cases.map((c) => c.truth));
  try {
    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(join(home, "settings.json"), JSON.stringify({ ...evalSettings(models.baseURL), model: "fake/keeper" }));
    const env = { ...process.env, PITH_HOME: home, PITH_DEMO_PACE_MS: "0" };
    const rows: (string | number)[][] = [["case", "shape", "tokens", "compact ms", "eval ms", "eval / compact", "probe tokens / summary tokens"]];
    const figures: Record<string, unknown>[] = [];
    for (const c of set.cases) {
      const base: number[] = [];
      const full: number[] = [];
      let ratio = 0;
      let tokens = 0;
      for (let i = 0; i < RUNS; i++) {
        base.push(await compactOnly(env, dir, set, c.name));
        const e = await evalOnly(env, dir, set, c.name);
        full.push(e.ms);
        const conf = e.report.configurations[0];
        tokens = conf.cases[0].compactions[0]?.tokensBefore ?? 0;
        ratio = (tokensOf(conf.cost.probes) + tokensOf(conf.cost.brackets)) / Math.max(1, tokensOf(conf.cost.compactions));
      }
      const [b, f] = [median(base), median(full)];
      rows.push([c.name, c.truth.shape, tokens, round(b), round(f), `${round(f / b, 2)}x`, `${round(ratio, 1)}x`]);
      figures.push({ case: c.name, shape: c.truth.shape, tokens, compactMs: round(b), evalMs: round(f), evalOverCompact: round(f / b, 2), probeOverSummaryTokens: round(ratio, 1) });
    }
    console.log(`eval of one case against compacting it, median of ${RUNS}, fake models in this process:`);
    console.log(table(rows));
    const offline = await evalOnly({ ...process.env, PITH_HOME: join(dir, "offline-home"), PITH_DEMO_PACE_MS: "0" }, dir, set, "*", "scripted");
    console.log(`\noffline (the scripted model), every case: ${round(offline.ms / 1000, 2)} s wall, ${round(offline.cpuMs / 1000, 2)} s CPU`);
    console.log(JSON.stringify({ cases: figures, offline: { ms: round(offline.ms), cpuMs: round(offline.cpuMs) } }));
  } finally {
    await models.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
