// How a transient provider failure is retried: three more attempts, waiting 2 s, 4 s, 8 s (or
// the server's retry-after). PITH_RETRY_DELAY_MS sets the first wait (each later one doubles),
// for a user who would rather hear at once that a local server is down, and for tests.
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export function retryPolicy(env: NodeJS.ProcessEnv): RetryPolicy {
  const v = Number(env.PITH_RETRY_DELAY_MS);
  const baseDelayMs = env.PITH_RETRY_DELAY_MS !== undefined && env.PITH_RETRY_DELAY_MS !== "" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 2000;
  return { maxAttempts: 3, baseDelayMs, maxDelayMs: 60_000 };
}
