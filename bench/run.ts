// `npm run bench`: runs each bench in turn. To add one, export an async function from a
// bench/*.bench.ts module and list it here. BENCH_MB scales the store bench (default 100).
import { runStoreBench } from "./store.bench.js";

const benches: { name: string; run: () => Promise<unknown> }[] = [{ name: "store", run: () => runStoreBench() }];

// nothing is printed after a bench: its last line is its JSON figures, for scripts to pick up
for (const bench of benches) {
  console.log(`== ${bench.name} ==`);
  await bench.run();
}
