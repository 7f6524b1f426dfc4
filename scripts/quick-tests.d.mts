// Types of quick-tests.mjs (plain JavaScript so run-tests.mjs can use it without a TypeScript loader).
/** true for a test file (a path relative to the checkout, test/...) the quick loop runs */
export declare function isQuick(root: string, file: string): boolean;
