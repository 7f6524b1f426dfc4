// Writes pith's eval cases: NAME.jsonl (a Pi v3 session) and NAME.truth.json per case.
//   node --import tsx scripts/gen-eval-cases.ts [--seed N] [--out DIR]    (default: seed 1, ./eval-cases)
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CASES_VERSION, generateCases, SHIPPED_SEED } from "../src/eval/cases/generate.js";
import { estimateMessageTokens } from "../src/compaction/estimate.js";
import type { AgentMessage } from "../src/messages/types.js";

const { values } = parseArgs({ options: { seed: { type: "string" }, out: { type: "string" } } });
const seed = values.seed === undefined ? SHIPPED_SEED : Number(values.seed);
if (!Number.isInteger(seed) || seed < 0) {
  console.error(`--seed must be a non-negative integer, got ${values.seed}`);
  process.exit(2);
}
const out = resolve(values.out ?? "eval-cases");
mkdirSync(out, { recursive: true });
const started = performance.now();
const cases = generateCases(seed);
let bytes = 0;
for (const c of cases) {
  const truth = `${JSON.stringify(c.truth, null, 2)}\n`;
  writeFileSync(join(out, `${c.name}.jsonl`), c.session);
  writeFileSync(join(out, `${c.name}.truth.json`), truth);
  bytes += Buffer.byteLength(c.session) + Buffer.byteLength(truth);
  const tokens = c.session
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message")
    .reduce((n, e) => n + estimateMessageTokens(e.message as AgentMessage), 0);
  console.log(`${c.name.padEnd(24)} ${String(tokens).padStart(7)} tokens  ${c.truth.shape.padEnd(5)}  thinking ${c.truth.thinking ? "yes" : "no "}  ${c.truth.facts.length} facts`);
}
console.log(`${cases.length} cases (version ${CASES_VERSION}, seed ${seed}), ${(bytes / 1e6).toFixed(1)} MB in ${out}, ${Math.round(performance.now() - started)} ms`);
