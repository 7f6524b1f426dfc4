// The probe of what memory-backed space a sandboxed command can fill (sandbox-dev.test.ts, as
// root; sandbox-as-user.test.ts, as a normal user, where rlimits and no cgroup are the limits):
// 64 MiB written into each of /dev/shm, /tmp and /dev with sandbox.limits.tmpMB = 16.
import assert from "node:assert/strict";

export const PROBE_TMP_MB = 16;

/** Fills each place, then prints what df, mountinfo and the device nodes say. */
export const MEMORY_BACKED_PROBE = [
  "for d in /dev/shm /tmp /dev; do dd if=/dev/zero of=$d/fill bs=1M count=64 2>&1 | grep -o -m1 -e 'No space left on device' -e 'Read-only file system' | sed \"s|^|$d: |\"; done",
  "df -k /dev/shm /tmp | awk 'NR > 1 { print \"size\", $6, $2 }'",
  "ls -s --block-size=1M /dev/shm/fill /tmp/fill 2>/dev/null | awk '{ print \"filled\", $2, $1 }'",
  "[ -e /dev/fill ] && echo dev-written || echo dev-untouched",
  "mkdir /dev/new 2>/dev/null && echo dev-mkdir || echo dev-no-mkdir",
  // the mount the command sees at /dev is the last one listed there
  "awk '$5 == \"/dev\" { o = $6 } END { split(o, f, \",\"); print \"dev mount\", f[1] }' /proc/self/mountinfo",
  "echo x > /dev/null && head -c 8 /dev/urandom | wc -c | sed 's/^/urandom /'; head -c 3 /dev/zero | wc -c | sed 's/^/zero /'",
].join("; ");

/** What must hold: /dev/shm and /tmp full at their shares of 16 MiB (4 + 12), /dev read-only, the device nodes working. */
export function assertMemoryBounded(text: string): void {
  assert.match(text, /^\/dev\/shm: No space left on device$/m, text);
  assert.match(text, /^\/tmp: No space left on device$/m, text);
  assert.match(text, /^\/dev: Read-only file system$/m, text);
  assert.match(text, /^size \/dev\/shm 4096$/m, `/dev/shm gets a quarter of tmpMB: ${text}`);
  assert.match(text, /^size \/tmp 12288$/m, `/tmp gets the rest: ${text}`);
  for (const m of text.matchAll(/^filled (\S+) (\d+)$/gm)) assert.ok(Number(m[2]) <= PROBE_TMP_MB, `${m[1]} holds ${m[2]} MiB`);
  assert.match(text, /^dev-untouched$/m, text);
  assert.match(text, /^dev-no-mkdir$/m, text);
  assert.match(text, /^dev mount ro$/m, text);
  assert.match(text, /^urandom 8$/m, text);
  assert.match(text, /^zero 3$/m, text);
}
