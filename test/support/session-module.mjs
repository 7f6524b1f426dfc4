// For child processes of the tests: the session store module the parent chose (see compileStore
// in line-child.ts): compiled from the current src/, or src/ itself when run through tsx.
const url = process.env.PITH_TEST_STORE_URL;
if (!url) throw new Error("PITH_TEST_STORE_URL is not set: start this script through LineChild (test/support/line-child.ts)");
export const store = await import(url);
