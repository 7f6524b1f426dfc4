// The per-provider discovery cache: one first discovery, bounded waits, refresh on demand,
// failures remembered, nothing thrown.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DiscoveryCache } from "../../src/llm/discovery/cache.js";
import { discoverModels } from "../../src/llm/discovery/discover.js";
import type { DiscoveryResult } from "../../src/llm/discovery/types.js";
import { startJsonServer } from "../support/fake-json-server.js";

const okResult = (id: string, window: number): DiscoveryResult => ({ status: "ok", server: "vllm", models: [{ id, contextWindow: window }], at: 1 });

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test("the first discovery starts once, however many callers wait", async () => {
  let runs = 0;
  const gate = deferred<DiscoveryResult>();
  const cache = new DiscoveryCache(() => {
    runs++;
    return gate.promise;
  });
  assert.equal(cache.state().status, "pending");
  cache.start();
  cache.start();
  const waits = [cache.get(5000), cache.get(5000), cache.get(5000)];
  gate.resolve(okResult("m", 32768));
  const states = await Promise.all(waits);
  assert.equal(runs, 1);
  for (const s of states) assert.equal(s.status, "ok");
  assert.equal(cache.model("m")?.contextWindow, 32768);
  assert.equal(cache.model("other"), undefined);
  assert.equal((await cache.get()).status, "ok", "later callers get the result at once");
  assert.equal(runs, 1);
});

test("a caller waits at most its bound, then goes on with 'pending'; the discovery still finishes", async () => {
  const gate = deferred<DiscoveryResult>();
  const cache = new DiscoveryCache(() => gate.promise, { waitMs: 30 });
  const t0 = Date.now();
  const s = await cache.get();
  assert.equal(s.status, "pending");
  assert.ok(Date.now() - t0 < 2000);
  gate.resolve(okResult("m", 8192));
  await new Promise((r) => setImmediate(r));
  assert.equal(cache.state().status, "ok");
});

test("a failure is remembered with its reason until a refresh; refreshes in flight are shared", async () => {
  let n = 0;
  const cache = new DiscoveryCache(async () => {
    n++;
    if (n === 1) return { status: "unreachable", failure: "network", reason: "cannot reach http://127.0.0.1:1 (ECONNREFUSED)", at: 1 };
    return okResult("m", 4096);
  });
  const first = await cache.get();
  assert.equal(first.status, "unreachable");
  assert.match(first.status === "unreachable" ? first.reason : "", /ECONNREFUSED/);
  assert.equal((await cache.get()).status, "unreachable", "not retried behind the caller's back");
  const [a, b] = await Promise.all([cache.refresh(), cache.refresh()]);
  assert.equal(a, b);
  assert.equal(n, 2);
  assert.equal(cache.state().status, "ok");
});

test("a run that throws becomes 'unreachable', never a rejection", async () => {
  const cache = new DiscoveryCache(async () => {
    throw new Error("parser exploded");
  });
  const s = await cache.get();
  assert.equal(s.status, "unreachable");
  assert.match(s.status === "unreachable" ? s.reason : "", /parser exploded/);
});

test("with real discovery: a hung server leaves callers 'pending' within their bound, and close() stops it", async (t) => {
  const server = await startJsonServer({ "GET /v1/models": { hang: true } });
  t.after(() => server.close());
  const cache = new DiscoveryCache((signal) => discoverModels({ api: "openai-completions", baseUrl: `${server.url}/v1` }, { signal, timeoutMs: 60_000 }), { waitMs: 50 });
  assert.equal((await cache.get()).status, "pending");
  cache.close();
  const done = await cache.refresh();
  assert.equal(done.status, "unreachable");
  assert.match(done.status === "unreachable" ? done.reason : "", /cancelled/);
});
