// bin/pith as a user runs it: the compiled CLI, from a directory of the test's choosing, in the
// environment a user would have (no test-runner or tsx hooks, no log level, no API key, no store
// variables), with stdin closed (the stdio modes end at once), killed after 30 s.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { repoRoot } from "./tmp.js";

export const BIN = join(repoRoot, "bin", "pith");

/** Variables a user's shell might hold that would change what pith does. */
const USER_SHELL_NOISE = ["NODE_OPTIONS", "NODE_TEST_CONTEXT", "PITH_LOG_LEVEL", "PITH_LOG_FORMAT", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "PITH_TOKEN", "PITH_STORE", "PITH_NODE_ID", "PITH_NODE_URL", "PITH_CLUSTER_TOKEN", "PITH_TLS_CA", "PITH_WORKSPACE_ROOTS"];

export function userEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PITH_HOME: home };
  for (const key of USER_SHELL_NOISE) delete env[key];
  // the offline demo model without its reading pace (PITH_DEMO_PACE_MS: "" restores it)
  return { ...env, PITH_DEMO_PACE_MS: "0", ...extra };
}

export interface UserRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runAsUser(args: string[], opts: { cwd: string; home: string; env?: Record<string, string> }): Promise<UserRun> {
  return runBin(args, { cwd: opts.cwd, env: userEnv(opts.home, opts.env), timeoutMs: 30_000 });
}

/** bin/pith to its end, stdin closed, its output collected (killed after timeoutMs). */
export function runBin(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<UserRun> {
  const start = performance.now();
  const child = spawn(BIN, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"], timeout: opts.timeoutMs, killSignal: "SIGKILL" });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr, ms: performance.now() - start }));
  });
}
