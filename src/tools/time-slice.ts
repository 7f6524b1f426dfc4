// Long loops on the event loop hand it back every few milliseconds. find over 300,000 files
// (walking, matching, sorting) once held the loop for 1.3 s, and every other session's requests
// waited that long. A loop calls `due()` per step (cheap) and awaits `pause()` when it says so.
import { setImmediate as nextTurn } from "node:timers/promises";

/** Longest stretch of work between two turns of the event loop. */
const SLICE_MS = 20;

export class TimeSlicer {
  private sliceStart = performance.now();
  private steps = 0;

  /** True when this slice's time is used up (the clock is only read every 256 steps). */
  due(): boolean {
    if ((++this.steps & 255) !== 0) return false;
    return performance.now() - this.sliceStart >= SLICE_MS;
  }

  /** True when this slice's time is used up (reads the clock now: for steps that are each long). */
  overdue(): boolean {
    return performance.now() - this.sliceStart >= SLICE_MS;
  }

  /** Lets the event loop run (timers, I/O, other sessions' requests), then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }
}

const RUN = 4096;

/**
 * `items` sorted (stable, by `compare`) without holding the event loop: runs of RUN items are
 * sorted one slice at a time, then merged pairwise with pauses.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, slicer = new TimeSlicer()): Promise<T[]> {
  if (items.length <= RUN) return items.slice().sort(compare);
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += RUN) {
    runs.push(items.slice(i, i + RUN).sort(compare));
    if (slicer.overdue()) await slicer.pause();
  }
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) next.push(i + 1 < runs.length ? await merge(runs[i], runs[i + 1], compare, slicer) : runs[i]);
    runs = next;
  }
  return runs[0] ?? [];
}

async function merge<T>(a: T[], b: T[], compare: (x: T, y: T) => number, slicer: TimeSlicer): Promise<T[]> {
  const out: T[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = compare(b[j], a[i]) < 0 ? b[j++] : a[i++];
    if (slicer.due()) await slicer.pause();
  }
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
