// Stored messages are open objects: a field pith does not know (another writer's, a newer
// version's) survives a parse, while the TypeScript type names only the known fields, so the
// domain code that uses these types directly gets compile errors for misspelt fields and keeps
// its fields through Omit/Pick.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentMessage, AssistantMessage, CompactionSettings, Usage, type UserMessage } from "../../protocol/index.js";
import type { AgentEvent } from "../../src/agent/events.js";

const usage: Usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

test("unknown keys of stored messages and their blocks are kept by a parse", () => {
  const stored = {
    role: "assistant",
    content: [{ type: "text", text: "hi", fromNewerWriter: 1 }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage: { ...usage, reasoning: 7 },
    stopReason: "stop",
    timestamp: 1,
    responseId: "r1",
  };
  assert.deepEqual(AgentMessage.parse(stored), stored);
  assert.deepEqual(AssistantMessage.parse(stored), stored);
});

test("the schemas' JSON Schema still allows unknown keys on stored messages", async () => {
  const { z } = await import("zod");
  const schema = z.toJSONSchema(AssistantMessage) as { additionalProperties?: unknown };
  assert.deepEqual(schema.additionalProperties, {});
});

test("the inferred types name the known fields only (compile-time: npm run typecheck)", () => {
  const user: UserMessage = { role: "user", content: "hi", timestamp: 1 };
  // @ts-expect-error a misspelt field is an error, not `unknown`
  void user.timestmap;
  // Omit keeps the other known fields (an index signature would make it drop them all)
  const rest: Omit<UserMessage, "timestamp"> = { role: "user", content: "x" };
  assert.equal(rest.role, "user");
  // the settings' model is optional, prune is whole
  const settings: Pick<CompactionSettings, "prune" | "model"> = { prune: { enabled: true, keepToolTokens: 1, minPruneTokens: 1 } };
  assert.equal(settings.model, undefined);
  // an agent event is the wire's without sessionId and seq
  const start: AgentEvent = { type: "agent_start", runId: "r" };
  // @ts-expect-error the host adds seq; the agent does not
  const withSeq: AgentEvent = { type: "agent_start", runId: "r", seq: 1 };
  assert.ok(start && withSeq);
});
