// The house rules of DESIGN.md that a compiler does not check: each layer imports only the layers
// above it, protocol/ depends on zod only, nothing in src/ reaches into clients/, there is no
// import cycle (type-only imports included: a cycle of types is still two files that cannot be
// understood apart), and no file in src/ grows past a size one reader can hold.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/tmp.js";

/** Top to bottom: a layer may import itself and the layers before it. log is a leaf anyone may use. */
const LAYERS = ["protocol", "src/log", "src/messages", "src/session", "src/llm", "src/compaction", "src/tools", "src/agent", "src/host", "src/rpc", "src/acp", "src/cli"];
const MAX_LINES = 350;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...tsFiles(rel));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1]);
  return out;
}

function layerOf(file: string): number {
  const i = LAYERS.findIndex((l) => file === l || file.startsWith(`${l}/`));
  assert.ok(i >= 0, `${file} belongs to no layer: add its directory to LAYERS in the order of DESIGN.md`);
  return i;
}

const files = [...tsFiles("protocol"), ...tsFiles("src")];
const graph = new Map<string, string[]>();
const external = new Map<string, string[]>();
for (const file of files) {
  const local: string[] = [];
  const outside: string[] = [];
  for (const spec of specifiers(readFileSync(join(repoRoot, file), "utf8"))) {
    if (!spec.startsWith(".")) outside.push(spec);
    else local.push(relative(repoRoot, resolve(repoRoot, dirname(file), spec)).replace(/\.js$/, ".ts"));
  }
  graph.set(file, local);
  external.set(file, outside);
}

test("each layer imports only the layers above it, and src/ never imports clients/", () => {
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      if (dep.startsWith("clients/")) wrong.push(`${file} -> ${dep} (clients are built on the protocol, not the other way)`);
      else if (layerOf(dep) > layerOf(file)) wrong.push(`${file} -> ${dep}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("protocol/ depends on zod only", () => {
  const wrong = [...external].filter(([file]) => file.startsWith("protocol/")).flatMap(([file, deps]) => deps.filter((d) => d !== "zod").map((d) => `${file}: ${d}`));
  assert.deepEqual(wrong, []);
});

test("no import cycle in src/ and protocol/", () => {
  // Tarjan's strongly connected components: any component of more than one file is a cycle
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  const long = files
    .filter((f) => f.startsWith("src/"))
    .map((f) => ({ f, lines: readFileSync(join(repoRoot, f), "utf8").split("\n").length }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ f, lines }) => `${f}: ${lines}`);
  assert.deepEqual(long, []);
});

test("the import scanner sees what it must (a rule check that cannot see imports proves nothing)", () => {
  assert.deepEqual(specifiers(`import type { A } from "./a.js";\nexport { B } from "../b.js";\nimport "./side.js";\nconst m = await import("./lazy.js");\nimport {\n  C,\n  D,\n} from "./multi.js";`).sort(), ["../b.js", "./a.js", "./lazy.js", "./multi.js", "./side.js"]);
  assert.ok((graph.get("src/host/live-session.ts") ?? []).includes("src/host/exclusive.ts"));
});
