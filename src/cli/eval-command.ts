// `pith eval`: the configurations the flags describe, the cases, the run with its progress on
// stderr, then the table on stdout and the JSON report where --json says. Ctrl-C aborts what is
// under way and ends with what was measured (exit 130); a second Ctrl-C exits at once.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { writeFileAtomic } from "../session/atomic-write.js";
import { loadCaseFolder, shippedCases, type CaseSet } from "../eval/case-set.js";
import type { Configuration, EvalReport } from "../eval/report.js";
import { readBaseline } from "../eval/baseline.js";
import { runEval } from "../eval/run-eval.js";
import { formatReport, tokens } from "../eval/table.js";
import { printError } from "./error-text.js";
import { clearStatus, printErr, printOut, printStatus } from "./terminal-out.js";

export interface EvalCommandOptions {
  log: Logger;
  model?: string;
  summarizer?: string;
  judge?: string;
  cycles?: string;
  framing?: string;
  cases?: string;
  only: string[];
  compare?: string;
  json?: string;
  /** an earlier run's --json report, shown beside this one */
  baseline?: string;
}

const FRAMINGS = ["conversation", "transcript"] as const;
type Framing = (typeof FRAMINGS)[number];
const isFraming = (v: string): v is Framing => (FRAMINGS as readonly string[]).includes(v);

/** The configurations the flags describe, or a usage error. */
export function configurationsOf(o: Pick<EvalCommandOptions, "model" | "summarizer" | "framing" | "compare">): Configuration[] | string {
  if (o.framing !== undefined && !isFraming(o.framing)) return `bad --framing: ${o.framing} (conversation or transcript)`;
  const base: Configuration = { name: "pith", model: o.model, summarizer: o.summarizer, framing: o.framing as Framing | undefined };
  if (o.compare === undefined) return [base];
  const m = /^(framing|summarizer|model)=(.+)$/.exec(o.compare);
  if (!m) return `bad --compare: ${o.compare} (framing=A,B, summarizer=A,B or model=A,B)`;
  const key = m[1] as "framing" | "summarizer" | "model";
  const values = m[2].split(",").map((v) => v.trim());
  if (values.length < 2 || values.some((v) => v === "")) return `--compare ${key}= needs two or more values, separated by commas`;
  if (new Set(values).size !== values.length) return `--compare ${key}= names a value twice`;
  if (key === "framing" && !values.every(isFraming)) return `bad --compare: framing takes conversation and transcript`;
  if (o[key] !== undefined) return `--${key} and --compare ${key}=... cannot be used together`;
  return values.map((v) => ({ ...base, name: `${key}=${v}`, [key]: v }));
}

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** The progress line: rewritten in place on a terminal, one line per case and configuration elsewhere. */
function progressPrinter(started: number) {
  const tty = process.stderr.isTTY === true;
  let last = "";
  let shown = false;
  return {
    update(p: { case: string; index: number; of: number; configuration: string; step: string; tokens: number }) {
      const where = `[${p.index}/${p.of}] ${p.case} · ${p.configuration}`;
      if (tty) {
        const line = `${where}: ${p.step} · ${tokens(p.tokens)} tokens · ${elapsed(Date.now() - started)}`;
        printStatus(line);
        shown = true;
      } else if (where !== last) {
        printErr(`${where} (${tokens(p.tokens)} tokens so far, ${elapsed(Date.now() - started)})\n`);
      }
      last = where;
    },
    done() {
      if (tty && shown) clearStatus();
    },
  };
}

function casesOf(o: EvalCommandOptions, dir: string): CaseSet | string {
  let set: CaseSet;
  try {
    set = o.cases ? loadCaseFolder(o.cases) : shippedCases(dir);
  } catch (err) {
    return `cannot read the cases: ${(err as Error).message}`;
  }
  if (o.only.length === 0) return set;
  const names = new Set(set.cases.map((c) => c.name));
  const unknown = o.only.filter((n) => !names.has(n));
  if (unknown.length > 0) return `no case ${unknown.join(", ")} (the cases: ${[...names].join(", ") || "none"})`;
  return { ...set, cases: set.cases.filter((c) => o.only.includes(c.name)) };
}

export async function runEvalCommand(o: EvalCommandOptions): Promise<number> {
  const configurations = configurationsOf(o);
  if (typeof configurations === "string") return usage(configurations);
  if (o.cycles !== undefined && o.cycles !== "1" && o.cycles !== "2") return usage(`bad --cycles: ${o.cycles} (1 or 2)`);
  if (o.json === "") return usage("--json needs a file name");
  const baseline = o.baseline === undefined ? undefined : readBaseline(o.baseline);
  if (typeof baseline === "string") return usage(baseline);
  const cycles = o.cycles === "2" ? 2 : 1;
  const dir = mkdtempSync(join(tmpdir(), "pith-eval-"));
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    printErr("\npith eval: stopping (Ctrl-C again to quit at once); what was measured so far follows\n");
    controller.abort(new Error("interrupted"));
  };
  process.on("SIGINT", onSigint);
  const started = Date.now();
  const progress = progressPrinter(started);
  try {
    const casesDir = join(dir, "cases");
    mkdirSync(casesDir);
    const cases = casesOf(o, casesDir);
    if (typeof cases === "string") return usage(cases);
    for (const p of cases.problems) printErr(`pith eval: left out ${p.case}: ${p.problem}\n`);
    if (cases.cases.length === 0) {
      printErr(`pith eval: no case to run${o.cases ? ` in ${o.cases}` : ""}\n`);
      return 1;
    }
    let report: EvalReport;
    try {
      // the demo model streams at a reading pace for people to watch; nobody watches an eval
      const env = { ...process.env, PITH_DEMO_PACE_MS: "0" };
      const onPlan = ({ tokens: n, usd }: { tokens: number; usd: number }) =>
        printErr(`pith eval: ${cases.cases.length} case(s) × ${configurations.length} configuration(s): about ${tokens(n)} input tokens to send${usd > 0 ? ` (≈ $${usd.toFixed(2)} at the input price, less with prompt caching)` : ""}; Ctrl-C stops with what was measured\n`);
      report = await runEval({ configurations, cases, cycles, judge: o.judge, dir, log: o.log, signal: controller.signal, env, onProgress: progress.update, onPlan });
    } finally {
      progress.done();
    }
    if (baseline) report = { ...report, baseline: { file: baseline.file, name: baseline.name } };
    printOut(formatReport(report, baseline));
    if (o.json) {
      writeFileAtomic(o.json, JSON.stringify(report, null, 2) + "\n");
      printErr(`pith eval: the report is in ${o.json} (${elapsed(Date.now() - started)})\n`);
    }
    if (report.interrupted) return 130;
    const measured = report.configurations.some((c) => c.cases.some((k) => !k.bad));
    return measured ? 0 : 1;
  } catch (err) {
    printError(err);
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
    rmSync(dir, { recursive: true, force: true });
  }
}

function usage(message: string): number {
  printErr(`pith: ${message}\nRun pith eval --help for its options.\n`);
  return 2;
}
