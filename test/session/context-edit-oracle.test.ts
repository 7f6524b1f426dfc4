// The checked-in expectations (test/fixtures/context-edit/*.pi.json) are still what Pi 1.5.2 says:
// the Pi latest oracle reads each fixture again. It lives in ../shared/tools beside the clone and
// installs Pi 1.5.2 from the registry on its first run, so this runs only where that install is
// already in place (tests never reach the network) and skips, saying why, everywhere else.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { CONTEXT_EDIT_DIR, CONTEXT_EDIT_FIXTURES, PI_LATEST_ORACLE, piView } from "../support/context-edit-fixtures.js";

const installed = existsSync(join(homedir(), ".cache", "pi-oracle-1.5.2", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "session-manager.js"));
const skip = !PI_LATEST_ORACLE
  ? "the Pi latest oracle (../shared/tools/pi-latest-oracle.mjs) is not here; skipping"
  : !installed
    ? "Pi 1.5.2 is not installed for the oracle (~/.cache/pi-oracle-1.5.2; its first run installs it from the registry); skipping"
    : false;
if (skip) process.stderr.write(`[context-edit oracle] ${skip}\n`);

for (const name of CONTEXT_EDIT_FIXTURES) {
  test(`Pi 1.5.2 still reads ${name} as its checked-in view says`, { skip, timeout: 60_000 }, async () => {
    const { stdout } = await promisify(execFile)("node", [PI_LATEST_ORACLE!, "read", join(CONTEXT_EDIT_DIR, `${name}.jsonl`), "--messages"], { encoding: "utf8" });
    assert.deepEqual(JSON.parse(stdout), piView(name));
  });
}
