// The prompt-cache billing model the cost benches use (bench/cache-billing.ts): a repeated prefix
// is read at 0.1x, a new one written at 1.25x up to the last breakpoint, a change early in the
// prompt writes everything after it again, and a prefix unused for 5 minutes is gone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CACHE_TTL_MS, CacheBilling, promptBlocks } from "../../bench/cache-billing.js";

const BIG = "word ".repeat(3000);
function body(outputs: string[]): Record<string, any> {
  const messages = [{ role: "user", content: [{ type: "text", text: "go" }] }];
  outputs.forEach((o, i) => {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "read", input: { path: `f${i}` } }] } as never);
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: o }] } as never);
  });
  const last = messages.at(-1)!.content.at(-1) as Record<string, unknown>;
  last.cache_control = { type: "ephemeral" };
  return { system: [{ type: "text", text: BIG, cache_control: { type: "ephemeral" } }], messages };
}

test("a prefix is written once, then read; what follows the last breakpoint is input", () => {
  const billing = new CacheBilling();
  const first = billing.bill(body([BIG]), 0, 10);
  assert.equal(first.cacheRead, 0);
  assert.ok(first.cacheWrite > 3000 && first.input === 0);
  const second = billing.bill(body([BIG, BIG]), 15_000, 10);
  assert.equal(second.cacheRead, first.cacheWrite, "the whole previous prompt is read");
  assert.ok(second.cacheWrite > 1000 && second.cacheWrite < first.cacheWrite);
  const total = promptBlocks(body([BIG, BIG])).reduce((n, b) => n + b.tokens, 0);
  assert.equal(second.cacheRead + second.cacheWrite + second.input, total);
  assert.ok(Math.abs(second.cost - ((second.cacheRead * 0.1 + second.cacheWrite * 1.25) * 3 + 10 * 15) / 1e6) < 1e-12);
});

test("a change early in the prompt writes everything after it again; an expired prefix is written again", () => {
  const billing = new CacheBilling();
  billing.bill(body([BIG, BIG]), 0, 10);
  const edited = billing.bill(body(["[left out]", BIG, BIG]), 10_000, 10);
  const system = promptBlocks(body([]))[0].tokens;
  assert.equal(edited.cacheRead, system, "only the system prompt is still cached");
  const late = billing.bill(body(["[left out]", BIG, BIG]), 10_000 + CACHE_TTL_MS + 1, 10);
  assert.equal(late.cacheRead, 0, "5 minutes unused: gone");
});
