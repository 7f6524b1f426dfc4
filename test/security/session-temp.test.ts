// Each session's temp dir (spilled outputs): private, removed at close (see sandbox-limits.test.ts
// for the daemon flow), and left-overs of a daemon that died are removed by the next one.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createSessionTempDir, removeSessionTempDirsOf, removeStaleSessionTempDirs } from "../../src/host/policy/session-temp.js";

const SESSION = "0123abcd-4567-89ef-0123-456789abcdef";

test("a session's temp dir is private, under the OS temp dir, and found by its session id", async () => {
  const dir = createSessionTempDir(SESSION)!;
  assert.ok(dir.startsWith(join(tmpdir(), `pith-${process.pid}-0123abcd`)), dir);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  await removeSessionTempDirsOf(SESSION);
  assert.equal(existsSync(dir), false);
});

test("directories of a daemon that is gone are removed; a live daemon's are kept", () => {
  const dead = spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();
  const stale = join(tmpdir(), `pith-${dead}-0123abcd0123abcd-stale1`);
  const live = join(tmpdir(), `pith-${process.ppid}-0123abcd0123abcd-live01`);
  mkdirSync(join(stale, "inner"), { recursive: true });
  mkdirSync(live, { recursive: true });
  try {
    removeStaleSessionTempDirs();
    assert.equal(existsSync(stale), false, "the dead daemon's directory is gone");
    assert.equal(existsSync(live), true, "a running daemon's directory stays");
  } finally {
    rmSync(stale, { recursive: true, force: true });
    rmSync(live, { recursive: true, force: true });
  }
});
