// How the fake servers cut a text into stream deltas: whole code points, as the real APIs do
// (a delta never splits a surrogate pair).

/** code-point-safe chunks of at most `size` code points (at least one chunk, possibly empty) */
export function chunkCodePoints(text: string, size: number): string[] {
  const points = Array.from(text);
  const n = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < points.length; i += n) out.push(points.slice(i, i + n).join(""));
  return out.length ? out : [""];
}
