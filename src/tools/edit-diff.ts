// A compact unified-style diff of one edit, for the result's details (clients show it; the model
// does not need it). Only the changed lines and a little context, never the whole file.

const CONTEXT = 3;
const MAX_SHOWN = 40;

export interface EditDiff {
  diff: string;
  /** 1-based line of the first changed line in the new file */
  firstChangedLine: number;
}

/**
 * `before` / `after` are the whole file's lines; the edit replaced `oldCount` lines starting at
 * 0-based `start` with `newCount` lines.
 */
export function editDiff(before: string[], after: string[], start: number, oldCount: number, newCount: number): EditDiff {
  // lines inside the replaced region that did not actually change become context
  let head = 0;
  while (head < oldCount && head < newCount && before[start + head] === after[start + head]) head++;
  let tail = 0;
  while (
    tail < oldCount - head &&
    tail < newCount - head &&
    before[start + oldCount - 1 - tail] === after[start + newCount - 1 - tail]
  ) {
    tail++;
  }
  const from = start + head;
  const removed = before.slice(from, start + oldCount - tail);
  const added = after.slice(from, start + newCount - tail);
  const ctxStart = Math.max(0, from - CONTEXT);
  const before_ = before.slice(ctxStart, from);
  const after_ = after.slice(from + added.length, from + added.length + CONTEXT);

  const lines: string[] = [];
  lines.push(`@@ -${ctxStart + 1},${before_.length + removed.length + after_.length} +${ctxStart + 1},${before_.length + added.length + after_.length} @@`);
  for (const l of before_) lines.push(` ${l}`);
  pushCapped(lines, "-", removed);
  pushCapped(lines, "+", added);
  for (const l of after_) lines.push(` ${l}`);
  return { diff: lines.join("\n"), firstChangedLine: from + 1 };
}

function pushCapped(out: string[], mark: string, lines: string[]): void {
  for (const l of lines.slice(0, MAX_SHOWN)) out.push(`${mark}${l}`);
  if (lines.length > MAX_SHOWN) out.push(`${mark}… (${lines.length - MAX_SHOWN} more lines)`);
}
