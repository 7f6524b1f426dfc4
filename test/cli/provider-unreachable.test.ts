// `pith -p` with its local OpenAI-compatible server down, through the real binary: every retry
// and the final failure name the provider, its URL and what to check. Piped, one line per
// attempt; on a terminal (a pseudo-terminal from script(1)), one line rewritten by each retry
// and then replaced by the failure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { closedPort } from "../support/closed-port.js";
import { BIN, daemonEnv, runPith, writeSettings } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

async function stage(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const cwd = tempDir(t);
  const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  writeSettings(home, { providers: { local: { api: "openai-completions", baseUrl } }, model: "local/qwen3-coder" });
  const worded = `cannot reach provider local at ${baseUrl} (connection refused); is the server running? \`pith models\` lists what pith can reach`;
  return { home, cwd, worded, env: { PITH_RETRY_DELAY_MS: "1" } };
}

test("piped: one line per attempt, then the failure, each naming the provider and its URL", async (t) => {
  const s = await stage(t);
  const r = await runPith(["-p", "hello"], s);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trimEnd().split("\n");
  assert.deepEqual(lines, [1, 2, 3].map((n) => `… ${s.worded}; retrying in ${2 ** (n - 1)} ms (attempt ${n} of 3)`).concat(`pith: the run failed: ${s.worded}`));
  assert.doesNotMatch(r.stderr, /fetch failed/);
});

test("on a terminal: one retry line rewritten in place, then replaced by the failure", { skip: existsSync("/usr/bin/script") ? false : "no script(1)" }, async (t) => {
  const s = await stage(t);
  const shellQuote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
  const r = spawnSync("/usr/bin/script", ["-qec", [BIN, "-p", "hello"].map(shellQuote).join(" "), "/dev/null"], { cwd: s.cwd, env: daemonEnv(s), encoding: "utf8", timeout: 20_000 });
  assert.equal(r.status, 1, r.stdout);
  const out = r.stdout.replace(/\r\n/g, "\n");
  const erase = "\r\x1b[2K";
  // no retry line ends with a newline: each is erased and rewritten, the last by the failure
  assert.equal(out.match(/retrying in/g)?.length, 3, JSON.stringify(out));
  assert.doesNotMatch(out, /retrying in [^\n\r]*\n/);
  assert.ok(out.includes(`${erase}… ${s.worded}; retrying in 2 ms (attempt 2 of 3)`), JSON.stringify(out));
  assert.ok(out.endsWith(`${erase}pith: the run failed: ${s.worded}\n`), JSON.stringify(out));
});
