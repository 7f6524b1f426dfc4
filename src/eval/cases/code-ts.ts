// TypeScript source (a Node service module or a React component file) from a case's vocabulary.
import { camel, pascal, phrase, type Flavor, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

function tsFunction(rng: Prng, vocab: Vocabulary, flavor: Flavor): string[] {
  const words = phrase(rng, vocab);
  const name = camel(...words);
  const noun = words[1];
  const T = pascal(noun);
  const table = `${noun}s`;
  const limit = rng.int(2, 40) * 25;
  switch (rng.pick(flavor === "tool" ? [1, 2, 4, 4] : [0, 1, 2, 3])) {
    case 0:
      return [
        `export async function ${name}(db: Db, accountId: string, opts: { limit?: number; after?: string } = {}): Promise<${T}[]> {`,
        `  const limit = Math.min(opts.limit ?? ${limit}, ${limit * 4});`,
        `  const rows = await db.query<${T}Row>(`,
        `    "SELECT id, account_id, status, updated_at FROM ${table} WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3",`,
        `    [accountId, opts.after ?? "", limit],`,
        `  );`,
        `  return rows.map(to${T});`,
        `}`,
      ];
    case 1:
      return [
        `export function ${name}(input: ${T}Input): Result<${T}, ValidationError> {`,
        `  const errors: string[] = [];`,
        `  if (!input.id || input.id.length > ${rng.int(3, 9) * 8}) errors.push("id");`,
        `  if (input.quantity !== undefined && (input.quantity < 0 || !Number.isInteger(input.quantity))) errors.push("quantity");`,
        `  if (input.status && !${noun.toUpperCase()}_STATUSES.includes(input.status)) errors.push("status");`,
        `  if (errors.length > 0) {`,
        `    return err(new ValidationError(\`invalid ${noun}: \${errors.join(", ")}\`));`,
        `  }`,
        `  return ok({ ...input, status: input.status ?? "pending", updatedAt: new Date(input.updatedAt ?? 0) });`,
        `}`,
      ];
    case 2:
      return [
        `export const ${name} = (items: readonly ${T}[]): Map<string, ${T}[]> => {`,
        `  const groups = new Map<string, ${T}[]>();`,
        `  for (const item of items) {`,
        `    const key = item.${rng.pick(["accountId", "status", "region", "ownerId"])};`,
        `    const group = groups.get(key);`,
        `    if (group) group.push(item);`,
        `    else groups.set(key, [item]);`,
        `  }`,
        `  return groups;`,
        `};`,
      ];
    case 4:
      return [
        `export async function ${name}(root: string, opts: { concurrency?: number } = {}): Promise<${T}[]> {`,
        `  const entries = await readdir(root, { withFileTypes: true });`,
        `  const found: ${T}[] = [];`,
        `  for (const entry of entries) {`,
        `    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;`,
        `    const manifest = join(root, entry.name, "package.json");`,
        `    const text = await readFile(manifest, "utf8").catch(() => undefined);`,
        `    if (text === undefined) continue;`,
        `    found.push(${camel("parse", noun)}(JSON.parse(text), manifest));`,
        `  }`,
        `  return found.slice(0, opts.concurrency ?? ${rng.int(2, 16) * 8});`,
        `}`,
      ];
    default:
      return [
        `router.${rng.pick(["get", "post", "put"])}("/v${rng.int(1, 2)}/${table}/:id", async (req, res) => {`,
        `  const id = req.params.id;`,
        `  const found = await ${camel("find", noun)}(req.ctx.db, id);`,
        `  if (!found) {`,
        `    res.status(404).json({ error: "not_found", id });`,
        `    return;`,
        `  }`,
        `  req.log.info({ id, took: Date.now() - req.startedAt }, "${name}");`,
        `  res.json(${camel("serialize", noun)}(found));`,
        `});`,
      ];
  }
}

function tsxComponent(rng: Prng, vocab: Vocabulary): string[] {
  const words = phrase(rng, vocab);
  const name = pascal(...words.slice(1), rng.pick(["Panel", "Table", "Card", "List", "Toolbar"]));
  const noun = words[1];
  const T = pascal(noun);
  return [
    `export function ${name}({ ${noun}s, onSelect }: { ${noun}s: ${T}[]; onSelect: (id: string) => void }) {`,
    `  const [filter, setFilter] = useState("");`,
    `  const visible = useMemo(() => ${noun}s.filter((x) => x.name.toLowerCase().includes(filter.toLowerCase())), [${noun}s, filter]);`,
    `  return (`,
    `    <section className="${noun}-${rng.pick(["panel", "grid", "list"])}">`,
    `      <input value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Filter ${noun}s" />`,
    `      <ul>`,
    `        {visible.map((x) => (`,
    `          <li key={x.id} onClick={() => onSelect(x.id)}>`,
    `            {x.name} <span className="muted">{x.status}</span>`,
    `          </li>`,
    `        ))}`,
    `      </ul>`,
    `    </section>`,
    `  );`,
    `}`,
  ];
}

export function tsFile(rng: Prng, vocab: Vocabulary, lines: number, react: boolean, flavor: Flavor): string {
  const noun = rng.pick(vocab.nouns);
  const out = react
    ? [`import { useMemo, useState } from "react";`, `import type { ${pascal(noun)} } from "../api/types";`, ``]
    : flavor === "tool"
      ? [`import { readdir, readFile } from "node:fs/promises";`, `import { join } from "node:path";`, `import { err, ok, type Result } from "../util/result.js";`, `import { ValidationError } from "../util/errors.js";`, ``]
      : [`import type { Db } from "../db/pool.js";`, `import { err, ok, type Result } from "../lib/result.js";`, `import { ValidationError } from "../lib/errors.js";`, ``];
  out.push(`export interface ${pascal(noun)}Row {`, `  id: string;`, `  account_id: string;`, `  status: string;`, `  updated_at: string;`, `}`, ``);
  while (out.length < lines) {
    out.push(...(react && rng.chance(0.6) ? tsxComponent(rng, vocab) : tsFunction(rng, vocab, flavor)), "");
  }
  return out.join("\n");
}
