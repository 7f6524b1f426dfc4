// Python source (a data pipeline or web app module) from a case's vocabulary.
import { pascal, phrase, snake, type Flavor, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

function pyFunction(rng: Prng, vocab: Vocabulary, flavor: Flavor): string[] {
  const words = phrase(rng, vocab);
  const name = snake(...words);
  const noun = words[1];
  const T = pascal(noun);
  switch (rng.pick(flavor === "pipeline" ? [0, 1, 2] : [1, 2, 3, 3])) {
    case 0:
      return [
        `def ${name}(frame: pd.DataFrame, *, min_rows: int = ${rng.int(1, 50) * 10}) -> pd.DataFrame:`,
        `    """Drop ${noun} rows that cannot be joined downstream."""`,
        `    if len(frame) < min_rows:`,
        `        log.warning("%s: only %d rows, skipping", "${name}", len(frame))`,
        `        return frame`,
        `    mask = frame["${noun}_id"].notna() & (frame["${rng.pick(["amount", "quantity", "weight", "score"])}"] >= 0)`,
        `    out = frame.loc[mask].copy()`,
        `    out["${noun}_key"] = out["${noun}_id"].astype(str).str.strip().str.lower()`,
        `    return out.reset_index(drop=True)`,
      ];
    case 1:
      return [
        `class ${pascal(...words)}:`,
        `    def __init__(self, store: "${T}Store", batch_size: int = ${rng.int(2, 20) * 50}) -> None:`,
        `        self.store = store`,
        `        self.batch_size = batch_size`,
        `        self._seen: set[str] = set()`,
        ``,
        `    def run(self, items: Iterable[${T}]) -> int:`,
        `        written = 0`,
        `        for chunk in chunked(items, self.batch_size):`,
        `            fresh = [x for x in chunk if x.id not in self._seen]`,
        `            self._seen.update(x.id for x in fresh)`,
        `            written += self.store.upsert_many(fresh)`,
        `        return written`,
      ];
    case 2:
      return [
        `def ${name}(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:`,
        `    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)`,
        `    for row in rows:`,
        `        key = row.get("${rng.pick(["region", "status", "owner", "source"])}") or "unknown"`,
        `        groups[key].append(row)`,
        `    return dict(groups)`,
      ];
    default:
      return [
        `@router.${rng.pick(["get", "post"])}("/${noun}s/{${noun}_id}")`,
        `async def ${name}(${noun}_id: str, session: AsyncSession = Depends(get_session)) -> ${T}Out:`,
        `    found = await session.get(${T}, ${noun}_id)`,
        `    if found is None:`,
        `        raise HTTPException(status_code=404, detail=f"${noun} {${noun}_id} not found")`,
        `    return ${T}Out.model_validate(found)`,
      ];
  }
}

export function pyFile(rng: Prng, vocab: Vocabulary, lines: number, flavor: Flavor): string {
  const out = [
    `from __future__ import annotations`,
    ``,
    `import logging`,
    `from collections import defaultdict`,
    `from typing import Any, Iterable`,
    ``,
    ...(flavor === "pipeline" ? [`import pandas as pd`] : [`from fastapi import APIRouter, Depends, HTTPException`, `from sqlalchemy.ext.asyncio import AsyncSession`]),
    ``,
    `from .util import chunked`,
    ``,
    `log = logging.getLogger(__name__)`,
    ``,
  ];
  while (out.length < lines) out.push(...pyFunction(rng, vocab, flavor), "", "");
  return out.join("\n");
}
