// Links between the nodes of a fleet (several `pith serve` on one PostgreSQL), attacked:
// - the cluster token used to be a full client token: whoever held it could `updateSettings
//   {sandbox: off}` and run the user's `bash` on every node. A link now relays a client's
//   session requests only: the rest is -32019 Forbidden;
// - a link to a plain ws:// node URL sent the cluster token and every relayed event in clear.
//   It is now refused before any connection unless the address is loopback (or the user says
//   --trusted-network); a wss:// link verifies the node's certificate against --tls-ca.
// No test connects to a non-loopback address: the refusal happens before any connection.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { createServer as createTlsServer } from "node:tls";
import { ErrorCodes } from "../../protocol/index.js";
import { isLoopbackHost, linkRefusal } from "../../src/rpc/link-security.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { checkDist, FLOW_SETTINGS, runPith, startServeDaemon, writeSettings, type ServeDaemon, type WsPeer } from "../support/daemon-client.js";
import { postgresSkip, startPostgres, type Postgres } from "../support/postgres.js";
import { tempDir } from "../support/tmp.js";

const CLUSTER_TOKEN = "links-cluster-token_0123456789abcdef";

let opensslSkip: string | false = false;
try {
  execFileSync("openssl", ["version"], { stdio: "ignore" });
} catch {
  opensslSkip = "openssl is not installed (Debian package `openssl`)";
  process.stderr.write(`[node-link tests] the wss:// test is skipped: ${opensslSkip}\n`);
}

interface Rig {
  server: Postgres;
  fake: FakeAnthropic;
  cwd: string;
}

async function rig(t: TestContext): Promise<Rig> {
  checkDist(t);
  const server = await startPostgres(t);
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  return { server, fake, cwd: tempDir(t, "pith-links-cwd-") };
}

async function node(t: TestContext, r: Rig, id: string, args: string[] = []): Promise<ServeDaemon> {
  const home = tempDir(t, `pith-links-${id}-`);
  writeSettings(home, FLOW_SETTINGS);
  return startServeDaemon(t, { home, fake: r.fake, cwd: r.cwd, args: ["--store", r.server.url, "--node-id", id, "--cluster-token", CLUSTER_TOKEN, ...args] });
}

async function client(t: TestContext, n: ServeDaemon): Promise<WsPeer> {
  const peer = await n.connect(t);
  await peer.initialize();
  return peer;
}

test("links: plain ws:// leaves the host only on a trusted network; wss:// always; loopback always", () => {
  const url = (s: string) => new URL(s);
  assert.equal(linkRefusal(url("ws://127.0.0.1:7777/rpc"), {}), undefined);
  assert.equal(linkRefusal(url("ws://[::1]:7777/rpc"), {}), undefined);
  assert.equal(linkRefusal(url("ws://localhost:7777/rpc"), {}), undefined);
  assert.equal(linkRefusal(url("wss://10.0.0.6:7777/rpc"), {}), undefined);
  assert.match(linkRefusal(url("ws://10.0.0.6:7777/rpc"), {}) ?? "", /plain ws:\/\/ to 10\.0\.0\.6:7777/);
  assert.match(linkRefusal(url("ws://node-b.internal:7777/rpc"), {}) ?? "", /--trusted-network/);
  assert.equal(linkRefusal(url("ws://10.0.0.6:7777/rpc"), { trustedNetwork: true }), undefined);
  for (const h of ["127.0.0.1", "127.8.9.1", "[::1]", "localhost", "::ffff:127.0.0.1"]) assert.ok(isLoopbackHost(h), h);
  for (const h of ["10.0.0.1", "128.0.0.1", "[::2]", "localhost.example.com", "0.0.0.0"]) assert.ok(!isLoopbackHost(h), h);
});

test("the cluster token relays a client's session requests only: updateSettings, getSettings, createSession, listSessions, a file's openSession and the user's bash are -32019 Forbidden", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const r = await rig(t);
  const a = await node(t, r, "a");
  const owner = await client(t, a);
  const { sessionId } = await owner.request("createSession", { cwd: r.cwd });

  // an attacker who has the cluster token connects as if it were a node
  const link = await a.connect(t, { auth: false, headers: { Authorization: `Bearer ${CLUSTER_TOKEN}` } });
  await link.initialize();
  const refused: [string, object][] = [
    ["updateSettings", { patch: { sandbox: { mode: "off" } } }],
    ["getSettings", {}],
    ["createSession", { cwd: r.cwd }],
    ["listSessions", {}],
    ["listModels", {}],
    ["openSession", { sessionFile: join(r.cwd, "x.jsonl") }],
    ["bash", { sessionId, command: "id" }],
  ];
  for (const [method, params] of refused) {
    const answer = await link.call(method as never, params as never);
    assert.ok(answer.error, `${method} was carried out for the cluster token: ${JSON.stringify(answer).slice(0, 300)}`);
    assert.equal(answer.error.code, -32019, `${method}: ${JSON.stringify(answer)}`);
    assert.equal(ErrorCodes.Forbidden, -32019);
    assert.equal((answer.error?.data as { method?: string }).method, method);
  }
  assert.equal((await owner.request("getSettings", {})).settings.sandbox?.mode, undefined, "the settings are unchanged");
  // what relaying needs still works: open the session by id, its own methods
  await link.request("openSession", { sessionId });
  assert.equal((await link.request("getState", { sessionId })).sessionId, sessionId);
  assert.deepEqual((await link.request("getMessages", { sessionId })).messages, []);
});

test("a node whose URL is plain ws:// on another machine is not linked to: the relayed client gets -32018 saying why, and the node logs it", { skip: postgresSkip, timeout: 60_000 }, async (t) => {
  const r = await rig(t);
  // 192.0.2.0/24 is TEST-NET-1 (documentation only): never contacted, the refusal comes first
  const a = await node(t, r, "a", ["--node-url", "ws://192.0.2.10:7777"]);
  const b = await node(t, r, "b");
  const { sessionId } = await (await client(t, a)).request("createSession", { cwd: r.cwd });
  const peer = await client(t, b);
  const answer = await peer.call("openSession", { sessionId });
  assert.equal(answer.error?.code, ErrorCodes.SessionMoved, JSON.stringify(answer));
  assert.match(answer.error?.message ?? "", /refusing to send the cluster token over plain ws:\/\/ to 192\.0\.2\.10:7777/);
  assert.equal((answer.error?.data as { owner: { nodeId: string } }).owner.nodeId, "a", "the client still learns who owns it");
  assert.match(b.stderr, /refusing to send the cluster token over plain ws:\/\//);
});

/** A self-signed certificate for 127.0.0.1 (it is its own CA). */
function selfSigned(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=pith-test-node", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8"), certFile };
}

test("a wss:// link verifies the node's certificate: with --tls-ca the client is relayed through TLS; without it the link is refused", { skip: postgresSkip || opensslSkip, timeout: 90_000 }, async (t) => {
  const r = await rig(t);
  const { key, cert, certFile } = selfSigned(tempDir(t, "pith-links-tls-"));
  // TLS in front of node a (the serving side's own TLS is another change): 127.0.0.1 only
  let target = 0;
  let secured = 0;
  const sockets = new Set<{ destroy(): void }>();
  const proxy = createTlsServer({ key, cert }, (socket) => {
    secured++;
    const upstream = netConnect(target, "127.0.0.1");
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  // a failed handshake (the node without the CA) is the client's error, not the proxy's
  proxy.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    proxy.close();
  });
  const proxyPort = (proxy.address() as { port: number }).port;

  const a = await node(t, r, "a", ["--node-url", `wss://127.0.0.1:${proxyPort}`]);
  target = a.port;
  const b = await node(t, r, "b", ["--tls-ca", certFile]);
  const c = await node(t, r, "c");
  const owner = await client(t, a);
  const { sessionId, state } = await owner.request("createSession", { cwd: r.cwd });

  const relayed = await client(t, b);
  const opened = await relayed.request("openSession", { sessionId });
  assert.equal(opened.state.streamId, state.streamId, "b relays its client to a over wss://");
  assert.ok(secured >= 1, "through TLS");

  const unverified = await client(t, c);
  const answer = await unverified.call("openSession", { sessionId });
  assert.equal(answer.error?.code, ErrorCodes.SessionMoved, JSON.stringify(answer));
  assert.match(answer.error?.message ?? "", /self[- ]signed|certificate/i, "a certificate no CA vouches for is refused");
});

test("--tls-ca that cannot be read, or is no PEM file, is a usage error at start (exit 2); with the file store too", async (t) => {
  checkDist(t);
  const home = tempDir(t);
  writeFileSync(join(home, "not-pem.txt"), "hello");
  // the usage checks come before the store is reached: nothing listens on port 1
  const store = ["--store", "postgres://pith@127.0.0.1:1/pith"];
  for (const [args, why] of [
    [[...store, "--tls-ca", join(home, "missing.pem")], /^pith: cannot read --tls-ca .*missing\.pem: ENOENT/],
    [[...store, "--tls-ca", join(home, "not-pem.txt")], /^pith: bad --tls-ca .*: not a PEM certificate file/],
    [["--trusted-network"], /^pith: --trusted-network needs a PostgreSQL store/],
  ] as const) {
    const run = await runPith(["serve", "--port", "0", ...args], { home, cwd: home });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, why);
  }
});
