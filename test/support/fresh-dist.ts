// The daemon under test is the code under test: bin/pith runs the compiled dist/ and `pith serve`
// serves clients/web/dist, so the tests that start them make sure both match the sources first.
// Importing this module does it for dist/: built here, under the build lock, when a test file is
// run directly (node --test file.ts); under npm test (scripts/run-tests.mjs built it already,
// PITH_TESTS_BUILT=1) only checked, and a stale dist/ fails the file with the list of changed
// files. See scripts/fresh-dist.mjs.
import { ensureFresh, staleDist, type Freshness } from "../../scripts/fresh-dist.mjs";

/** npm test built dist/ (and the web bundle, for test/web) before starting the files */
export const builtByRunner = process.env.PITH_TESTS_BUILT === "1";

/**
 * npm run test:quick: its files start no bin/pith (scripts/quick-tests.mjs), so a file that
 * imports the daemon helpers for something else (poll, byType) must not build dist/ either.
 */
const quickLoop = process.env.PITH_TESTS_QUICK === "1";

/** What was stale when this process looked (and was built, unless under npm test or the quick loop). */
export const distFreshness: Freshness = ensureFresh({ build: !builtByRunner && !quickLoop });

/** The web bundle too (for the tests that load the UI): built under the lock when stale, or, under npm test, checked. */
export function ensureWebBundle(): Freshness {
  return ensureFresh({ web: true, build: !builtByRunner });
}

export { staleDist };
