// Opens a pg Pool. `pg` is imported here at run time, never at the top of a module, so a daemon on
// the file store never loads it: the other modules of this folder only `import type` from it and
// take the Pool they are given.
import type { Pool, PoolConfig } from "pg";

/**
 * A pool for the session store. An idle connection the server drops (a restart, a crash) emits an
 * 'error' on the pool, which would crash the process without a listener: it is passed to
 * `onError` (default: ignored; the next query fails and says why).
 */
export async function openPool(config: PoolConfig, onError: (err: Error) => void = () => {}): Promise<Pool> {
  const pg = (await import("pg")).default;
  const pool = new pg.Pool(config);
  pool.on("error", onError);
  return pool;
}
