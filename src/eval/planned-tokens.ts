// What a run will send, roughly, said before it starts: a measurement sends many times the tokens
// of the compactions it measures (the ceiling sends each whole case once per probe), and a user
// paying for a model should know before the first request. A rough count from file sizes and the
// settings, not a promise: the table's cost lines give what was spent.
import { statSync } from "node:fs";
import { fitToWindow, type CompactionSettings } from "../compaction/settings.js";
import type { EvalCase } from "./case-set.js";
import { deterministicProbes } from "./probes.js";

/** A session file's bytes per token, measured on the shipped cases (JSON and its escapes around the text). */
const BYTES_PER_TOKEN = 4.8;
/** The system prompt and tool definitions every request carries. */
const OVERHEAD = 3_000;

/** Input tokens one configuration's run of `cases` sends, with the floor and the ceiling when it asks them. */
export function plannedTokens(cases: readonly EvalCase[], o: { window: number; settings: CompactionSettings; judge: boolean; brackets: boolean }): number {
  const s = fitToWindow(o.settings, o.window, OVERHEAD);
  const threshold = o.window - s.reserveTokens;
  let total = 0;
  for (const c of cases) {
    const tokens = statSync(c.sessionFile).size / BYTES_PER_TOKEN;
    const probes = deterministicProbes(c.truth).length + (o.judge ? c.truth.judge.length : 0);
    // each compaction sends at most the window; the replay compacts about once per threshold's worth
    total += tokens + Math.max(0, Math.ceil(tokens / threshold) - 1) * s.keepRecentTokens;
    const compacted = s.keepRecentTokens + 2_000 + OVERHEAD;
    total += probes * compacted;
    if (o.brackets) total += probes * (s.keepRecentTokens + OVERHEAD) + (tokens + 10_000 < o.window ? probes * tokens : 0);
  }
  return Math.round(total);
}
