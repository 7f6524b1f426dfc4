// "Did you mean": the names a server listed that are nearest to one it does not have, by edit
// distance (a typo is one or two edits away; a prefix or a missing tag is more, and still nearer
// than an unrelated model).

/** Levenshtein distance, case-insensitive, in O(a·b) time and O(b) space (model names are short). */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** Up to `max` of `names`, nearest to `name` first (ties in the order given). */
export function closestNames(name: string, names: readonly string[], max = 3): string[] {
  return names
    .map((n, i) => ({ n, i, d: distance(name, n) }))
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, max)
    .map((x) => x.n);
}
