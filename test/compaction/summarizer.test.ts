import assert from "node:assert/strict";
import { test } from "node:test";
import { compact, compactionSettings, prepareCompaction, serializeMessage, summarizeBlocks, truncateMiddle } from "../../src/compaction/index.js";
import type { AgentMessage } from "../../src/messages/types.js";
import { FakeSummarizer } from "../support/fake-summarizer.js";
import { assistant, call, result, user } from "../support/messages.js";

test("a 2M-token session compacts: chunks, oldest first, each within the window, each updating the last", async () => {
  const messages: AgentMessage[] = [];
  for (let i = 0; messages.length < 4000; i++) {
    messages.push(user(`request ${i}: ` + "please look at this ".repeat(50)));
    messages.push(assistant("", [call(`c${i}`, "read", { path: `src/m${i}.ts` })]));
    messages.push(result(`c${i}`, "read", "export function f() { return [1, 2, 3].map((x) => x * 2); }\n".repeat(150)));
    messages.push(assistant(`finding ${i}: ` + "the module does what it says ".repeat(60)));
  }
  const limits = { contextWindow: 200_000, maxOutputTokens: 16_000 };
  const settings = compactionSettings({ maxBlockChars: 1_000_000 }); // keep tool output whole: the raw span is huge
  const out = prepareCompaction({ messages, entryIds: messages.map((_, i) => `e${i}`), freshFrom: 0 }, settings, "threshold");
  assert.ok(out.ok);
  assert.ok(out.preparation.tokensBefore > 2_000_000, `${out.preparation.tokensBefore} tokens`);
  const port = new FakeSummarizer({ contextWindow: limits.contextWindow });
  const res = await compact(out.preparation, { port, limits, settings, signal: new AbortController().signal });
  assert.equal(res.fallback, undefined);
  assert.ok(port.requests.length >= 10, `${port.requests.length} requests`);
  for (const r of port.requests) assert.ok(!r.rejected && r.tokens <= limits.contextWindow, `request of ${r.tokens} tokens`);
  // oldest first, and from the second on each updates the running summary
  assert.match(port.requests[0].prompt, /request 0:/);
  assert.doesNotMatch(port.requests[0].prompt, /<existing-notes>/);
  for (const r of port.requests.slice(1).filter((r) => r.kind === "history")) assert.match(r.prompt, /<existing-notes>\n## Goal\nsummary \d+/);
});

test("a single block larger than any request is cut to fit instead of failing", async () => {
  const port = new FakeSummarizer({ contextWindow: 5000 });
  const out = await summarizeBlocks(["[user]\n" + "long ".repeat(50_000)], {
    port,
    limits: { contextWindow: 5000, maxOutputTokens: 1000 },
    kind: "history",
    maxTokens: 1000,
    timeoutMs: 1000,
    signal: new AbortController().signal,
  });
  assert.equal(out.requests, 1);
  assert.ok(!port.requests[0].rejected);
  assert.match(port.requests[0].prompt, /characters left out/);
});

test("a prompt that cannot fit at all gives up with the overflow error (the caller falls back)", async () => {
  const port = new FakeSummarizer({ contextWindow: 10 });
  await assert.rejects(
    summarizeBlocks(["[user]\nhello"], { port, limits: { contextWindow: 5000, maxOutputTokens: 100 }, kind: "history", maxTokens: 100, timeoutMs: 1000, signal: new AbortController().signal }),
    /prompt is too long/,
  );
});

test("serialization: role-marked blocks; tool output, thinking and extension text are cut, user text is not", () => {
  const max = { maxBlockChars: 100 };
  const long = "y".repeat(1000);
  assert.equal(serializeMessage(user(long), max)[0], `[user]\n${long}`);
  const a: AgentMessage = { ...assistant("answer", [call("1", "bash", { command: "ls -la" })]), content: [{ type: "thinking", thinking: long }, { type: "text", text: "answer" }, { type: "toolCall", id: "1", name: "bash", arguments: { command: "ls -la" } }] };
  const [block] = serializeMessage(a, max);
  assert.match(block, /^\[assistant thinking\]\ny+\n\[… \d+ characters left out …\]\ny+\n\[assistant\]\nanswer\n\[assistant calls tool bash\] \{"command":"ls -la"\}$/);
  assert.ok(serializeMessage(result("1", "bash", long), max)[0].length < 200);
  assert.match(serializeMessage(result("1", "bash", "boom", true), max)[0], /^\[tool bash failed\]\nboom$/);
  const custom: AgentMessage = { role: "custom", customType: "ext", content: long, display: true, timestamp: 0 };
  assert.ok(serializeMessage(custom, max)[0].length < 200);
  assert.deepEqual(serializeMessage({ role: "bashExecution", command: "ls", output: "x", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 0 }, max), []);
  assert.equal(truncateMiddle("abcdefghij", 8), "abcdef\n[… 2 characters left out …]\nij");
});
