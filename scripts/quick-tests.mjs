// Which test files belong in the quick loop (`npm run test:quick`): those that run in the test's
// own process (and small node children of their own), so the loop needs no build of dist/ and
// stays under a minute on two cores. Out of it: every file that starts bin/pith (the daemon, the
// CLI, `pith acp`), a browser, PostgreSQL or bubblewrap, the benches' smoke tests, and the few
// files marked as costly. A file says what it starts by the helpers it uses, so the rule reads the
// file's text and no list has to be kept in step by hand; test/README.md says the same for people.
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";

/** the daemon's end-to-end tests and the benches' smoke tests, whatever helpers they use */
const OUT_OF_PROCESS_DIRS = ["daemon", "bench"];

/** what a file names when it starts one of those (the helpers in test/support, or bin/pith and bwrap themselves) */
const OUT_OF_PROCESS_USES = [
  /\b(startRpcDaemon|startServeDaemon|runPith|DaemonProcess|startAcp|runBin|runAsUser|installFor|bwrapProblem)\b/,
  /support\/(acp-daemon|raw-lines|user-run|as-user|web-harness|postgres|pg-store)\.js/,
  /\bBIN\b|bin\/pith|"bin", "pith"/,
  /\bbwrap\b/,
];

/**
 * A file that starts none of those but costs seconds of CPU on purpose (races, crashes, a whole-tree
 * scan) says so in a line of its own: `// full suite only: <why>`.
 */
const FULL_SUITE_ONLY = /^\/\/ full suite only: /m;

/** true for a test file (a path relative to the checkout, test/...) the quick loop runs */
export function isQuick(root, file) {
  if (OUT_OF_PROCESS_DIRS.includes(file.split(sep)[1])) return false;
  const source = readFileSync(join(root, file), "utf8");
  return !FULL_SUITE_ONLY.test(source) && !OUT_OF_PROCESS_USES.some((re) => re.test(source));
}
