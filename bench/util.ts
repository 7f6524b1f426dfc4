// Small helpers shared by the benches: timing, garbage collection between runs, tables.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// Each timed run should start from an empty heap rather than pay for the previous run's
// garbage. `npm run bench` does not pass --expose-gc, so switch it on here; this is the
// documented way to reach gc() without a flag (it only affects contexts created afterwards).
setFlagsFromString("--expose-gc");
const gcFn = runInNewContext("gc") as () => void;

export function collectGarbage(): void {
  gcFn();
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Runs `fn` once to warm up, then `runs` times; returns each run's milliseconds and the last result. */
export function timeRuns<T>(runs: number, fn: () => T): { ms: number[]; median: number; result: T } {
  collectGarbage();
  let result = fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    result = undefined as T; // let the previous run's data be collected before timing the next
    collectGarbage();
    const t0 = performance.now();
    result = fn();
    ms.push(performance.now() - t0);
  }
  return { ms, median: median(ms), result };
}

export const round = (n: number, digits = 1): number => Number(n.toFixed(digits));
export const mib = (bytes: number): number => round(bytes / (1 << 20));

/** Left-aligned first column, right-aligned others. */
export function table(rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0].map((_, c) => Math.max(...cells.map((r) => (r[c] ?? "").length)));
  return cells.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ")).join("\n");
}
