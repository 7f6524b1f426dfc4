// `npm run bench`: runs each bench in turn. To add one, export an async function from a
// bench/*.bench.ts module and list it here. BENCH_MB scales the session size (default 100).
// `npm run bench -- compaction` runs only the named benches.
import { runAcpBench } from "./acp.bench.js";
import { runAheadOfTimeBench } from "./ahead-of-time.bench.js";
import { runClientReadBench } from "./client-read.bench.js";
import { runCompactionBench } from "./compaction.bench.js";
import { runDaemonBench } from "./daemon.bench.js";
import { runEvalBench } from "./eval.bench.js";
import { runHardeningBench } from "./hardening.bench.js";
import { runHostileLoadsBench } from "./hostile-loads.bench.js";
import { runMcpBench } from "./mcp.bench.js";
import { runOperationsBench } from "./operations.bench.js";
import { runPgAppendBench } from "./pg-append.bench.js";
import { runPgStoreBench } from "./pg-store.bench.js";
import { runProvidersBench } from "./providers/index.js";
import { runPruneBench } from "./prune.bench.js";
import { runShapesBench } from "./shapes.bench.js";
import { runStoreBench } from "./store.bench.js";

const only = process.argv.slice(2);
const benches: { name: string; run: () => Promise<unknown> }[] = [
  {
    name: "store",
    run: async () => {
      await runStoreBench();
      await runPgAppendBench();
      await runPgStoreBench();
    },
  },
  {
    name: "compaction",
    run: async () => {
      await runCompactionBench();
      await runAheadOfTimeBench();
    },
  },
  { name: "daemon", run: () => runDaemonBench() },
  {
    name: "hardening",
    run: async () => {
      await runHardeningBench();
      await runHostileLoadsBench();
    },
  },
  { name: "hostile", run: () => runHostileLoadsBench() },
  { name: "shapes", run: () => runShapesBench() },
  { name: "client", run: () => runClientReadBench() },
  { name: "acp", run: () => runAcpBench() },
  { name: "operations", run: () => runOperationsBench() },
  { name: "providers", run: () => runProvidersBench() },
  { name: "prune", run: () => runPruneBench() },
  { name: "mcp", run: () => runMcpBench() },
  { name: "eval", run: () => runEvalBench() },
].filter((b) => only.length === 0 || only.includes(b.name));

// nothing is printed after a bench: its last line is its JSON figures, for scripts to pick up
for (const bench of benches) {
  console.log(`== ${bench.name} ==`);
  await bench.run();
}
