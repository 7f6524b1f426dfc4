// The command line an editor's terminal runs for the model's bash (ACP terminal/create): a small
// launcher, `/bin/sh -c <LAUNCHER> pith-launch <dir> ...`, that becomes exactly what pith would
// spawn itself — bwrap with pith's arguments in a sandboxed session, `shell -c script` otherwise.
//
// Why a launcher and not the bare argv: the editor starts the process with an environment of its
// own choosing (ACP's `env` is what the agent adds; editors start from their own), and an editor's
// environment holds what tools must never see (the API key pith itself was started with, the
// editor's agent sockets). The launcher starts the command with `env -i` and the allow-listed
// environment only (tool-env.ts), read from a file in the command's private directory (0700), so
// no value appears on a command line. In a sandboxed session it also joins the command's cgroup
// and opens the descriptors the sandbox reads (sandbox-terminal.ts). stdin is /dev/null, as under
// pith's spawn: a command waiting for input gets end-of-file instead of waiting on the terminal.
//
// Everything the launcher is given comes as positional arguments; the scripts below are fixed
// text, so nothing from the model or the environment is ever parsed as shell code by it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TerminalRequest } from "./editor-ports.js";
import { findOnPath } from "./find-on-path.js";
import { TerminalSandbox } from "./sandbox-terminal.js";
import { sessionMounts } from "./sandbox.js";
import { toolEnvironment } from "./tool-env.js";
import type { ToolContext } from "./types.js";

/** Starts "$@" with only the variables set in the file $0 (`NAME='value'` lines). */
const CLEAN_ENV = `'set -a; . "$0"; set +a; exec "$@"'`;

/** Unsandboxed: `pith-launch DIR ENV SHELL -c SCRIPT`. */
const PLAIN = `d=$1; e=$2; shift 2
exec "$e" -i /bin/sh -c ${CLEAN_ENV} "$d/env" "$@" </dev/null`;

/**
 * Sandboxed: `pith-launch DIR ENV N PROCS... BWRAP ARGS...`. Joins the N cgroup.procs files (its
 * pid is then bwrap's), and passes the command's shell "cgroup" or "rlimit" as its $1.
 */
const sandboxed = (redirections: string) => `d=$1; e=$2; n=$3; shift 3; m=rlimit; [ "$n" -gt 0 ] && m=cgroup
while [ "$n" -gt 0 ]; do { echo $$ >"$1"; } 2>/dev/null || m=rlimit; shift; n=$((n - 1)); done
exec "$e" -i /bin/sh -c ${CLEAN_ENV} "$d/env" "$@" "$m" ${redirections} </dev/null`;

export interface TerminalLaunch {
  request: TerminalRequest;
  /** the sandbox's side of the handshake, in a sandboxed session */
  sandbox?: TerminalSandbox;
  /** removes the command's private directory */
  cleanup(): void;
}

let envPath: string | undefined;

/**
 * The command line for `shell -c script` in the editor's terminal, as ctx says it must run; the
 * editor keeps at most `outputLimit` bytes of its output (default: ctx.maxOutputBytes).
 */
export function terminalLaunch(ctx: ToolContext, shell: string, script: string, outputLimit = ctx.maxOutputBytes): TerminalLaunch {
  const dir = mkdtempSync(join(ctx.tempDir ?? tmpdir(), "terminal-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const env = ctx.env ?? toolEnvironment(process.env);
    writeFileSync(join(dir, "env"), envFile(env), { mode: 0o600 });
    const envBin = (envPath ??= findOnPath("env") ?? "/usr/bin/env");
    const request = (args: string[]): TerminalRequest => ({
      command: "/bin/sh",
      args: ["-c", ...args],
      env: definedOnly(env),
      cwd: ctx.cwd,
      ...(outputLimit !== undefined && Number.isFinite(outputLimit) ? { outputByteLimit: outputLimit } : {}),
    });
    if (!ctx.sandbox) return { request: request([PLAIN, "pith-launch", dir, envBin, shell, "-c", script]), cleanup };
    const sandbox = new TerminalSandbox(ctx.sandbox, sessionMounts(ctx), shell, script, dir);
    const args = [sandboxed(sandbox.redirections), "pith-launch", dir, envBin, String(sandbox.procsFiles.length), ...sandbox.procsFiles, ...sandbox.argv];
    return { request: request(args), sandbox, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** `NAME='value'` lines for the shell to read; names a shell cannot set are left out. */
function envFile(env: NodeJS.ProcessEnv): string {
  let out = "";
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    out += `${name}='${value.replace(/'/g, `'\\''`)}'\n`;
  }
  return out;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
