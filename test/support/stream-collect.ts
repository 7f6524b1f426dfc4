// Runs one provider.stream call to its end and keeps every event, for provider tests.
import assert from "node:assert/strict";
import type { ModelInfo, Provider, ProviderError, StreamEvent, StreamRequest } from "../../src/llm/types.js";
import type { AgentMessage, AssistantMessage } from "../../src/messages/types.js";

export interface Collected {
  events: StreamEvent[];
  final: AssistantMessage;
  error?: ProviderError;
}

/** a model of a compatible server, priced so costs can be checked */
export function testModel(overrides: Partial<ModelInfo> = {}): ModelInfo {
  return { id: "fake-model", provider: "local", contextWindow: 32_768, maxOutputTokens: 4096, pricing: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 }, thinking: "none", ...overrides };
}

export async function collect(provider: Provider, req: Partial<StreamRequest> & { messages: AgentMessage[] }, model: ModelInfo = testModel()): Promise<Collected> {
  const events: StreamEvent[] = [];
  for await (const ev of provider.stream({ model, systemPrompt: "sys", tools: [], maxTokens: 1024, signal: new AbortController().signal, ...req })) events.push(ev);
  const last = events.at(-1)!;
  assert.ok(last.type === "done" || last.type === "error", "the stream ends with done or error");
  assert.equal(events.filter((e) => e.type === "done" || e.type === "error").length, 1, "exactly one final event");
  return { events, final: last.message, error: last.type === "error" ? last.error : undefined };
}

export function deltas(events: StreamEvent[], type: "text_delta" | "thinking_delta" | "toolcall_delta"): string[] {
  return events.flatMap((e) => (e.type === type ? [e.delta] : []));
}
