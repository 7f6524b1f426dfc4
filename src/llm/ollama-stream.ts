// Ollama's /api/chat lines -> pith's stream events, one network read at a time. Deltas of the
// same block that arrived in one read become one event: they reached pith together, so nothing
// is shown later for it, and a fast local model (a token a line, dozens of lines a read) costs
// one event per read instead of one per token.
import { randomBytes } from "node:crypto";
import { classifyOllamaStreamError } from "./ollama-errors.js";
import type { PartialMessage } from "./partial.js";
import { ProviderError, type StreamEvent } from "./types.js";

/** One NDJSON line of /api/chat, as far as pith reads it. */
export interface ChatLine {
  message?: { content?: string; thinking?: string; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  /** newer servers: the prompt tokens read from the KV cache (see promptUsage) */
  prompt_eval_cached_count?: number;
  eval_count?: number;
  error?: unknown;
  status?: unknown;
}

function toolArguments(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  // some servers that imitate Ollama send the arguments as a JSON string
  if (typeof raw === "string") {
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // left empty: the tool's own validation reports the missing arguments
    }
  }
  return {};
}

export interface ReadResult {
  events: StreamEvent[];
  /** an error line, or a line that is not JSON: the stream ends with it after `events` */
  error?: ProviderError;
  /** the final line (done: true), once it came */
  done?: ChatLine;
}

export class OllamaLineReader {
  private index = -1;
  private open: "text" | "thinking" | undefined;
  private run = "";
  sawToolCall = false;

  constructor(private readonly partial: PartialMessage) {}

  private flush(events: StreamEvent[]): void {
    if (!this.run) return;
    events.push(this.open === "thinking" ? this.partial.thinking(this.index, this.run) : this.partial.text(this.index, this.run));
    this.run = "";
  }

  private delta(kind: "text" | "thinking", text: string, events: StreamEvent[]): void {
    if (this.open !== kind) {
      this.flush(events);
      this.index++;
      if (kind === "text") this.partial.beginText(this.index);
      else this.partial.beginThinking(this.index);
      this.open = kind;
    }
    this.run += text;
  }

  /** The events of one read's lines. */
  read(lines: readonly string[]): ReadResult {
    const events: StreamEvent[] = [];
    for (const raw of lines) {
      let line: ChatLine;
      try {
        line = JSON.parse(raw) as ChatLine;
      } catch {
        this.flush(events);
        return { events, error: new ProviderError({ errorClass: "fatal", message: `Ollama sent a line that is not JSON: ${raw.slice(0, 200)}` }) };
      }
      if (line.error !== undefined) {
        this.flush(events);
        return { events, error: classifyOllamaStreamError(line) };
      }
      const msg = line.message;
      if (msg?.thinking) this.delta("thinking", msg.thinking, events);
      if (msg?.content) this.delta("text", msg.content, events);
      // Ollama parses a tool call whole before sending it: start, arguments and end at once
      for (const call of msg?.tool_calls ?? []) {
        this.flush(events);
        this.open = undefined;
        this.sawToolCall = true;
        const at = ++this.index;
        events.push(this.partial.beginToolCall(at, call.id || `call_${randomBytes(6).toString("hex")}`, call.function?.name ?? ""));
        events.push(this.partial.toolJsonDelta(at, JSON.stringify(toolArguments(call.function?.arguments))));
        const end = this.partial.endBlock(at);
        if (end) events.push(end);
      }
      if (line.done) {
        this.flush(events);
        return { events, done: line };
      }
    }
    this.flush(events);
    return { events };
  }
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/**
 * The prompt's tokens from the final line, as pith stores them: input (evaluated now) and
 * cacheRead (read from the KV cache), which add up to the prompt. prompt_eval_count is the whole
 * prompt, cached part included (llama_server.go: cache_n + prompt_n, kept so by ollama/ollama
 * #16428 after some 0.30 releases had counted only the new tokens). A server that also sends
 * prompt_eval_cached_count says which part came from the cache; one larger than the prompt count
 * can only be a count kept apart from it, and then the two add up. An absent prompt_eval_count
 * (Ollama before mid-2024 with a fully cached prompt) gives 0: "not reported", not "empty".
 */
export function promptUsage(line: ChatLine): { input: number; cacheRead: number } {
  const prompt = count(line.prompt_eval_count);
  const cached = count(line.prompt_eval_cached_count);
  if (cached > prompt) return { input: prompt, cacheRead: cached };
  return { input: prompt - cached, cacheRead: cached };
}
