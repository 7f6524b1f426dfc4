// The whole eval: every case under every configuration, side by side. Each configuration has its
// own session host (its summarizer and framing are settings, given as flags over the user's
// settings), over a store in the run's own folder: the user's sessions are never touched, and the
// copies go with the folder. A case that cannot run is reported with why, and the rest go on; an
// abort (Ctrl-C) ends the run with what was measured so far.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Settings } from "../host/policy/settings.js";
import { SessionHost } from "../host/session-host.js";
import { compactionSettings } from "../compaction/settings.js";
import { framingOf } from "../host/compaction/context-budget.js";
import type { CaseSet, EvalCase } from "./case-set.js";
import { caseReport, configurationReport, type CaseReport, type Configuration, type EvalReport } from "./report.js";
import type { Judge, Questioned } from "./questioning.js";
import { BAD_CEILING, runCeiling, runCompacted, runFloor, type CaseRunOptions } from "./run-case.js";
import type { Tally } from "./tally.js";
import { plannedTokens } from "./planned-tokens.js";

export interface EvalOptions {
  configurations: Configuration[];
  cases: CaseSet;
  cycles: 1 | 2;
  /** the judge model's name (absent: no judged probes) */
  judge?: string;
  /** the run's folder (sessions, copies, the empty workspace the sessions work in) */
  dir: string;
  log: Logger;
  signal: AbortSignal;
  /** settings from flags, under each configuration's own */
  flags?: Settings;
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: { case: string; index: number; of: number; configuration: string; step: string; tokens: number }) => void;
  /** before the first request: about how many input tokens the run sends, and what they cost at the models' input prices (0: unknown) */
  onPlan?: (p: { tokens: number; usd: number }) => void;
}

interface Prepared {
  config: Configuration;
  host: SessionHost;
  cases: CaseReport[];
  cost: { compactions: Tally[]; probes: Tally[]; judge: Tally[]; brackets: Tally[] };
  model?: string;
  /** the summarizer the settings name, when the configuration does not */
  summarizer?: string;
}

/** The flags of one configuration: its summarizer and framing over the run's own. */
function configFlags(base: Settings, c: Configuration): Settings {
  const compaction = { ...base.compaction, ...(c.summarizer ? { model: c.summarizer } : {}), ...(c.framing ? { summaryFraming: c.framing } : {}) };
  return { ...base, compaction };
}

/** The hosts, each model named checked first: an unknown one is an error before anything runs. */
async function prepare(o: EvalOptions, workspace: string): Promise<{ hosts: Prepared[]; judge?: Judge }> {
  const hosts: Prepared[] = o.configurations.map((config, i) => {
    const dir = join(o.dir, `sessions-${i + 1}`);
    mkdirSync(dir, { recursive: true });
    const host = new SessionHost({ sessionsDir: dir, logger: o.log, flags: configFlags(o.flags ?? {}, config), env: o.env, withoutMcpServers: true });
    return { config, host, cases: [], cost: { compactions: [], probes: [], judge: [], brackets: [] } };
  });
  try {
    for (const h of hosts) {
      await h.host.modelsReady(workspace);
      for (const name of [h.config.model, h.config.summarizer]) if (name) h.host.modelAndProvider(name, workspace);
    }
    const judge = o.judge ? hosts[0].host.modelAndProvider(o.judge, workspace) : undefined;
    return { hosts, judge };
  } catch (err) {
    await Promise.all(hosts.map((h) => h.host.shutdown()));
    throw err;
  }
}

export async function runEval(o: EvalOptions): Promise<EvalReport> {
  const workspace = join(o.dir, "workspace");
  mkdirSync(workspace, { recursive: true });
  const { hosts, judge } = await prepare(o, workspace);
  let tokens = 0;
  let interrupted = false;
  let offline = false;
  // floor and ceiling depend on the answering model only: asked once per model and case
  const brackets = new Map<string, { floor?: Questioned; ceiling?: Questioned | { skipped: string } }>();
  try {
    o.onPlan?.(plan(o, hosts, workspace, judge !== undefined));
    const all = o.cases.cases;
    cases: for (const [index, c] of all.entries()) {
      for (const [i, h] of hosts.entries()) {
        if (o.signal.aborted) {
          interrupted = true;
          break cases;
        }
        const dir = join(o.dir, `copies-${i + 1}`);
        mkdirSync(dir, { recursive: true });
        const progress = (step: string) => o.onProgress?.({ case: c.name, index: index + 1, of: all.length, configuration: h.config.name, step, tokens });
        const run: CaseRunOptions = {
          host: h.host,
          model: h.config.model,
          cycles: o.cycles,
          judge,
          dir,
          workspace,
          signal: o.signal,
          progress,
          spent: (n) => (tokens += n),
        };
        try {
          const report = await runOne(run, c, h, brackets);
          if (report.offline) offline = true;
          h.cases.push(report.report);
        } catch (err) {
          if (o.signal.aborted) {
            interrupted = true;
            break cases;
          }
          o.log.debug({ case: c.name, err }, "a case could not run");
          h.cases.push({ case: c.name, dimensions: { overall: 0 }, bad: `it could not run: ${(err as Error).message}`, compactions: [], contextTokens: 0, probes: [] });
        }
      }
    }
  } finally {
    await Promise.all(hosts.map((h) => h.host.shutdown()));
  }
  return {
    version: 1,
    offline,
    interrupted,
    cases: o.cases.cases.length,
    skipped: o.cases.problems,
    configurations: hosts.map((h) => {
      const model = h.model ?? h.config.model ?? "(default)";
      const summarizer = h.config.summarizer ?? h.summarizer ?? model;
      return configurationReport(h.config, { model, summarizer, framing: framingIn(h, workspace, model, summarizer), cycles: o.cycles }, h.cases, h.cost);
    }),
  };
}

/**
 * The framing the configuration's summaries are asked in, as a session's compaction chooses it
 * (the setting, else the conversation where the provider caches); the conversation falls back to
 * the transcript for a context too long to send again whole.
 */
function framingIn(h: Prepared, workspace: string, model: string, summarizer: string): string {
  try {
    const settings = compactionSettings(h.host.settingsFor(workspace).settings.compaction ?? {});
    return framingOf(settings, h.host.modelAndProvider(model, workspace).model, h.host.modelAndProvider(summarizer, workspace).model);
  } catch {
    return h.config.framing ?? "unknown";
  }
}

/** The run's input tokens, roughly (planned-tokens.ts), priced where the configuration names its model. */
function plan(o: EvalOptions, hosts: readonly Prepared[], workspace: string, judge: boolean): { tokens: number; usd: number } {
  let tokens = 0;
  let usd = 0;
  const asked = new Set<string | undefined>();
  for (const h of hosts) {
    const model = h.config.model ? h.host.modelAndProvider(h.config.model, workspace).model : undefined;
    const settings = compactionSettings(h.host.settingsFor(workspace).settings.compaction ?? {});
    // floor and ceiling once per answering model
    const brackets = !asked.has(h.config.model);
    asked.add(h.config.model);
    const n = plannedTokens(o.cases.cases, { window: model?.contextWindow ?? 200_000, settings, judge, brackets });
    tokens += n;
    if (model) usd += (n / 1e6) * model.pricing.input;
  }
  return { tokens, usd };
}

async function runOne(run: CaseRunOptions, c: EvalCase, h: Prepared, brackets: Map<string, { floor?: Questioned; ceiling?: Questioned | { skipped: string } }>): Promise<{ report: CaseReport; offline: boolean }> {
  const tag = h.config.name.replace(/[^A-Za-z0-9_-]+/g, "_");
  const result = await runCompacted(run, c, tag);
  h.model ??= result.model;
  h.summarizer ??= h.host.settingsFor(run.workspace).settings.compaction?.model;
  h.cost.compactions.push(result.compactionCost);
  h.cost.probes.push(result.probeCost);
  h.cost.judge.push(result.judgeCost);
  const key = `${result.model}\0${c.name}`;
  let b = brackets.get(key);
  if (!b) {
    const floor = await runFloor(run, c, tag);
    const ceiling = await runCeiling(run, c, tag);
    b = { floor, ceiling };
    brackets.set(key, b);
    // billed to the configuration that asked them first
    for (const q of [floor, ceiling]) if (!("skipped" in q)) h.cost.brackets.push(q.probeCost, q.judgeCost);
  }
  return { report: caseReport(result, b.floor, b.ceiling, BAD_CEILING), offline: result.model.startsWith("scripted/") };
}
