// The house rules that a compiler does not check (the layers are drawn in docs/architecture.md;
// the rules are stated here in full): each layer of protocol/ and src/ imports only the layers
// above it, protocol/ depends on zod only (its JSON-RPC peer on json-rpc-2.0); clients/ is built on the protocol alone and bench/ sits
// below everything, and neither is imported by the product; there is no import cycle anywhere in
// protocol/, src/, clients/ or bench/ (type-only imports included: a cycle of types is still two
// files that cannot be understood apart); and no file in src/ grows past a size one reader can hold.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/tmp.js";

/** Top to bottom: a layer may import itself and the layers before it. log and os (this machine's processes and files, read safely) are leaves anyone may use. */
const LAYERS = ["protocol", "src/log", "src/os", "src/messages", "src/session", "src/llm", "src/compaction", "src/tools", "src/mcp", "src/agent", "src/host", "src/eval", "src/rpc", "src/acp", "src/cli"];
/**
 * Beside the layers, each with what it may import besides itself: the clients are built on the
 * protocol alone (clients/ts runs in the browser too, where src/ cannot), the web UI on the client
 * as well; bench/ measures the whole product with test/support's fakes. Nothing in the layers may
 * import any of these, nor test/.
 */
const BESIDE: Record<string, readonly string[]> = {
  "clients/ts": ["protocol"],
  "clients/web": ["protocol", "clients/ts"],
  bench: ["protocol", "src", "clients", "test/support"],
};
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

const under = (file: string, dir: string): boolean => file === dir || file.startsWith(`${dir}/`);

/** The file's layer, or -1 for a file outside the layers (clients/, bench/, test/). */
function layerOf(file: string): number {
  const i = LAYERS.findIndex((l) => under(file, l));
  assert.ok(i >= 0 || Object.keys(BESIDE).some((b) => under(file, b)) || under(file, "test"), `${file} belongs to no layer: add its directory to LAYERS (in the order of docs/architecture.md) or to BESIDE`);
  return i;
}

/**
 * Imports the layer order allows but the design does not: the tools know no store (a tool works
 * on the files it is given, whatever keeps the session).
 */
const FORBIDDEN: readonly { from: string; to: string; why: string }[] = [{ from: "src/tools", to: "src/session", why: "the tools know no store" }];

/** Why `file` may not import `dep`, or undefined if it may. */
function wrongImport(file: string, dep: string): string | undefined {
  const forbidden = FORBIDDEN.find((f) => under(file, f.from) && under(dep, f.to));
  if (forbidden) return `${file} -> ${dep} (${forbidden.why})`;
  const beside = Object.keys(BESIDE).find((b) => under(file, b));
  if (beside !== undefined) {
    return under(dep, beside) || BESIDE[beside].some((d) => under(dep, d)) ? undefined : `${file} -> ${dep} (${beside} may import ${BESIDE[beside].join(", ")} only)`;
  }
  const to = layerOf(dep);
  if (under(dep, "clients")) return `${file} -> ${dep} (clients are built on the protocol, not the other way)`;
  if (to < 0) return `${file} -> ${dep} (the product never imports bench/ or test/)`;
  return to > layerOf(file) ? `${file} -> ${dep}` : undefined;
}

const files = [...tsFiles("protocol"), ...tsFiles("src"), ...tsFiles("clients"), ...tsFiles("bench")];
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

test("each layer imports only the layers above it; clients/ and bench/ only what they are built on, and the layers neither", () => {
  const wrong: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const why = wrongImport(file, dep);
      if (why !== undefined) wrong.push(why);
    }
  }
  assert.deepEqual(wrong, []);
});

test("the import rules refuse what they must (a rule that allows everything proves nothing)", () => {
  assert.match(wrongImport("src/session/store.ts", "src/host/session-host.ts") ?? "", /session-host/);
  assert.match(wrongImport("src/rpc/server.ts", "clients/ts/client.ts") ?? "", /clients are built on the protocol/);
  assert.match(wrongImport("src/cli/main.ts", "test/support/tmp.ts") ?? "", /never imports bench/);
  assert.match(wrongImport("clients/ts/client.ts", "src/host/session-host.ts") ?? "", /clients\/ts may import protocol only/);
  assert.match(wrongImport("clients/web/src/main.ts", "src/rpc/server.ts") ?? "", /clients\/web may import/);
  assert.equal(wrongImport("clients/web/src/main.ts", "clients/ts/browser.ts"), undefined);
  assert.equal(wrongImport("bench/run.ts", "test/support/tmp.ts"), undefined);
  assert.match(wrongImport("src/tools/cgroup-fs.ts", "src/session/lock.ts") ?? "", /the tools know no store/);
  assert.equal(wrongImport("src/tools/cgroup-fs.ts", "src/os/pid-alive.ts"), undefined);
});

// the one JSON-RPC peer (protocol/jsonrpc-peer.ts) is built on json-rpc-2.0, which runs in the browser too
const PROTOCOL_DEPS: Record<string, string> = { "protocol/jsonrpc-peer.ts": "json-rpc-2.0" };

test("protocol/ depends on zod only (and its JSON-RPC peer on json-rpc-2.0)", () => {
  const wrong = [...external].filter(([file]) => file.startsWith("protocol/")).flatMap(([file, deps]) => deps.filter((d) => d !== "zod" && d !== PROTOCOL_DEPS[file]).map((d) => `${file}: ${d}`));
  assert.deepEqual(wrong, []);
});

test("no import cycle in protocol/, src/, clients/ or bench/", () => {
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
  assert.ok((graph.get("src/host/live/live-session.ts") ?? []).includes("src/host/operations/exclusive.ts"));
  assert.ok((graph.get("clients/ts/transcript-state.ts") ?? []).includes("clients/ts/transcript-draft.ts"));
  assert.ok((graph.get("clients/web/src/main.ts") ?? []).includes("clients/ts/transcript-state.ts"));
  assert.ok((graph.get("bench/acp.bench.ts") ?? []).includes("test/support/tmp.ts"));
});
