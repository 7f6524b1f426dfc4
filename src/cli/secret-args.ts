// Secrets on the command line: every local user can read a process's arguments (`ps`,
// /proc/<pid>/cmdline), so a token or a database password given as `--token T`,
// `--cluster-token T` or `--store postgres://user:pw@...` is no secret on a shared machine. Each
// has a file form (`--token-file F`, `--cluster-token-file F`, `--store-file F`: the file is read
// once at start, surrounding white space dropped) and a variable (PITH_TOKEN, PITH_CLUSTER_TOKEN,
// PITH_STORE: a process's environment is readable by its own user only). The argument form still
// works, and says which safer form to use.
import { readFileSync } from "node:fs";

/**
 * A secret's value from its flag, its file flag or its variable, with the name it came from (for
 * messages); undefined when none gives one; a usage error message when both the flag and its
 * file flag are given, or the file cannot be read or is empty.
 */
export function secretSetting(
  get: (flag: string) => string | undefined,
  env: NodeJS.ProcessEnv,
  names: { flag: string; fileFlag: string; variable: string },
): { value: string; source: string } | string | undefined {
  const inline = get(names.flag);
  const file = get(names.fileFlag);
  if (inline !== undefined && file !== undefined) return `give ${names.flag} or ${names.fileFlag}, not both`;
  if (file !== undefined) {
    const value = readSecretFile(file);
    if (!value.ok) return `cannot use ${names.fileFlag} ${file}: ${value.error}`;
    return { value: value.text, source: names.fileFlag };
  }
  if (inline !== undefined) return { value: inline, source: names.flag };
  const fromEnv = env[names.variable];
  return fromEnv ? { value: fromEnv, source: names.variable } : undefined;
}

/** The file's text without surrounding white space (a trailing newline from `echo`), or why not. */
function readSecretFile(file: string): { ok: true; text: string } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, error: e.code ?? e.message };
  }
  return text === "" ? { ok: false, error: "it is empty" } : { ok: true, text };
}

/** Whether a database URL carries a password (`postgres://user:pw@host/db`, or `?password=`). */
function urlHasPassword(value: string): boolean {
  if (/[?&]password=/i.test(value)) return true;
  try {
    return new URL(value).password !== "";
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:[^@/]+@/i.test(value);
  }
}

/** One warning per secret given as a command-line argument, naming the safer forms. */
export function commandLineSecretWarnings(get: (flag: string) => string | undefined): string[] {
  const warnings: string[] = [];
  const readable = "is readable by every local user (ps, /proc/<pid>/cmdline)";
  if (get("--token") !== undefined) warnings.push(`--token on the command line ${readable}: use --token-file FILE or PITH_TOKEN`);
  if (get("--cluster-token") !== undefined) warnings.push(`--cluster-token on the command line ${readable}: use --cluster-token-file FILE or PITH_CLUSTER_TOKEN`);
  const store = get("--store");
  if (store !== undefined && urlHasPassword(store)) warnings.push(`the password in --store on the command line ${readable}: use --store-file FILE or PITH_STORE (or ~/.pgpass)`);
  return warnings;
}
