// pith promises the Node versions in package.json's `engines` (the README says the same): every
// package a production install brings (each lockfile entry not marked `dev`, transitive ones and
// optional ones included) must run on all of them, or `npm ci` warns EBADENGINE on a machine we
// claim to support and the package may use what that Node lacks. Checked here on the lockfile,
// which records each package's own `engines`, so a dependency update that drops a Node version
// fails here and not on a user's machine. The range check is written here (no semver package is
// installed for production, and the check needs only the grammar `engines` fields use).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/tmp.js";

type Version = [number, number, number];
type Predicate = (v: Version) => boolean;

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** "12.20" -> [12, 20]; x, X and * end the version (partial versions are ranges in semver) */
function parts(text: string): number[] {
  const out: number[] = [];
  for (const p of text.replace(/^v/, "").replace(/[-+].*$/, "").split(".")) {
    if (p === "x" || p === "X" || p === "*") break;
    if (!/^\d+$/.test(p)) throw new Error(`not a version: "${text}"`);
    out.push(Number(p));
  }
  if (out.length > 3) throw new Error(`not a version: "${text}"`);
  return out;
}

const filled = (p: number[]): Version => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];
/** the first version past the given part: bump([1, 2], 0) = 2.0.0 */
const bump = (p: number[], i: number): Version => filled([...p.slice(0, i), (p[i] ?? 0) + 1, 0, 0].slice(0, 3));

function comparator(op: string, text: string): Predicate {
  const p = parts(text);
  const lo = filled(p);
  const full = p.length === 3;
  const atLeast = (min: Version): Predicate => (v) => compare(v, min) >= 0;
  const below = (max: Version): Predicate => (v) => compare(v, max) < 0;
  const between = (min: Version, max: Version): Predicate => (v) => atLeast(min)(v) && below(max)(v);
  if (p.length === 0) return op === "<" || op === ">" ? () => false : () => true;
  switch (op) {
    case ">=":
      return atLeast(lo);
    case ">":
      return full ? (v) => compare(v, lo) > 0 : atLeast(bump(p, p.length - 1));
    case "<":
      return below(lo);
    case "<=":
      return full ? (v) => compare(v, lo) <= 0 : below(bump(p, p.length - 1));
    case "~":
      return between(lo, bump(p, Math.min(1, p.length - 1)));
    case "^": {
      const firstNonZero = p.findIndex((n) => n !== 0);
      return between(lo, bump(p, firstNonZero >= 0 ? firstNonZero : p.length - 1));
    }
    case "":
    case "=":
      return full ? (v) => compare(v, lo) === 0 : between(lo, bump(p, p.length - 1));
    default:
      throw new Error(`unknown operator "${op}"`);
  }
}

/** A predicate for a node-semver range ("^12.20 || >= 14.13", ">= 10.x", "1.2 - 3", "*"). Throws on what it cannot read. */
function satisfiesRange(range: string): Predicate {
  const alternatives = range.split("||").map((alt): Predicate => {
    const set = alt.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1");
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(set);
    if (hyphen) {
      const upper = parts(hyphen[2]);
      const max = comparator(upper.length === 3 ? "<=" : "<", upper.length === 3 ? hyphen[2] : bump(upper, upper.length - 1).join("."));
      const min = comparator(">=", hyphen[1]);
      return (v) => min(v) && max(v);
    }
    const preds = (set === "" ? ["*"] : set.split(/\s+/)).map((c) => {
      const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(c);
      if (!m) throw new Error(`cannot read "${c}"`);
      return comparator(m[1] ?? "", m[2]);
    });
    return (v) => preds.every((pred) => pred(v));
  });
  return (v) => alternatives.some((alt) => alt(v));
}

const admits = (range: string, version: string): boolean => satisfiesRange(range)(filled(parts(version)));

test("the range check reads engines ranges as npm does", () => {
  const cases: [string, string, boolean][] = [
    [">=20", "20.0.0", true],
    [">=22.0.0", "20.0.0", false],
    [">=20.18.1", "20.0.0", false],
    [">= 16.0.0", "20.0.0", true],
    ["^12.20 || >= 14.13", "20.0.0", true],
    ["^12.20.0 || ^14.13.1 || >=16.0.0", "14.13.0", false],
    ["^20", "22.0.0", false],
    ["^20", "20.9.0", true],
    ["~20.1", "20.2.0", false],
    [">= 10.x", "20.0.0", true],
    ["*", "20.0.0", true],
    ["18 - 20", "20.5.0", true],
    ["18 - 20", "21.0.0", false],
    [">4", "4.5.0", false],
    ["<=20", "20.9.9", true],
    ["<20.0.0", "20.0.0", false],
  ];
  for (const [range, version, expected] of cases) assert.equal(admits(range, version), expected, `"${range}" admits ${version}`);
  assert.throws(() => admits("latest", "20.0.0"), /not a version/);
});

test("every package a production install brings runs on every Node version pith's engines admit", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } };
  const ours = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(pkg.engines.node);
  assert.ok(ours, `package.json engines.node is "${pkg.engines.node}": this test reads a ">=X" range only`);
  const lowest = filled(parts(ours[1]));
  // the lowest version we promise, and the first release of each later line: a range with an
  // upper end ("^20") excludes Node versions we promise as surely as a higher floor does
  const promised: Version[] = [lowest, ...Array.from({ length: 20 }, (_, i): Version => [lowest[0] + 1 + i, 0, 0])];

  const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; dev?: boolean; engines?: unknown }>;
  };
  const offenders: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === "" || entry.dev) continue;
    const node = (entry.engines as { node?: unknown } | undefined)?.node;
    if (typeof node !== "string") continue;
    const name = path.replace(/^.*node_modules\//, "");
    let pred: Predicate;
    try {
      pred = satisfiesRange(node);
    } catch (err) {
      offenders.push(`${name}@${entry.version} declares engines.node "${node}", which this test cannot read (${(err as Error).message})`);
      continue;
    }
    const excluded = promised.filter((v) => !pred(v));
    if (excluded.length > 0) offenders.push(`${name}@${entry.version} requires node "${node}", excluding ${excluded.map((v) => v.join(".")).join(", ")}`);
  }
  assert.deepEqual(offenders, [], `package.json promises node "${pkg.engines.node}", but:\n${offenders.join("\n")}`);
});
