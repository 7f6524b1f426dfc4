// The MCP bench at two calls and one session start per figure, no warm-up, so it cannot rot: every tool variant
// (built-in, MCP over stdio, MCP over HTTP) and every server count has its figures. They are not
// judged here (timing belongs to `npm run bench -- mcp`), only their presence and sanity; the bench
// itself checks each call read the file and each first request carried every server's tools.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runMcpBench } from "../../bench/mcp.bench.js";

test("mcp bench: a tool call per transport beside the built-in, a session start per server count", { timeout: 120_000 }, async () => {
  const r = await runMcpBench({ calls: 2, starts: 1, warmups: 0 });
  assert.deepEqual(Object.keys(r.toolCall), ["built-in read", "MCP stdio read_file", "MCP HTTP read_file"]);
  for (const [name, f] of Object.entries(r.toolCall)) {
    for (const v of [f.toolMs, f.runMs, f.toolRatio, f.runRatio]) assert.ok(Number.isFinite(v) && v > 0, `${name}: ${JSON.stringify(f)}`);
  }
  assert.deepEqual(Object.keys(r.sessionStart), ["0", "1", "5"]);
  for (const [n, f] of Object.entries(r.sessionStart)) assert.ok(Number.isFinite(f.ms) && f.ms > 0 && f.ratio > 0, `${n} servers: ${JSON.stringify(f)}`);
});
