// Test runner output in each language's usual form: a list of passing tests (tens of lines for a
// case of short outputs, hundreds for a long one) and, for a failing run, the failure's report
// with the error message the storyline plants or quotes.
import { phrase, snake, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

export type Lang = "ts" | "tsx" | "py" | "go" | "rs";

export interface Failure {
  test: string;
  file: string;
  /** the error text, verbatim */
  message: string;
}

export interface LogSpec {
  lang: Lang;
  project: string;
  testFiles: readonly string[];
  lines: number;
  failure?: Failure;
}

/** a test's name as words: a verb, a noun or two, a situation */
function testWords(rng: Prng, vocab: Vocabulary): string[] {
  const [verb, noun, extra] = phrase(rng, vocab);
  const when = rng.pick(["on empty input", "with a cursor", "for two accounts", "after a retry", "when stale", "in order", "without duplicates", "at the limit", "on timeout", "after restart"]);
  const third = /(ch|sh|s|x)$/.test(verb) ? `${verb}es` : /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ies` : `${verb}s`;
  return [third, noun, ...(extra ? [extra] : []), ...when.split(" ")];
}

const pascalWords = (words: string[]): string => words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");

export function testLog(rng: Prng, vocab: Vocabulary, spec: LogSpec): string {
  const out: string[] = [];
  let passed = 0;
  const perFile = Math.max(3, Math.ceil(spec.lines / spec.testFiles.length / (spec.lang === "go" ? 2 : 1)));
  for (const file of spec.testFiles) {
    if (out.length >= spec.lines) break;
    const n = rng.int(Math.ceil(perFile / 2), perFile);
    if (spec.lang === "py") {
      for (let i = 0; i < n; i++, passed++) out.push(`${file}::test_${snake(...testWords(rng, vocab))} PASSED`);
    } else if (spec.lang === "go") {
      for (let i = 0; i < n; i++, passed++) {
        const name = `Test${pascalWords(testWords(rng, vocab).slice(0, 4))}`;
        out.push(`=== RUN   ${name}`, `--- PASS: ${name} (${(rng.int(0, 90) / 100).toFixed(2)}s)`);
      }
      out.push(`ok  \t${file}\t${(rng.int(10, 900) / 100).toFixed(3)}s`);
    } else if (spec.lang === "rs") {
      for (let i = 0; i < n; i++, passed++) out.push(`test ${file}::tests::${snake(...testWords(rng, vocab))} ... ok`);
    } else {
      out.push(` ✓ ${file} (${n} tests) ${rng.int(4, 900)}ms`);
      for (let i = 0; i < n; i++, passed++) out.push(`   ✓ ${testWords(rng, vocab).join(" ")} ${rng.int(0, 40)}ms`);
    }
  }
  if (spec.lang === "py") {
    // pytest's progress column climbs to 100%
    const total = out.length;
    out.forEach((l, i) => (out[i] = `${l.padEnd(78)}[${String(Math.round(((i + 1) * 100) / total)).padStart(3)}%]`));
    out.unshift(`============================= test session starts ==============================`, `platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0`, `collected ${passed + (spec.failure ? 1 : 0)} items`, ``);
  }
  if (spec.lang === "rs") out.unshift(`   Compiling ${spec.project} v0.4.0 (/home/dev/${spec.project})`, `    Finished \`test\` profile [unoptimized + debuginfo] target(s) in ${(rng.int(150, 900) / 100).toFixed(2)}s`, ``, `running ${passed + (spec.failure ? 1 : 0)} tests`);
  const f = spec.failure;
  if (f) out.push(...failureBlock(spec.lang, f));
  out.push(...summary(rng, spec.lang, passed, f ? 1 : 0, spec.testFiles.length));
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
