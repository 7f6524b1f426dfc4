// Guessing the token of `pith serve`: tens of thousands of wrong tokens a second used to be
// checked one by one, and `--token a` was accepted. Now an address that sent 20 wrong tokens
// within a minute is refused with 429 and Retry-After, its token not even looked at (the right
// one neither), while another address still gets in and successes never count; a token under 16
// characters (from --token or PITH_TOKEN) is a usage error at start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WebSocket } from "ws";
import { runPith, startServeDaemon, TEST_TOKEN } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

/** The HTTP status of an upgrade with this token from `localAddress` (101 when it opened), and Retry-After. */
function tryToken(url: string, token: string, localAddress: string): Promise<{ status: number; retryAfter?: string }> {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, localAddress, handshakeTimeout: 5000 });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      ws.terminate();
      resolve({ status: 101 });
    });
    ws.once("unexpected-response", (req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] });
      res.resume();
      req.destroy();
    });
    ws.once("error", reject);
  });
}

test("20 wrong tokens from one address → 429 with Retry-After for it, even with the right token; other addresses and successes unaffected", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const d = await startServeDaemon(t, { home });
  const attacker = "127.0.0.2";
  const owner = "127.0.0.3";

  // many successes never add up to a block
  for (let i = 0; i < 30; i++) assert.equal((await tryToken(d.wsUrl, TEST_TOKEN, owner)).status, 101);
  for (let i = 0; i < 19; i++) assert.equal((await tryToken(d.wsUrl, `wrong-token-${i}-0123456789`, owner)).status, 401);
  assert.equal((await tryToken(d.wsUrl, TEST_TOKEN, owner)).status, 101, "19 failures do not block");

  // a guessing loop, bounded: the first 20 are checked (401), everything after is refused unchecked
  const statuses: number[] = [];
  let retryAfter: string | undefined;
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) {
    const r = await tryToken(d.wsUrl, `guess-${i}-0123456789abcdef`, attacker);
    statuses.push(r.status);
    retryAfter ??= r.retryAfter;
  }
  t.diagnostic(`200 guesses from one address in ${(performance.now() - t0).toFixed(0)} ms: ${statuses.filter((s) => s === 401).length} checked (401), ${statuses.filter((s) => s === 429).length} refused (429)`);
  assert.deepEqual(statuses.slice(0, 20), new Array(20).fill(401));
  assert.deepEqual(statuses.slice(20), new Array(180).fill(429));
  assert.ok(retryAfter !== undefined && Number(retryAfter) >= 1 && Number(retryAfter) <= 30, `Retry-After: ${retryAfter}`);
  assert.equal((await tryToken(d.wsUrl, TEST_TOKEN, attacker)).status, 429, "the right token is not even checked while blocked");

  // another address (the owner's) still gets in, and the daemon still serves it
  assert.equal((await tryToken(d.wsUrl, TEST_TOKEN, owner)).status, 101);
  const peer = await d.connect(t);
  await peer.initialize();
  assert.equal(d.exit, null);
});

test("a token under 16 characters from --token or PITH_TOKEN is a usage error (exit 2) naming its source", { timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const run = (args: string[], env: Record<string, string> = {}) => runPith(["serve", "--port", "0", ...args], { home, cwd: home, env, timeoutMs: 15_000 });
  for (const [args, env, source] of [
    [["--token", "a"], {}, "--token"],
    [["--token", "fifteen-chars-x"], {}, "--token"],
    [[], { PITH_TOKEN: "short" }, "PITH_TOKEN"],
    [["--token", "x"], { PITH_TOKEN: "long-enough-token-0123" }, "--token"],
  ] as Array<[string[], Record<string, string>, string]>) {
    const r = await run(args, env);
    assert.equal(r.code, 2, `${args.join(" ")} ${JSON.stringify(env)}\n${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^pith: the token from ${source} is \\d+ characters; at least 16 are needed`, "m"));
    assert.doesNotMatch(r.stderr, /pith serving on/);
  }
  // 16 characters are enough (and the daemon says where it serves)
  const d = await startServeDaemon(t, { home, token: "sixteen-chars-ok" });
  await (await d.connect(t)).initialize();
});
