// The daemon's own secrets, as a user starts it:
// - the client token is made once in $PITH_HOME/token (0600) and kept: a restart used to write a
//   new one, refusing every open tab; two daemons starting at once agree on one; a token given
//   to a daemon (--token, --token-file) leaves the file alone (a second daemon used to overwrite
//   the first one's); `pith token --rotate` makes a new one;
// - secrets have file forms (--token-file, --cluster-token-file, --store-file) that keep them out
//   of /proc/<pid>/cmdline, readable by every local user; the argument forms warn.
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { WebSocket } from "ws";
import { checkDist, DaemonProcess, poll, runPith } from "../support/daemon-client.js";
import { postgresSkip, startPostgres } from "../support/postgres.js";
import { tempDir } from "../support/tmp.js";

interface Started {
  d: DaemonProcess;
  url: string;
  token: string;
}

/** `pith serve --port 0 ...args`; resolves with the URL and token its banner shows. */
async function serve(t: TestContext, home: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Started> {
  const d = new DaemonProcess(t, ["serve", "--port", "0", ...args], { home, cwd: home, env });
  const m = await poll(() => /open: (http:\/\/[^/\s]+)\/#token=(\S+)/.exec(d.stderr) ?? (d.exit ? null : undefined), "the serve banner", 20_000);
  if (!m) throw new Error(`serve exited ${JSON.stringify(d.exit)}:\n${d.stderr}`);
  return { d, url: m[1], token: m[2] };
}

async function stop(s: Started): Promise<void> {
  s.d.proc.kill("SIGTERM");
  assert.equal((await s.d.waitExit()).code, 0, s.d.stderr);
}

/** The HTTP status of a WebSocket upgrade with this bearer token (101 when accepted). */
function upgradeStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/rpc`, { headers: { authorization: `Bearer ${token}` } });
    ws.once("open", () => {
      ws.terminate();
      resolve(101);
    });
    ws.once("unexpected-response", (_req, res) => {
      ws.terminate();
      resolve(res.statusCode ?? 0);
    });
    ws.once("error", reject);
  });
}

function cmdline(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
}

test("the token file is made once (0600) and kept across restarts: a client's token still works; pith token --rotate makes a new one", async (t) => {
  checkDist(t);
  const home = tempDir(t);
  const tokenFile = join(home, "token");
  const first = await serve(t, home);
  assert.equal(readFileSync(tokenFile, "utf8"), first.token);
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
  await stop(first);

  const second = await serve(t, home);
  assert.equal(second.token, first.token, "the restarted daemon uses the same token");
  assert.equal(await upgradeStatus(second.url, first.token), 101, "a tab opened before the restart still gets in");
  await stop(second);

  const shown = await runPith(["token"], { home, cwd: home });
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, `${tokenFile}\n`, "pith token prints where the token is");
  assert.equal(readFileSync(tokenFile, "utf8"), first.token, "and leaves it alone");
  const rotated = await runPith(["token", "--rotate"], { home, cwd: home });
  assert.equal(rotated.code, 0, rotated.stderr);
  const fresh = readFileSync(tokenFile, "utf8");
  assert.notEqual(fresh, first.token, "--rotate makes a new token");
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
  const third = await serve(t, home);
  assert.equal(third.token, fresh);
  assert.equal(await upgradeStatus(third.url, first.token), 401, "the old token is refused after a rotation");
  await stop(third);
  const usage = await runPith(["token", "now"], { home, cwd: home });
  assert.equal(usage.code, 2, "a usage error exits 2");
});

test("two daemons started at once with no token file agree on one token", async (t) => {
  checkDist(t);
  const home = tempDir(t);
  const [a, b] = await Promise.all([serve(t, home), serve(t, home)]);
  assert.equal(a.token, b.token);
  assert.equal(readFileSync(join(home, "token"), "utf8"), a.token);
  await Promise.all([stop(a), stop(b)]);
});

test("a token file holding a short or malformed token stops the start (exit 2) and is left as it is", async (t) => {
  checkDist(t);
  for (const bad of ["short", "has spaces in it but is long enough"]) {
    const home = tempDir(t);
    writeFileSync(join(home, "token"), bad, { mode: 0o600 });
    const r = await runPith(["serve", "--port", "0"], { home, cwd: home, timeoutMs: 15_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /does not hold a token \(at least 16 of A-Z a-z 0-9 _ -\): run `pith token --rotate`/);
    assert.equal(readFileSync(join(home, "token"), "utf8"), bad, "never replaced silently");
  }
});

test("a token given to a daemon (--token-file, --token, PITH_TOKEN) leaves the token file alone; --token-file keeps it out of /proc/<pid>/cmdline; --token warns", async (t) => {
  checkDist(t);
  const home = tempDir(t);
  const kept = "kept-token_0123456789abcdefghijklmnop";
  writeFileSync(join(home, "token"), kept, { mode: 0o600 });
  const secret = "file-token_0123456789abcdefghijklmnop";
  const file = join(tempDir(t), "token.txt");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });

  const fromFile = await serve(t, home, ["--token-file", file]);
  assert.equal(fromFile.token, secret);
  assert.ok(!cmdline(fromFile.d.pid).includes(secret), cmdline(fromFile.d.pid));
  assert.match(fromFile.d.stderr, /token: from --token-file/);
  assert.doesNotMatch(fromFile.d.stderr, /readable by every local user/, "no warning for the file form");

  const inline = "inline-token_0123456789abcdefghijklmnop";
  const fromArg = await serve(t, home, ["--token", inline]);
  assert.equal(fromArg.token, inline, "the argument form still works");
  assert.match(fromArg.d.stderr, /--token on the command line is readable by every local user.*--token-file/);
  const fromEnv = await serve(t, home, [], { PITH_TOKEN: "env-token_0123456789abcdefghijklmnop" });
  assert.equal(fromEnv.token, "env-token_0123456789abcdefghijklmnop");
  assert.equal(readFileSync(join(home, "token"), "utf8"), kept, "no daemon given a token overwrote the file");
  await Promise.all([stop(fromFile), stop(fromArg), stop(fromEnv)]);
});

test("a fleet node started with --store-file and --cluster-token-file has neither the database password nor the cluster token in /proc/<pid>/cmdline; the argument forms warn", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  checkDist(t);
  const server = await startPostgres(t);
  const home = tempDir(t);
  // the test server trusts its socket: a password in the URL is carried and ignored
  const password = "db-password-4242";
  const url = server.url.replace("postgresql://pith@", `postgresql://pith:${password}@`);
  const cluster = "cluster-token_0123456789abcdefghijklmnop";
  const dir = tempDir(t);
  writeFileSync(join(dir, "store"), `${url}\n`, { mode: 0o600 });
  writeFileSync(join(dir, "cluster"), `${cluster}\n`, { mode: 0o600 });
  writeFileSync(join(dir, "token"), "client-token_0123456789abcdefghijklmnop\n", { mode: 0o600 });

  const safe = await serve(t, home, ["--store-file", join(dir, "store"), "--cluster-token-file", join(dir, "cluster"), "--token-file", join(dir, "token"), "--node-id", "safe"]);
  const args = cmdline(safe.d.pid);
  for (const s of [password, cluster, "client-token_"]) assert.ok(!args.includes(s), `${s} is in the command line: ${args}`);
  assert.doesNotMatch(safe.d.stderr, /readable by every local user/);

  const unsafe = await serve(t, tempDir(t), ["--store", url, "--cluster-token", cluster, "--node-id", "unsafe"]);
  assert.match(unsafe.d.stderr, /--cluster-token on the command line is readable by every local user.*--cluster-token-file/);
  assert.match(unsafe.d.stderr, /the password in --store on the command line is readable by every local user.*--store-file/);
  assert.ok(!unsafe.d.stderr.includes(password), "the warning does not repeat the password");
  await Promise.all([stop(safe), stop(unsafe)]);
});
