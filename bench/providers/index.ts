// `npm run bench -- providers`: pith's overhead per streamed token against each vendor SDK's raw
// stream (issue 23: within 1.1x). One file per provider family exports its cases (see
// harness.ts for what a case is); add a provider by adding its file and listing its cases here.
// Ollama, with no SDK, is measured against a raw fetch of the same NDJSON (ollama.ts).
// BENCH_DELTAS (default 20,000) deltas per reply, BENCH_RUNS (default 7) timed runs per figure.
import { runProviderCases, type ProviderBenchCase, type ProviderFigures } from "./harness.js";
import { runOllamaBench } from "./ollama.js";
import { chatCompletionsCase, responsesCase } from "./openai.js";

export const PROVIDER_CASES: ProviderBenchCase[] = [chatCompletionsCase, responsesCase];

export async function runProvidersBench(options: { deltas?: number; runs?: number; log?: (line: string) => void } = {}): Promise<ProviderFigures[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const figures = await runProviderCases(PROVIDER_CASES, { ...options, log });
  // Ollama's NDJSON has no SDK: its baseline is the same stream read raw with fetch
  log("");
  await runOllamaBench({ log, ...(options.runs !== undefined ? { runs: options.runs } : {}), ...(options.deltas !== undefined ? { small: options.deltas, long: Math.max(10, Math.ceil(options.deltas / 10)) } : {}) });
  log("");
  log(JSON.stringify({ bench: "providers", figures }));
  return figures;
}
