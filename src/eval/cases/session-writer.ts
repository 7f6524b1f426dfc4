// Writes one Pi v3 session file (../shared/reference/pi-docs/session.md) entry by entry: a linear
// chain of 8-hex ids drawn from the case's seed, timestamps that advance from a fixed start, and
// usage on each assistant message as a provider would report it (the context before it plus the
// system prompt and tools, then its own tokens). It keeps a running token estimate, measured the
// way pith measures a context, so the storyline can place what it plants by share of the session.
import { estimateMessageTokens } from "../../compaction/estimate.js";
import type { AgentMessage } from "../../messages/types.js";
import type { Prng } from "./prng.js";

/** what the system prompt and the tool definitions add to every request */
const OVERHEAD_TOKENS = 3000;
const MODEL = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" } as const;
/** dollars per token, input and output (claude-sonnet-4-5's list price) */
const PRICE = { input: 3 / 1e6, output: 15 / 1e6 };

export interface ToolCallSpec {
  name: "read" | "write" | "edit" | "bash" | "ls" | "grep" | "find";
  arguments: Record<string, unknown>;
  /** the tool's result text */
  output: string;
  isError?: boolean;
}

export interface AssistantSpec {
  thinking?: string;
  text?: string;
  calls?: ToolCallSpec[];
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

export class SessionWriter {
  private readonly lines: string[] = [];
  private lastId: string | null = null;
  private readonly usedIds = new Set<string>();
  private clock: number;
  private total = 0;

  constructor(
    private readonly rng: Prng,
    cwd: string,
    startMs: number,
  ) {
    this.clock = startMs;
    this.lines.push(JSON.stringify({ type: "session", version: 3, id: rng.uuid(), timestamp: new Date(startMs).toISOString(), cwd }));
  }

  /** estimated tokens of every message written so far */
  get tokens(): number {
    return this.total;
  }

  modelChange(): void {
    this.entry("model_change", { provider: MODEL.provider, modelId: MODEL.model });
  }

  thinkingLevel(level: "low" | "medium" | "high"): void {
    this.entry("thinking_level_change", { thinkingLevel: level });
  }

  user(text: string): string {
    return this.message({ role: "user", content: text, timestamp: this.tick(20, 240) });
  }

  /** an assistant message and, after it, the result of each of its tool calls; returns the message's id */
  assistant(spec: AssistantSpec): string {
    const calls = spec.calls ?? [];
    const content: Record<string, unknown>[] = [];
    if (spec.thinking) content.push({ type: "thinking", thinking: spec.thinking });
    if (spec.text) content.push({ type: "text", text: spec.text });
    const ids = calls.map(() => `toolu_01${this.rng.hex(22)}`);
    calls.forEach((c, i) => content.push({ type: "toolCall", id: ids[i], name: c.name, arguments: c.arguments }));
    const message = {
      role: "assistant",
      content,
      ...MODEL,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: calls.length > 0 ? "toolUse" : "stop",
      timestamp: this.tick(3, 45),
    };
    const output = estimateMessageTokens(message as unknown as AgentMessage);
    const input = this.total + OVERHEAD_TOKENS;
    const cost = { input: round(input * PRICE.input), output: round(output * PRICE.output), cacheRead: 0, cacheWrite: 0, total: 0 };
    cost.total = round(cost.input + cost.output);
    message.usage = { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost };
    const id = this.message(message);
    calls.forEach((c, i) => {
      this.message({
        role: "toolResult",
        toolCallId: ids[i],
        toolName: c.name,
        content: [{ type: "text", text: c.output }],
        isError: c.isError ?? false,
        timestamp: this.tick(1, c.name === "bash" ? 90 : 2),
      });
    });
    return id;
  }

  /** the session file's text */
  text(): string {
    return `${this.lines.join("\n")}\n`;
  }

  private message(message: Record<string, unknown>): string {
    this.total += estimateMessageTokens(message as unknown as AgentMessage);
    return this.entry("message", { message });
  }

  private entry(type: string, fields: Record<string, unknown>): string {
    let id = this.rng.hex(8);
    while (this.usedIds.has(id)) id = this.rng.hex(8);
    this.usedIds.add(id);
    this.lines.push(JSON.stringify({ type, id, parentId: this.lastId, timestamp: new Date(this.clock).toISOString(), ...fields }));
    this.lastId = id;
    return id;
  }

  /** moves the clock on by a few seconds and returns it (a message's own timestamp, in ms) */
  private tick(minSeconds: number, maxSeconds: number): number {
    this.clock += this.rng.int(minSeconds * 1000, maxSeconds * 1000);
    return this.clock;
  }
}
