// An earlier run's report as the baseline of this one (`pith eval --baseline FILE`): how a
// developer compares a change pith has no setting for (a summarizer prompt, a cut rule) before
// making it the default: run once on the old code with --json, once on the new with --baseline.
// The file is untrusted input: a regular file of bounded size, checked for the shape the table
// reads, anything else named as what it is.
import { readRegularFileSync } from "../os/regular-file.js";
import { z } from "zod";

const MAX_BYTES = 256 * 1024 * 1024;

const Spread = z.object({ mean: z.number(), sd: z.number(), min: z.number(), max: z.number(), n: z.number() });
const Spreads = z.record(z.string(), Spread);

const Report = z.object({
  version: z.literal(1),
  offline: z.boolean(),
  configurations: z
    .array(
      z.object({
        name: z.string(),
        model: z.string(),
        dimensions: Spreads,
        judged: Spreads.optional(),
        cases: z.array(z.object({ case: z.string(), bad: z.string().optional() })),
      }),
    )
    .min(1),
});

/** The part of an earlier report the table shows beside this run: its first configuration. */
export interface Baseline {
  file: string;
  name: string;
  model: string;
  offline: boolean;
  dimensions: Record<string, z.infer<typeof Spread>>;
  judged?: Record<string, z.infer<typeof Spread>>;
  /** the cases it scored */
  cases: string[];
}

export function readBaseline(file: string): Baseline | string {
  const read = readRegularFileSync(file, { maxBytes: MAX_BYTES, noFollow: true });
  if (read.kind === "missing") return `--baseline: no such file: ${file}`;
  if (read.kind === "skipped") return `--baseline ${file} ${read.why}`;
  const text = read.bytes.toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return `--baseline ${file} is not JSON (a report written by pith eval --json is)`;
  }
  const parsed = Report.safeParse(raw);
  if (!parsed.success) return `--baseline ${file} is not a pith eval report: ${parsed.error.issues.slice(0, 2).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`;
  const [c] = parsed.data.configurations;
  return { file, name: c.name, model: c.model, offline: parsed.data.offline, dimensions: c.dimensions, ...(c.judged ? { judged: c.judged } : {}), cases: c.cases.filter((k) => !k.bad).map((k) => k.case) };
}
