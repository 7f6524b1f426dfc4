// The environment tool processes get (the model's bash and the user's own `bash` method, whose
// output the model reads): an allow-list, never the daemon's whole environment. A daemon's
// environment holds what its tools must not see: the store's URL with its password
// (PITH_STORE, PG*), the tokens, the API keys, the agent sockets (SSH_AUTH_SOCK, DBUS_*). A
// deny-list misses whatever it did not foresee; an allow-list misses only what the user names.
//
// What a command gets:
//   1. the fixed names below (present in the daemon's environment),
//   2. plus the names in the user's `allowEnv` setting,
//   3. minus the names in `secretEnv`,
//   4. minus the never-list. Its hard part (pith's own secrets and the doors to other
//      credentials) wins even over `allowEnv`; its soft part (names that look like credentials:
//      *_KEY, *_TOKEN, *_SECRET, *_PASSWORD) is dropped from the fixed set but may be given by
//      naming it exactly in `allowEnv` (`NPM_TOKEN` for a project's install), since the user
//      then asked for that one variable knowingly.

/**
 * The fixed set. Each is needed for ordinary commands to behave as in the user's shell and none
 * carries a credential: where programs are (PATH), who and where the user is (HOME, USER,
 * LOGNAME, SHELL), text encoding and locale (LANG, LANGUAGE, LC_*), the terminal's abilities
 * (TERM, COLORTERM, NO_COLOR), temporary files (TMPDIR), the time zone (TZ) and the XDG base
 * folders tools keep their caches in. Not in it: PWD and OLDPWD (bash sets them from the real
 * cwd; the daemon's would lie), EDITOR and VISUAL (a non-interactive command must not start an
 * editor), proxies (their URLs may carry a password: name them in allowEnv), XDG_RUNTIME_DIR
 * (it leads to the user's agent and bus sockets).
 */
const FIXED = new Set(["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR", "TMPDIR", "TZ", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"]);
const FIXED_PATTERNS = [/^LC_[A-Z_]+$/];

/**
 * Never given, even when named in allowEnv: pith's own settings and secrets (PITH_*: the token,
 * the cluster token, the store URL), the PostgreSQL client's (PG*: PGPASSWORD, PGPASSFILE,
 * PGSERVICE...), the model providers' keys pith itself uses (ANTHROPIC_*, OPENAI_*), and the
 * sockets that lend the user's credentials to whoever can reach them (SSH_AUTH_SOCK, DBUS_*).
 */
const NEVER = [/^PITH_/, /^PG/, /^ANTHROPIC_/, /^OPENAI_/, /^SSH_AUTH_SOCK$/, /^DBUS_/];

/** Never given unless allowEnv names the variable exactly: names that look like credentials. */
const CREDENTIAL_LIKE = /(_KEY|_TOKEN|_SECRET|_PASSWORD)$/;

/** Whether the variable may never reach a tool process, whatever the settings say. */
function neverGiven(name: string): boolean {
  return NEVER.some((re) => re.test(name.toUpperCase()));
}

function fixed(name: string): boolean {
  return FIXED.has(name) || FIXED_PATTERNS.some((re) => re.test(name));
}

export interface ToolEnvOptions {
  /** the user's allowEnv: more names tool processes get */
  allow?: readonly string[];
  /** the settings' secretEnv: names never given */
  secret?: readonly string[];
}

/** The environment a tool process gets out of the daemon's `env`. */
export function toolEnvironment(env: NodeJS.ProcessEnv, options: ToolEnvOptions = {}): NodeJS.ProcessEnv {
  const allowed = new Set(options.allow ?? []);
  const secret = new Set(options.secret ?? []);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || secret.has(name) || neverGiven(name)) continue;
    if (allowed.has(name) || (fixed(name) && !CREDENTIAL_LIKE.test(name))) out[name] = value;
  }
  return out;
}
