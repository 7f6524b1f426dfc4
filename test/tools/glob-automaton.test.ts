// The glob automaton means what the old regular-expression compiler meant (checked against it on
// many small generated globs and paths), and takes time linear in the path whatever the glob.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CompiledGlob, globMatches } from "../../src/tools/glob.js";
import { globToRegExp } from "../support/glob-regex.js";
import { rng } from "../support/random.js";

const PIECES = ["a", "b", ".", "/", "*", "**", "?", "[ab]", "[!a]", "[a-c]", "{a,b}", "{a,*/b}", "\\*", "-", "[", "{"];
const PATH_CHARS = ["a", "b", "c", ".", "/", "*", "-", "[", "{"];

test("the automaton agrees with the old regular expressions on 20,000 generated globs and paths", () => {
  const r = rng(42);
  let checked = 0;
  for (let i = 0; i < 20_000; i++) {
    let glob = "";
    for (let n = 1 + r.int(5); n > 0; n--) glob += r.pick(PIECES);
    let path = "";
    for (let n = r.int(8); n > 0; n--) path += r.pick(PATH_CHARS);
    let expected: boolean;
    try {
      expected = globToRegExp(glob).test(path);
    } catch {
      // the old compiler made an invalid expression (e.g. a reversed range): the new one refuses too
      assert.throws(() => globMatches(glob, path), glob);
      continue;
    }
    assert.equal(globMatches(glob, path), expected, `glob ${JSON.stringify(glob)} on ${JSON.stringify(path)}`);
    checked++;
  }
  assert.ok(checked > 15_000);
});

// Settled reading (glob.ts): "**" spans segments when it is a whole segment once the braces
// around it are expanded, so `{src/**,test/**}` works; beside a brace group it is a "*" (a shell,
// expanding braces first, would read "{,a}**" as a whole "**": pith never expands braces).
test("a ** inside an option is whole-segment where its group is; beside a brace group it is a plain *", () => {
  for (const [glob, path, expected] of [
    ["{,a}**", "x/y", false],
    ["{,a}**", "xy", true],
    ["{,a}**", "axy", true],
    ["**{,a}", "x/y", false],
    ["**{,a}", "xya", true],
    ["{**/,}b", "x/y/b", true],
    ["{**/,}b", "b", true],
    ["{a/**,c}", "a/x/y", true],
    ["{src/**,test/**}", "test/a/b.ts", true],
    ["{src/**,test/**}", "lib/a.ts", false],
    ["{src/**,test/**}/x", "src/a/b/x", true],
    ["x{**,y}", "x/a/b", false],
    ["x{**,y}", "xab", true],
    ["{**,y}x", "a/bx", false],
    ["{a,{b,**}}", "q/r", true],
    ["{[}],**}", "q/r", true],
  ] as const) {
    assert.equal(globMatches(glob, path), expected, `glob ${glob} on ${path}`);
  }
});

test("a hostile glob costs work linear in the name: 8x the name, about 8x the states visited", () => {
  // `*a*a*a...b` against a name of a's is exponential for a backtracking engine (8.9 s for 36
  // characters with ten stars); the automaton's work is counted, not timed, so this cannot flake
  const glob = new CompiledGlob(`${"*a".repeat(12)}b`);
  const steps = (n: number) => {
    const stats = { steps: 0 };
    assert.equal(glob.matches("a".repeat(n), stats), false);
    return stats.steps;
  };
  const small = steps(200);
  const large = steps(1600);
  assert.ok(small > 0);
  // a constant start-up aside, exactly linear; a backtracking engine would need 2^(n) steps
  assert.ok(large <= 9 * small, `8x the name visited ${(large / small).toFixed(2)}x the states`);
});
