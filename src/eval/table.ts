// The eval's report as a terminal reads it: one row per dimension, the floor and the ceiling
// beside each configuration (shared when every configuration answers with the same model), the
// judge's grades, the cost, and the cases that were not scored.
import { JUDGED } from "./judge.js";
import { DIMENSIONS } from "./probes.js";
import type { CaseReport, ConfigurationReport, EvalReport, Spread } from "./report.js";
import { spread } from "./report.js";
import type { Tally } from "./tally.js";
import type { Baseline } from "./baseline.js";

const cell = (s: Spread | undefined, digits = 2) => (!s || s.n === 0 ? "—" : `${s.mean.toFixed(digits)} ± ${s.sd.toFixed(digits)}`);

/** A token count as the table and the progress line say it: 812, 12.3k, 1.25M. */
export function tokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

function costLine(label: string, t: Tally, what: string): string {
  return `  ${label.padEnd(12)} ${String(t.requests).padStart(4)} ${what.padEnd(11)} ${tokens(t.input).padStart(8)} in  ${tokens(t.output).padStart(7)} out  ${tokens(t.cacheRead).padStart(7)} cached  $${t.cost.toFixed(4)}`;
}

function judgedOf(cases: readonly CaseReport[], side: "floor" | "ceiling", key: string): Spread {
  return spread(
    cases.flatMap((c) => {
      if (c.bad) return [];
      const s = c[side];
      const j = s && !("skipped" in s) ? s.judged : undefined;
      return j ? [(j as Record<string, number>)[key]] : [];
    }),
  );
}

function rows(report: EvalReport, baseline: Baseline | undefined): string[][] {
  const configs = report.configurations;
  const shared = new Set(configs.map((c) => c.model)).size === 1;
  const head = ["dimension", ...(baseline ? [`baseline ${baseline.name}`] : []), ...(shared ? ["floor"] : []), ...configs.flatMap((c) => (shared ? [c.name] : [`${c.name} floor`, c.name, `${c.name} ceiling`])), ...(shared ? ["ceiling"] : [])];
  const line = (label: string, before: string, pick: (c: ConfigurationReport, side: "floor" | "result" | "ceiling") => string) => [
    label,
    ...(baseline ? [before] : []),
    ...(shared ? [pick(configs[0], "floor")] : []),
    ...configs.flatMap((c) => (shared ? [pick(c, "result")] : [pick(c, "floor"), pick(c, "result"), pick(c, "ceiling")])),
    ...(shared ? [pick(configs[0], "ceiling")] : []),
  ];
  const out = [head];
  for (const d of [...DIMENSIONS, "overall", "contradictions"]) out.push(line(d, cell(baseline?.dimensions[d]), (c, side) => cell(side === "result" ? c.dimensions[d] : c[side][d])));
  if (configs.some((c) => c.judged)) {
    for (const k of [...JUDGED, "overall"]) out.push(line(`judged ${k}`, cell(baseline?.judged?.[k]), (c, side) => cell(side === "result" ? c.judged?.[k] : judgedOf(c.cases, side, k))));
  }
  return out;
}

function render(table: string[][]): string {
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  return table.map((r) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("   ")).join("\n");
}

/** What makes the baseline's figures not this run's: other cases, the offline model. */
function baselineNotes(report: EvalReport, b: Baseline): string[] {
  const scored = new Set(report.configurations[0]?.cases.filter((c) => !c.bad).map((c) => c.case) ?? []);
  const same = b.cases.length === scored.size && b.cases.every((c) => scored.has(c));
  return [
    `  baseline ${b.name}: from ${b.file}, model ${b.model}`,
    ...(same ? [] : [`  the baseline scored other cases (${b.cases.length}: ${b.cases.slice(0, 8).join(", ")}${b.cases.length > 8 ? ", ..." : ""}): its figures are not over the same sessions`]),
    ...(b.offline ? ["  the baseline ran the offline model: its scores mean nothing"] : []),
  ];
}

export function formatReport(report: EvalReport, baseline?: Baseline): string {
  const lines: string[] = [];
  if (report.offline) lines.push("OFFLINE: the scripted demo model answered and summarized. These scores show the flow works; they say nothing about compaction. Configure a model (see docs/eval.md) to measure.", "");
  if (report.interrupted) lines.push("INTERRUPTED: what was measured before Ctrl-C.", "");
  const first = report.configurations[0];
  if (!first) return [...lines, "no case was measured"].join("\n") + "\n";
  const scored = first.cases.filter((c) => !c.bad).length;
  lines.push(`${scored} of ${first.cases.length} case(s) scored, ${first.cycles} compaction cycle(s); deterministic scores 0–1, judged 0–5; mean ± sd over the cases`);
  for (const c of report.configurations) lines.push(`  ${c.name}: model ${c.model}, summarizer ${c.summarizer}, framing ${c.framing}`);
  if (baseline) lines.push(...baselineNotes(report, baseline));
  lines.push("", render(rows(report, baseline)), "");
  for (const c of report.configurations) {
    lines.push(`cost of ${c.name} (${tokens(c.cost.total.tokens)} tokens, $${c.cost.total.cost.toFixed(4)}):`);
    lines.push(costLine("compactions", c.cost.compactions, "summaries"), costLine("probes", c.cost.probes, "requests"));
    if (c.cost.judge.requests > 0) lines.push(costLine("judge", c.cost.judge, "requests"));
    if (c.cost.brackets.requests > 0) lines.push(costLine("floor+ceil.", c.cost.brackets, "requests"));
    const compactions = c.cases.flatMap((k) => k.compactions);
    const by = (r: string) => compactions.filter((k) => k.reason === r).length;
    lines.push(`  ${compactions.length} compaction(s) over ${c.cases.length} case(s): ${by("threshold")} past the threshold as the cases were replayed, ${by("cycle")} at the midpoint, ${by("end")} at the end`);
    const fell = compactions.filter((k) => k.fallback);
    if (fell.length > 0) lines.push(`  ${fell.length} of ${compactions.length} compaction(s) fell back to the extractive summary (the summarizer failed: ${fell[0].fallback})`);
    const looked = c.cases.flatMap((k) => k.probes).filter((p) => p.toolCalls);
    if (looked.length > 0) lines.push(`  ${looked.length} probe answer(s) called a tool instead of answering from what the model knew (it would have looked again; not run)`);
    const failed = c.cases.flatMap((k) => k.probes).filter((p) => p.error);
    if (failed.length > 0) lines.push(`  ${failed.length} probe(s) got no answer (scored 0): ${failed[0].error}`);
  }
  const bad = first.cases.filter((c) => c.bad);
  if (bad.length > 0) {
    lines.push("", "bad cases (not scored):");
    for (const c of bad) lines.push(`  ${c.case}: ${c.bad}`);
  }
  const noCeiling = first.cases.filter((c) => c.ceiling && "skipped" in c.ceiling);
  if (noCeiling.length > 0) lines.push("", `no ceiling for ${noCeiling.length} case(s): ${noCeiling.map((c) => c.case).join(", ")} (the whole session does not fit the model's window)`);
  for (const s of report.skipped) lines.push(`left out: ${s.case}: ${s.problem}`);
  return lines.join("\n") + "\n";
}
