// Test runner output in each language's usual form: the suite's tests passing (tens of lines for a
// case of short outputs, hundreds for a long one; a run of one file when there is no room for the
// whole suite) and, for a failing run, the failure's report with the error message the storyline
// plants or quotes.
import { phrase, snake, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

export type Lang = "ts" | "tsx" | "py" | "go" | "rs";

export interface Failure {
  test: string;
  file: string;
  /** the error text, verbatim */
  message: string;
}

/** the project's tests: the same names on every run, as a real suite has */
export interface Suite {
  lang: Lang;
  project: string;
  files: { file: string; tests: string[] }[];
}

/** a test's name as words: a verb, a noun or two, a situation */
function testWords(rng: Prng, vocab: Vocabulary): string[] {
  const [verb, noun, extra] = phrase(rng, vocab);
  const when = rng.pick(["on empty input", "with a cursor", "for two accounts", "after a retry", "when stale", "in order", "without duplicates", "at the limit", "on timeout", "after restart"]);
  const third = /(ch|sh|s|x)$/.test(verb) ? `${verb}es` : /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ies` : `${verb}s`;
  return [third, noun, ...(extra ? [extra] : []), ...when.split(" ")];
}

const pascalWords = (words: string[]): string => words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");

/** a suite of about `tests` tests over `testFiles`, named in the language's style */
export function makeSuite(rng: Prng, vocab: Vocabulary, lang: Lang, project: string, testFiles: readonly string[], tests: number): Suite {
  const files = testFiles.map((file) => {
    const names = new Set<string>();
    const n = rng.int(Math.ceil((tests / testFiles.length) * 0.7), Math.ceil((tests / testFiles.length) * 1.3));
    for (let i = 0; i < n * 3 && names.size < n; i++) {
      const w = testWords(rng, vocab);
      names.add(lang === "go" ? `Test${pascalWords(w.slice(0, 4))}` : lang === "py" ? `test_${snake(...w)}` : lang === "rs" ? snake(...w) : w.join(" "));
    }
    return { file, tests: [...names] };
  });
  return { lang, project, files };
}

/** lines a run of the whole suite prints */
export const suiteLines = (suite: Suite): number => suite.files.reduce((n, f) => n + f.tests.length * (suite.lang === "go" ? 2 : 1) + 1, 6);

/** one run of the suite, or of one of its files, failing with `failure` when given */
export function testLog(rng: Prng, suite: Suite, failure?: Failure, only?: string): string {
  const lang = suite.lang;
  const files = suite.files.filter((f) => only === undefined || f.file === only);
  const out: string[] = [];
  let passed = 0;
  for (const { file, tests } of files) {
    passed += tests.length;
    if (lang === "py") for (const t of tests) out.push(`${file}::${t} PASSED`);
    else if (lang === "go") {
      for (const t of tests) out.push(`=== RUN   ${t}`, `--- PASS: ${t} (${(rng.int(0, 90) / 100).toFixed(2)}s)`);
      out.push(`ok  \t${file}\t${(rng.int(10, 900) / 100).toFixed(3)}s`);
    } else if (lang === "rs") for (const t of tests) out.push(`test ${file}::tests::${t} ... ok`);
    else {
      out.push(` ✓ ${file} (${tests.length} tests) ${rng.int(4, 900)}ms`);
      for (const t of tests) out.push(`   ✓ ${t} ${rng.int(0, 40)}ms`);
    }
  }
  if (lang === "py") {
    // pytest's progress column climbs to 100%
    const total = out.length;
    out.forEach((l, i) => (out[i] = `${l.padEnd(78)}[${String(Math.round(((i + 1) * 100) / total)).padStart(3)}%]`));
    out.unshift(`============================= test session starts ==============================`, `platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0`, `collected ${passed + (failure ? 1 : 0)} items`, ``);
  }
  if (lang === "rs") out.unshift(`   Compiling ${suite.project} v0.4.0 (/home/dev/${suite.project})`, `    Finished \`test\` profile [unoptimized + debuginfo] target(s) in ${(rng.int(150, 900) / 100).toFixed(2)}s`, ``, `running ${passed + (failure ? 1 : 0)} tests`);
  if (failure) out.push(...failureBlock(lang, failure));
  out.push(...summary(rng, lang, passed, failure ? 1 : 0, files.length));
  return out.join("\n");
}

function failureBlock(lang: Lang, f: Failure): string[] {
  switch (lang) {
    case "py":
      return ["", "=================================== FAILURES ===================================", `_________________________ ${f.test} _________________________`, "", `    def ${f.test}():`, `>       result = run_stage(fixture)`, `E       ${f.message}`, "", `${f.file}: AssertionError`];
    case "go":
      return [`=== RUN   ${f.test}`, `    ${f.file}: ${f.message}`, `--- FAIL: ${f.test} (0.02s)`, "FAIL"];
    case "rs":
      return [`test ${f.test} ... FAILED`, "", "failures:", "", `---- ${f.test} stdout ----`, `thread '${f.test}' panicked at ${f.file}:`, f.message, "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"];
    default:
      return [` ❯ ${f.file}`, `   × ${f.test}`, "", " FAIL  " + `${f.file} > ${f.test}`, f.message, ` ❯ ${f.file}`];
  }
}

function summary(rng: Prng, lang: Lang, passed: number, failed: number, files: number): string[] {
  const secs = (rng.int(80, 4000) / 100).toFixed(2);
  switch (lang) {
    case "py":
      return [`${failed ? `=========== ${failed} failed, ` : "=========== "}${passed} passed in ${secs}s ===========`];
    case "go":
      return [failed ? `FAIL\t(${passed} passed, ${failed} failed)` : `PASS (${passed} tests, ${files} packages)`];
    case "rs":
      return ["", `test result: ${failed ? "FAILED" : "ok"}. ${passed} passed; ${failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in ${secs}s`];
    default:
      return ["", ` Test Files  ${failed ? `1 failed | ${files - 1} passed` : `${files} passed`} (${files})`, `      Tests  ${failed ? `${failed} failed | ` : ""}${passed} passed (${passed + failed})`, `   Duration  ${secs}s`];
  }
}
