// Temporary directories for tests, removed when the test ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

export function tempDir(t: TestContext | { after(fn: () => void): void }, prefix = "pith-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const repoRoot = new URL("../../", import.meta.url).pathname;
