// How sandbox.limits.tmpMB is shared between the sandbox's two memory-backed file systems, so
// that all a command can fill in memory outside its own processes is bounded by that one setting.

/** /dev/shm's share of tmpMB: a quarter, at most Docker's default /dev/shm (64 MiB). */
const SHM_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The sizes of the sandbox's two tmpfs, in bytes, which add up to tmpMB: /dev/shm (POSIX shared
 * memory, semaphores: Python's multiprocessing, Chromium, PostgreSQL's dynamic shared memory)
 * gets a quarter of it, at most 64 MiB, and the private /tmp the rest.
 */
export function tmpfsSizes(tmpMB: number): { tmp: number; shm: number } {
  const total = tmpMB * 1024 * 1024;
  const shm = Math.min(SHM_MAX_BYTES, Math.floor(total / 4));
  return { tmp: total - shm, shm };
}
