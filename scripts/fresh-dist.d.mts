// Types of fresh-dist.mjs (plain JavaScript so run-tests.mjs can use it without a TypeScript loader).
export declare const repoRoot: string;
/** src/ and protocol/ files newer than their compiled dist/ file (or without one). */
export declare function staleDist(root?: string): string[];
/** Sources of the web bundle newer than clients/web/dist (everything, when it is missing). */
export declare function staleWebBundle(root?: string): string[];
/** Runs fn holding dist/.build-lock. */
export declare function withBuildLock<T>(fn: () => T, root?: string): T;
/** What was stale (and built) when ensureFresh looked. */
export interface Freshness {
  dist: string[];
  web: string[];
}
/** Builds what is stale under the lock; with build: false, throws when something is stale. */
export declare function ensureFresh(options?: { web?: boolean; build?: boolean; root?: string }): Freshness;
