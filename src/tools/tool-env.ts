// The environment tool processes get: the daemon's, minus pith's own secrets. A command the
// model runs must not be able to print the API key or the daemon's token (`env`, `echo $X`).

/** Always removed: the Messages API credentials and the daemon's tokens. */
export const PITH_SECRET_ENV: readonly string[] = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "PITH_TOKEN", "PITH_CLUSTER_TOKEN"];

/** `env` without pith's secrets and without the `extra` names (settings' secretEnv). */
export function toolEnvironment(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of PITH_SECRET_ENV) delete out[name];
  for (const name of extra) delete out[name];
  return out;
}
