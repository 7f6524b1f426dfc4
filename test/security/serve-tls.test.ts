// `pith serve` off loopback must not carry the token and every event in clear: with
// --tls-cert/--tls-key the one port speaks https:// and wss:// only. A self-signed certificate is
// made here with openssl; a client that trusts it connects over wss and initializes, a plain ws://
// client (which would send the token in clear) gets nowhere, and a bad certificate or key is a
// startup error that names the file.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { test } from "node:test";
import { WebSocket } from "ws";
import { runPith, startServeDaemon, TEST_TOKEN } from "../support/daemon-client.js";
import { tempDir } from "../support/tmp.js";

function haveOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const skip = haveOpenssl() ? false : "openssl is not installed (Debian package: openssl)";

/** A self-signed certificate for 127.0.0.1 and its key, as files in `dir`. */
function selfSigned(dir: string, name = "server"): { certPath: string; keyPath: string; cert: Buffer } {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyPath, "-out", certPath, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { certPath, keyPath, cert: readFileSync(certPath) };
}

/** How a WebSocket attempt ended: "open", "refused <status>" or "error: <message>". */
function attempt(url: string, options: object): Promise<string> {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${TEST_TOKEN}` }, handshakeTimeout: 5000, ...options });
  return new Promise((resolve) => {
    ws.once("open", () => {
      ws.terminate();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(`refused ${res.statusCode}`);
      ws.terminate();
    });
    ws.once("error", (err) => resolve(`error: ${err.message}`));
  });
}

test("serve --tls-cert/--tls-key: https URL; wss with the cert as CA initializes; ws:// and an untrusting client get nowhere", { skip, timeout: 30_000 }, async (t) => {
  const home = tempDir(t);
  const { certPath, keyPath, cert } = selfSigned(tempDir(t));
  const d = await startServeDaemon(t, { home, args: ["--tls-cert", certPath, "--tls-key", keyPath], ca: cert });
  assert.match(d.stderr, /pith serving on https:\/\/127\.0\.0\.1:\d+ /);
  assert.match(d.stderr, /open: https:\/\/127\.0\.0\.1:\d+\/#token=/);
  assert.equal(d.wsUrl, `wss://127.0.0.1:${d.port}/rpc`);

  const peer = await d.connect(t);
  const init = await peer.initialize();
  assert.equal(typeof init.protocolVersion, "number");
  const s = await peer.request("createSession", { cwd: tempDir(t) });
  assert.equal(typeof s.sessionId, "string");

  // the same port, in clear: the TLS server sees no handshake and drops it
  assert.match(await attempt(`ws://127.0.0.1:${d.port}/rpc`, {}), /^error: /, "plain ws:// fails");
  // a client that does not trust the certificate refuses it (before it sends the token)
  assert.match(await attempt(d.wsUrl, {}), /^error: .*(self[- ]signed|certificate)/i);
  // the plain HTTP side (the web UI's files, GET /rpc → 426) is https too
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: d.port, path: "/rpc", ca: cert }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
  assert.equal(status, 426);
  // the daemon survived the failed handshakes
  assert.equal(await attempt(d.wsUrl, { ca: cert }), "open");
});

test("serve with a missing, unreadable or mismatched certificate or key exits 1 naming the file; one without the other exits 2", { skip, timeout: 60_000 }, async (t) => {
  const home = tempDir(t);
  const dir = tempDir(t);
  const a = selfSigned(dir, "a");
  const b = selfSigned(dir, "b");
  const missing = join(dir, "missing.crt");
  const aDir = join(dir, "a-directory.key");
  mkdirSync(aDir);
  const serve = (...args: string[]) => runPith(["serve", "--port", "0", "--token", TEST_TOKEN, ...args], { home, cwd: home, timeoutMs: 15_000 });
  const cases: Array<[string[], number, RegExp]> = [
    [["--tls-cert", missing, "--tls-key", a.keyPath], 1, /pith: cannot read --tls-cert .*missing\.crt: ENOENT/],
    [["--tls-cert", a.certPath, "--tls-key", aDir], 1, /pith: cannot read --tls-key .*a-directory\.key: EISDIR/],
    [["--tls-cert", a.certPath, "--tls-key", b.keyPath], 1, /pith: --tls-cert .*a\.crt and --tls-key .*b\.key do not belong together/],
    [["--tls-cert", a.keyPath, "--tls-key", a.keyPath], 1, /pith: --tls-cert .*a\.key is not a PEM certificate/],
    [["--tls-cert", a.certPath, "--tls-key", a.certPath], 1, /pith: --tls-key .*a\.crt is not a PEM private key/],
    [["--tls-cert", a.certPath], 2, /pith: --tls-cert and --tls-key go together/],
  ];
  for (const [args, code, message] of cases) {
    const r = await serve(...args);
    assert.equal(r.code, code, `${args.join(" ")}\n${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /pith serving on/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
});
